# Packets whose IP total length exceeds their length on the wire, which Zeek itself discards
# (weird truncated_IP_len): the SYN and a 1460-byte segment of which 120 bytes of frame were
# kept are logged from their bytes, with the IP header's length, one event per packet.
# @TEST-EXEC: zeek -C -r $PACKAGE_TRACES/truncated-ip-len.pcap $PACKAGE LogAscii::use_json=T CritPath::sensor_name=lab-client CritPath::sensor_role=CritPath::CLIENT %INPUT > unread
# @TEST-EXEC: $SCRIPTS/pcap-times $PACKAGE_TRACES/truncated-ip-len.pcap > packet-times
# @TEST-EXEC: grep -o '"ts_us":[0-9]*' critpath_packets.log | cut -d: -f2 > logged-times
# @TEST-EXEC: cmp packet-times logged-times
# @TEST-EXEC: btest-diff critpath_packets.log
# @TEST-EXEC: btest-diff unread

event zeek_done() &priority=-10
	{
	print fmt("unread: %d", CritPath::packets_unread);
	}
