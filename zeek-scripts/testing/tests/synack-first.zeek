# A capture that starts at the server's SYN/ACK: its receiver (the client) is the originator of
# every event, the first included, and its server port is what watch_ports matches. The ping in
# the capture is no TCP and leaves reporter.log empty.
# @TEST-EXEC: zeek -C -r $PACKAGE_TRACES/synack-first.pcap $PACKAGE LogAscii::use_json=T CritPath::sensor_name=lab-server CritPath::sensor_role=CritPath::SERVER "CritPath::watch_ports=set(5201/tcp)"
# @TEST-EXEC: test ! -e reporter.log
# @TEST-EXEC: test -s critpath_packets.log && ! grep -v '"orig_h":"10.71.1.2","orig_p":40002,"resp_h":"10.71.2.2","resp_p":5201,"is_orig":' critpath_packets.log
# @TEST-EXEC: btest-diff critpath_packets.log
