# The same connection as the server-site sensor logs it (SACK, timestamps and window scale on the handshake, SACK blocks in the dup ACKs).
# @TEST-EXEC: zeek -C -r $TRACES/sack-fast-retransmit/server.pcap $PACKAGE LogAscii::use_json=T CritPath::sensor_name=lab-server CritPath::sensor_role=CritPath::SERVER
# @TEST-EXEC: btest-diff critpath_packets.log
