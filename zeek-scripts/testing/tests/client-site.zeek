# The lab's sack-fast-retransmit connection as the client-site sensor logs it.
# @TEST-EXEC: zeek -C -r $TRACES/sack-fast-retransmit/client.pcap $PACKAGE LogAscii::use_json=T CritPath::sensor_name=lab-client CritPath::sensor_role=CritPath::CLIENT
# @TEST-EXEC: btest-diff critpath_packets.log
