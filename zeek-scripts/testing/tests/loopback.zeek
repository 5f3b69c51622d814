# Both ends on one address (loopback): the Community ID as the specification orders the ports,
# where Zeek's own community_id_v1 differs (port 53762 against 18080).
# @TEST-EXEC: zeek -C -r $TRACES/../zeek/loopback-http.pcap $PACKAGE LogAscii::use_json=T CritPath::sensor_name=lo
# @TEST-EXEC: btest-diff critpath_packets.log
