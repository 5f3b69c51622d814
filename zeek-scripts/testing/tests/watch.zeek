# Only the server ports and networks asked for are logged.
# @TEST-EXEC: zeek -C -r $TRACES/think-100ms/client.pcap $PACKAGE "CritPath::watch_ports=set(443/tcp)"
# @TEST-EXEC: test ! -e critpath_packets.log
# @TEST-EXEC: zeek -C -r $TRACES/think-100ms/client.pcap $PACKAGE "CritPath::watch_networks=set(10.71.2.0/24)"
# @TEST-EXEC: test -s critpath_packets.log
