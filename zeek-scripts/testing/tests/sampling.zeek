# Sampling by Community ID: both sites keep the same connections, about the share asked for.
# @TEST-EXEC: zeek -C -r $TRACES/random-batch/client.pcap $PACKAGE LogAscii::use_json=T CritPath::sample_permille=500 && grep -o '"community_id":"[^"]*"' critpath_packets.log | sort -u > client.ids
# @TEST-EXEC: rm critpath_packets.log && zeek -C -r $TRACES/random-batch/server.pcap $PACKAGE LogAscii::use_json=T CritPath::sample_permille=500 && grep -o '"community_id":"[^"]*"' critpath_packets.log | sort -u > server.ids
# @TEST-EXEC: cmp client.ids server.ids
# @TEST-EXEC: wc -l < client.ids | tr -d ' ' > kept
# @TEST-EXEC: btest-diff kept
