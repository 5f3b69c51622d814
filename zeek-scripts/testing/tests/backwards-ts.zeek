# Packet stamps that go backwards (by 250 and 264 us): each event carries its own packet's time,
# never the latest time seen.
# @TEST-EXEC: zeek -C -r $PACKAGE_TRACES/backwards-ts.pcap $PACKAGE LogAscii::use_json=T CritPath::sensor_name=lab-client CritPath::sensor_role=CritPath::CLIENT
# @TEST-EXEC: grep -o '"ts_us":[0-9]*' critpath_packets.log | cut -d: -f2 > logged-times
# @TEST-EXEC: $SCRIPTS/pcap-times $PACKAGE_TRACES/backwards-ts.pcap > packet-times
# @TEST-EXEC: cmp packet-times logged-times
# @TEST-EXEC: btest-diff critpath_packets.log
