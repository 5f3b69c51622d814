#!/bin/bash
# kafka-topics.sh of the Kafka distribution, for health checks and operators
exec java -Dlog4j.configuration=file:/opt/kafka/config/tools-log4j.properties -cp '/opt/kafka/libs/*' org.apache.kafka.tools.TopicCommand "$@"
