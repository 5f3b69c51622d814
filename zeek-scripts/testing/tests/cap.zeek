# At most max_packets_per_connection records per connection; the rest counted.
# @TEST-EXEC: zeek -C -r $TRACES/dl-500k/client.pcap $PACKAGE LogAscii::use_json=T CritPath::max_packets_per_connection=25 %INPUT > over
# @TEST-EXEC: wc -l < critpath_packets.log | tr -d ' ' > logged
# @TEST-EXEC: btest-diff logged
# @TEST-EXEC: btest-diff over

event zeek_done() &priority=-10
	{
	print fmt("over cap: %d", CritPath::packets_over_cap);
	}
