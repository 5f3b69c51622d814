##! Load as critpath-sensor/kafka to ship the packet events to Kafka through the zeek-kafka plugin: JSON records with
##! the contract's field names and no key (the pipeline orders by event time), to the topic the
##! pipeline reads by default. Brokers: set Kafka::kafka_conf, e.g. on the command line
##! Kafka::kafka_conf='table(["metadata.broker.list"] = "kafka:9092")'; a SASL password as
##! getenv("CRITPATH_KAFKA_PASSWORD") in that table, never literally (README.md). Without the plugin
##! the package only writes critpath_packets.log.

@ifdef ( Kafka::logs_to_send )
@load Seiso/Kafka
redef Kafka::logs_to_send += { CritPath::LOG };
redef Kafka::topic_name = "critpath-packets";
redef Kafka::tag_json = F;
@endif
