package dev.critpath.cli;

import dev.critpath.streaming.StreamConfig;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** The streaming job's settings as command-line options (`critpath stream`). */
final class StreamOptions {
    private static final StreamConfig D = StreamConfig.defaults("", "");

    @Option(names = "--bootstrap-servers", required = true, paramLabel = "HOST:PORT,...", description = "Kafka brokers to read packet events from.")
    String bootstrapServers;

    @Mixin
    KafkaConfigOption kafkaConfig;

    @Option(names = "--topic", paramLabel = "NAME", split = ",", description = "Topics with packet events (default: critpath-packets).")
    List<String> topics = StreamConfig.DEFAULT_TOPICS;

    @Option(names = "--group-id", paramLabel = "ID", description = "Kafka consumer group (default: ${DEFAULT-VALUE}).", defaultValue = "critpath")
    String groupId;

    @Option(names = "--warehouse", required = true, paramLabel = "DIR|URI", description = "Where the Parquet tables go: a local directory, or any Flink file system URI (s3://, hdfs://).")
    String warehouse;

    @Option(names = "--bounded", description = "Read the topics up to their current ends, then finish (replays of history).")
    boolean bounded;

    @Option(names = "--checkpoint-dir", paramLabel = "URI", description = "Checkpoint storage (default: WAREHOUSE/_checkpoints).")
    String checkpointDir;

    @Option(names = "--checkpoint-interval-s", paramLabel = "S", description = "Seconds between checkpoints; Parquet files are committed on each (default: ${DEFAULT-VALUE}).", defaultValue = "10")
    long checkpointIntervalS;

    @Option(names = "--state-backend", paramLabel = "hashmap|rocksdb", description = "Where keyed state lives (default: ${DEFAULT-VALUE}; rocksdb for state larger than memory).", defaultValue = "hashmap")
    String stateBackend;

    @Option(names = "--parallelism", paramLabel = "N", description = "Parallel instances of each step (default: ${DEFAULT-VALUE}).", defaultValue = "1")
    int parallelism;

    @Option(names = "--out-of-orderness-ms", paramLabel = "MS", description = "How late an event may arrive within a partition (default: ${DEFAULT-VALUE}).", defaultValue = "2000")
    long outOfOrdernessMs;

    @Option(names = "--allowed-lateness-s", paramLabel = "S", description = "Events older than the watermark by this much, for a connection no longer held, are late; keep it above your sensors' clock offsets (default: ${DEFAULT-VALUE}).", defaultValue = "60")
    long allowedLatenessS;

    @Option(names = "--close-grace-s", paramLabel = "S", description = "Quiet time after FIN/RST before a connection is analysed (default: ${DEFAULT-VALUE}).", defaultValue = "5")
    long closeGraceS;

    @Option(names = "--idle-timeout-s", paramLabel = "S", description = "Quiet time after which an open connection is analysed as it stands (default: ${DEFAULT-VALUE}).", defaultValue = "120")
    long idleTimeoutS;

    @Option(names = "--segment-after-s", paramLabel = "S", description = "Connections open longer than this, or holding half the per-connection cap, are written piece by piece: each time one goes quiet with everything acknowledged, its finished exchanges and path are written and its packets dropped (default: ${DEFAULT-VALUE}).", defaultValue = "60")
    long segmentAfterS;

    @Option(names = "--segment-quiet-ms", paramLabel = "MS", description = "How long a long-lived connection must be quiet before it is cut (default: ${DEFAULT-VALUE}).", defaultValue = "1000")
    long segmentQuietMs;

    @Option(names = "--max-events-per-connection", paramLabel = "N", description = "Events kept per connection; beyond it they are counted and the connection flagged (default: ${DEFAULT-VALUE}).", defaultValue = "200000")
    int maxEvents;

    @Option(names = "--max-flows", paramLabel = "N", description = "Connections one parallel instance holds at most (closed ones' tombstones apart, at most twice as many); beyond, new ones are flow_table_full dead letters (default: ${DEFAULT-VALUE}).", defaultValue = "200000")
    int maxFlows;

    @Option(names = "--max-half-open-flows", paramLabel = "N", description = "Flows without answer or payload yet (SYNs) one parallel instance holds at most; beyond, the one quiet the longest is a half_open_connection dead letter (default: ${DEFAULT-VALUE}).", defaultValue = "100000")
    int maxHalfOpenFlows;

    @Option(names = "--max-buffered-events", paramLabel = "N", description = "Events one parallel instance buffers at most, over all its flows; beyond, they are counted over the cap and the connection flagged (default: ${DEFAULT-VALUE}).", defaultValue = "2000000")
    long maxBufferedEvents;

    @Option(names = "--max-sensor-ahead-s", paramLabel = "S", description = "How far a sensor's clock may run ahead: events stamped further ahead of this machine's clock are sensor_clock_ahead dead letters, and a sensor further ahead of the others does not move event time (default: ${DEFAULT-VALUE}).", defaultValue = "60")
    long maxSensorAheadS;

    @Option(names = "--client-prefix", paramLabel = "V4,V6", split = ",", description = "Client network prefix lengths that make a path (default: 24,48).")
    List<Integer> clientPrefix = List.of(24, 48);

    StreamConfig config() {
        String warehouseUri = uri(warehouse);
        String checkpoints = checkpointDir != null ? uri(checkpointDir) : warehouseUri.replaceAll("/*$", "") + "/_checkpoints";
        if (clientPrefix.size() != 2) {
            throw new IllegalArgumentException("--client-prefix takes two lengths: IPv4,IPv6 (e.g. 24,48)");
        }
        return new StreamConfig(bootstrapServers, kafkaConfig.properties(), topics, groupId, warehouseUri, bounded, Duration.ofMillis(outOfOrdernessMs), D.idleness(),
                D.alignmentMaxDrift(), Duration.ofSeconds(allowedLatenessS), Duration.ofSeconds(closeGraceS), Duration.ofSeconds(idleTimeoutS),
                new StreamConfig.Segments(Duration.ofSeconds(segmentAfterS), Duration.ofMillis(segmentQuietMs)), maxEvents, new StreamConfig.Caps(maxFlows, maxBufferedEvents, maxHalfOpenFlows), Duration.ofSeconds(maxSensorAheadS), clientPrefix.get(0), clientPrefix.get(1), Duration.ofSeconds(checkpointIntervalS), checkpoints,
                stateBackend, parallelism);
    }

    /** A URI as given (s3://, hdfs://, file:), a local path as an absolute file: URI. */
    private static String uri(String location) {
        return location.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*") ? location : java.nio.file.Path.of(location).toAbsolutePath().toUri().toString();
    }
}
