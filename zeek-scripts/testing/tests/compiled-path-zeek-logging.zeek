# Where LogAscii writes TSV (use_json=F), the compiled sensor hands its records to Zeek's logging:
# the same log as the script path's, but for the times the file was opened and closed.
# @TEST-REQUIRES: zeek -N CritPath::Sensor
# @TEST-EXEC: for c in $TRACES/sack-fast-retransmit/server.pcap $PACKAGE_TRACES/truncated-ip-len.pcap $PACKAGE_TRACES/synack-first.pcap; do for p in T F; do zeek -C -r $c $PACKAGE CritPath::sensor_name=lab CritPath::use_plugin=$p && grep -v '^#open\|^#close' critpath_packets.log >> $p.log; done; done
# @TEST-EXEC: test "$(grep -vc '^#' T.log)" -gt 100
# @TEST-EXEC: cmp T.log F.log
