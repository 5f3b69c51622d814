# The compiled sensor logs byte for byte what the script path logs, on every lab capture and the
# package's own traces (backwards stamps, a SYN/ACK first, packets Zeek discards, loopback).
# @TEST-REQUIRES: zeek -N CritPath::Sensor
# @TEST-EXEC: $SCRIPTS/paths-agree $TRACES/*/*.pcap $PACKAGE_TRACES/*.pcap $TRACES/../zeek/loopback-http.pcap > agreement
# @TEST-EXEC: btest-diff agreement
