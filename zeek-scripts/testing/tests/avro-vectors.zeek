# The compiled sensor's Avro encoder writes the contract's Avro vectors byte for byte
# (schemas/vectors/packet-event-avro, made with Apache Avro's own library), from their JSON twins
# in the form the sensor writes them (sensor_role and capture_index present).
# @TEST-REQUIRES: zeek -N CritPath::Sensor
# @TEST-EXEC: for v in sensor-syn-all-options sensor-ipv6-sack sensor-empty-sack; do VECTOR_JSON=$(cat $VECTORS/packet-event/valid/$v.json) zeek $PACKAGE %INPUT > $v.hex; (od -An -v -tx1 $VECTORS/packet-event-avro/valid/$v.bin | tr -d ' \n'; echo) > $v.expected; if cmp -s $v.expected $v.hex; then echo "$v: identical"; else echo "$v: differs"; fi >> agreement; done
# @TEST-EXEC: btest-diff agreement

event zeek_init()
	{
	local parsed = from_json(getenv("VECTOR_JSON"), CritPath::Info);
	if ( ! parsed$valid )
		{
		print "not a CritPath::Info";
		return;
		}
	local rec: CritPath::Info = parsed$v;
	print bytestring_to_hexstr(CritPath::avro_record(rec));
	}
