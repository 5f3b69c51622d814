package dev.critpath.streaming;

import dev.critpath.core.lifecycle.LifecycleConfig;
import dev.critpath.kafka.KafkaClientProperties;
import java.io.Serializable;
import java.time.Duration;
import java.util.List;

/**
 * Everything the streaming job can be told. Defaults suit the embedded mode; the `critpath stream`
 * command documents each option.
 *
 * @param kafkaClient      Kafka client settings beyond the servers (authentication, TLS), for the
 *                         source's consumer and admin client
 * @param bounded          read the topics up to the offsets at start, then finish (replays, tests)
 * @param outOfOrderness   how far events may arrive out of timestamp order within a partition
 * @param allowedLateness  events this much older than the watermark, for a connection no longer
 *                         held, are late; must exceed the sensors' clock offsets
 * @param closeGrace       quiet time after FIN/RST before a connection is analysed
 * @param idleTimeout      quiet time after which an open connection is analysed as it stands
 * @param segments         when long-lived connections are analysed and written piece by piece
 * @param maxEventsPerConnection events buffered per flow; beyond it they are counted, not kept
 * @param caps           what one parallel instance of the connection step holds at most
 * @param maxSensorAhead how far a sensor's clock may run ahead: events stamped further ahead of
 *                       the job's clock are sensor_clock_ahead dead letters, and a sensor further
 *                       ahead of its partition's other sensors does not move event time (see
 *                       SensorWatermarks)
 */
public record StreamConfig(
        String bootstrapServers,
        KafkaClientProperties kafkaClient,
        List<String> topics,
        String groupId,
        String warehouse,
        boolean bounded,
        Duration outOfOrderness,
        Duration idleness,
        Duration alignmentMaxDrift,
        Duration allowedLateness,
        Duration closeGrace,
        Duration idleTimeout,
        Segments segments,
        int maxEventsPerConnection,
        Caps caps,
        Duration maxSensorAhead,
        int clientPrefixV4,
        int clientPrefixV6,
        Duration checkpointInterval,
        String checkpointDir,
        String stateBackend,
        int parallelism) implements Serializable {

    public static final List<String> DEFAULT_TOPICS = List.of("critpath-packets");

    /**
     * A connection open longer than {@code after}, or holding half the per-connection cap, is cut
     * into segments (see ConnectionSegments) whenever it has been quiet for {@code quiet} with
     * everything acknowledged: the segment's arcs and exchanges are written and its packets dropped.
     */
    public record Segments(Duration after, Duration quiet) implements Serializable {
    }

    /**
     * Bounds on one parallel instance of the connection step, whatever the input: at most
     * {@code flows} connections and {@code bufferedEvents} events held (beyond, new connections are
     * flow_table_full dead letters and held ones count further events over the cap, which their
     * profiles say), and {@code halfOpenFlows} flows without answer or payload (beyond, the one
     * quiet the longest is set aside as a half_open_connection dead letter).
     */
    public record Caps(int flows, long bufferedEvents, int halfOpenFlows) implements Serializable {
    }

    public static StreamConfig defaults(String bootstrapServers, String warehouse) {
        return new StreamConfig(bootstrapServers, KafkaClientProperties.NONE, DEFAULT_TOPICS, "critpath", warehouse, false,
                Duration.ofSeconds(2), Duration.ofSeconds(30), Duration.ofSeconds(60), Duration.ofSeconds(60),
                Duration.ofSeconds(5), Duration.ofSeconds(120), new Segments(Duration.ofSeconds(60), Duration.ofSeconds(1)), 200_000, new Caps(200_000, 2_000_000, 100_000), Duration.ofSeconds(60), 24, 48,
                Duration.ofSeconds(10), null, "hashmap", 1);
    }

    public StreamConfig withKafkaClient(KafkaClientProperties client) {
        return new StreamConfig(bootstrapServers, client, topics, groupId, warehouse, bounded, outOfOrderness, idleness, alignmentMaxDrift,
                allowedLateness, closeGrace, idleTimeout, segments, maxEventsPerConnection, caps, maxSensorAhead, clientPrefixV4, clientPrefixV6,
                checkpointInterval, checkpointDir, stateBackend, parallelism);
    }

    public StreamConfig withBounded(boolean b) {
        return new StreamConfig(bootstrapServers, kafkaClient, topics, groupId, warehouse, b, outOfOrderness, idleness, alignmentMaxDrift,
                allowedLateness, closeGrace, idleTimeout, segments, maxEventsPerConnection, caps, maxSensorAhead, clientPrefixV4, clientPrefixV6,
                checkpointInterval, checkpointDir, stateBackend, parallelism);
    }

    public StreamConfig withCheckpointing(Duration interval, String dir) {
        return new StreamConfig(bootstrapServers, kafkaClient, topics, groupId, warehouse, bounded, outOfOrderness, idleness, alignmentMaxDrift,
                allowedLateness, closeGrace, idleTimeout, segments, maxEventsPerConnection, caps, maxSensorAhead, clientPrefixV4, clientPrefixV6,
                interval, dir, stateBackend, parallelism);
    }

    public StreamConfig withTopic(String topic, String group) {
        return new StreamConfig(bootstrapServers, kafkaClient, List.of(topic), group, warehouse, bounded, outOfOrderness, idleness, alignmentMaxDrift,
                allowedLateness, closeGrace, idleTimeout, segments, maxEventsPerConnection, caps, maxSensorAhead, clientPrefixV4, clientPrefixV6,
                checkpointInterval, checkpointDir, stateBackend, parallelism);
    }

    public StreamConfig withParallelism(int n) {
        return new StreamConfig(bootstrapServers, kafkaClient, topics, groupId, warehouse, bounded, outOfOrderness, idleness, alignmentMaxDrift,
                allowedLateness, closeGrace, idleTimeout, segments, maxEventsPerConnection, caps, maxSensorAhead, clientPrefixV4, clientPrefixV6,
                checkpointInterval, checkpointDir, stateBackend, n);
    }

    public StreamConfig withSegments(Segments seg) {
        return new StreamConfig(bootstrapServers, kafkaClient, topics, groupId, warehouse, bounded, outOfOrderness, idleness, alignmentMaxDrift,
                allowedLateness, closeGrace, idleTimeout, seg, maxEventsPerConnection, caps, maxSensorAhead, clientPrefixV4, clientPrefixV6,
                checkpointInterval, checkpointDir, stateBackend, parallelism);
    }

    public StreamConfig withMaxEventsPerConnection(int max) {
        return new StreamConfig(bootstrapServers, kafkaClient, topics, groupId, warehouse, bounded, outOfOrderness, idleness, alignmentMaxDrift,
                allowedLateness, closeGrace, idleTimeout, segments, max, caps, maxSensorAhead, clientPrefixV4, clientPrefixV6,
                checkpointInterval, checkpointDir, stateBackend, parallelism);
    }

    public StreamConfig withCaps(Caps c) {
        return new StreamConfig(bootstrapServers, kafkaClient, topics, groupId, warehouse, bounded, outOfOrderness, idleness, alignmentMaxDrift,
                allowedLateness, closeGrace, idleTimeout, segments, maxEventsPerConnection, c, maxSensorAhead, clientPrefixV4, clientPrefixV6,
                checkpointInterval, checkpointDir, stateBackend, parallelism);
    }

    /** The connection stage's life cycle as these options set it. */
    public LifecycleConfig lifecycle() {
        return new LifecycleConfig(closeGrace, idleTimeout, allowedLateness, maxEventsPerConnection, segments.after(), segments.quiet(),
                caps.flows(), caps.bufferedEvents(), caps.halfOpenFlows());
    }

    /** Configuration mistakes as one readable sentence each; empty when fine. */
    public List<String> problems() {
        List<String> p = new java.util.ArrayList<>();
        if (bootstrapServers == null || bootstrapServers.isBlank()) {
            p.add("no Kafka bootstrap servers given");
        }
        if (topics.isEmpty()) {
            p.add("no topic given");
        }
        if (warehouse == null || warehouse.isBlank()) {
            p.add("no warehouse given");
        }
        if (clientPrefixV4 < 0 || clientPrefixV4 > 32 || clientPrefixV6 < 0 || clientPrefixV6 > 128) {
            p.add("client network prefixes must be 0..32 (IPv4) and 0..128 (IPv6)");
        }
        if (maxEventsPerConnection < 10) {
            p.add("the per-connection cap must be at least 10 events");
        }
        if (caps.flows() < 1 || caps.halfOpenFlows() < 1 || caps.bufferedEvents() < maxEventsPerConnection) {
            p.add("the flow caps must be at least 1 and the buffered-event cap at least the per-connection cap");
        }
        if (!stateBackend.equals("hashmap") && !stateBackend.equals("rocksdb")) {
            p.add("state backend must be hashmap or rocksdb, not " + stateBackend);
        }
        if (segments.quiet().compareTo(idleTimeout) >= 0 || segments.quiet().isNegative() || segments.quiet().isZero()) {
            p.add("the quiet time before a long-lived connection is cut must be positive and shorter than the idle timeout");
        }
        if (allowedLateness.compareTo(outOfOrderness) < 0) {
            p.add("allowed lateness must be at least the out-of-orderness bound");
        }
        return p;
    }
}
