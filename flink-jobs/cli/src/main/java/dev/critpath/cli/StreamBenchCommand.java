package dev.critpath.cli;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.PacketEventJson;
import dev.critpath.core.event.TcpFlags;
import dev.critpath.streaming.CritpathJob;
import dev.critpath.streaming.Replay;
import dev.critpath.streaming.StreamConfig;
import dev.critpath.streaming.kafka.LocalKafka;
import dev.critpath.warehouse.WarehouseReader;
import dev.critpath.warehouse.WarehouseTable;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * `critpath bench-stream`: the streaming job on this machine, broker and job side by side:
 * sustained events per second from Kafka to committed Parquet, end-of-connection to Parquet
 * latency on a live stream, and keyed-state bytes per buffered packet and per idle connection,
 * read from the job's own checkpoints.
 */
@Command(name = "bench-stream", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Measures the streaming job with a local Kafka broker and MiniCluster on this machine, using copies",
            "of the bundled lab connections as a fleet's traffic: throughput from Kafka to committed Parquet,",
            "end-of-connection to Parquet latency on a paced live stream, and state bytes per buffered packet",
            "and per idle long-lived connection from the job's checkpoints. docs/performance.md records the figures."})
final class StreamBenchCommand implements Callable<Integer> {
    /** 2026-11-22 00:00 UTC: event time of the synthetic fleet. */
    private static final long EPOCH_US = 1_795_305_600_000_000L;

    @Spec
    CommandSpec spec;

    @Option(names = "--events", paramLabel = "N", description = "Packet events for the throughput run (default: ${DEFAULT-VALUE}).", defaultValue = "2000000")
    int events;

    @Option(names = "--interval-us", paramLabel = "US", description = "Event time between connection starts in the throughput run (default: ${DEFAULT-VALUE}).", defaultValue = "2000")
    long intervalUs;

    @Option(names = "--partitions", paramLabel = "N", description = "Partitions of the benchmark topics (default: ${DEFAULT-VALUE}).", defaultValue = "2")
    int partitions;

    @Option(names = "--parallelism", paramLabel = "N", description = "Parallelism of the job (default: ${DEFAULT-VALUE}).", defaultValue = "2")
    int parallelism;

    @Option(names = "--live-seconds", paramLabel = "S", description = "Length of the paced live stream for the latency measurement (default: ${DEFAULT-VALUE}).", defaultValue = "90")
    int liveSeconds;

    @Option(names = "--live-interval-ms", paramLabel = "MS", description = "Wall time between connection starts in the live stream (default: ${DEFAULT-VALUE}).", defaultValue = "20")
    long liveIntervalMs;

    @Option(names = "--state-connections", paramLabel = "N", description = "Connections held open for the state measurements (default: ${DEFAULT-VALUE}).", defaultValue = "3000")
    int stateConnections;

    @Option(names = "--fixtures", paramLabel = "DIR", description = "Lab runs to copy (default: testdata/lab of this checkout).")
    Path fixtures;

    private PrintWriter err;
    private final List<String> results = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        err = spec.commandLine().getErr();
        Path dir = fixtures != null ? fixtures : Checkout.root().resolve("testdata/lab");
        List<Path> runs;
        try (Stream<Path> s = Files.list(dir)) {
            runs = s.filter(d -> Files.isRegularFile(d.resolve("client.pcap")) && Files.isRegularFile(d.resolve("server.pcap"))).sorted().toList();
        }
        LabFleet fleet = new LabFleet(runs);
        Path scratch = Files.createTempDirectory("critpath-bench-stream");
        try {
            say("starting a Kafka broker (KRaft, single node) ...");
            try (LocalKafka kafka = LocalKafka.start(Checkout.root().resolve("flink-jobs/kafka-broker/target/lib"), scratch.resolve("kafka"))) {
                throughput(kafka, fleet, scratch);
                latency(kafka, fleet, scratch);
                bufferedPacketState(kafka, fleet, scratch);
                idleConnectionState(kafka, new LabFleet(List.of(dir.resolve("keepalive-3"))), scratch);
            }
        } finally {
            DemoCommand.deleteTree(scratch);
        }
        PrintWriter out = spec.commandLine().getOut();
        results.forEach(out::println);
        out.printf(Locale.ROOT, "(%d cores, broker and job on this machine; parallelism %d, %d partitions)%n",
                Runtime.getRuntime().availableProcessors(), parallelism, partitions);
        return 0;
    }

    /** Everything published first, then the job reads it to the end and commits: events over the job's wall time. */
    private void throughput(LocalKafka kafka, LabFleet fleet, Path scratch) throws Exception {
        int count = (int) Math.ceil(events / fleet.eventsPerConnection());
        List<PacketEvent> stream = fleet.stream(count, EPOCH_US, intervalUs);
        say(String.format(Locale.ROOT, "throughput: %,d events of %,d connections, publishing ...", stream.size(), count));
        kafka.createTopic("bench-throughput", partitions);
        kafka.createTopic("bench-empty", partitions);
        long t0 = System.nanoTime();
        Replay.publish(kafka.bootstrapServers(), "bench-throughput", () -> stream.stream().map(Replay::json).iterator(),
                n -> { if (n % 500_000 == 0) say(String.format(Locale.ROOT, "  %,d published", n)); });
        double publishS = (System.nanoTime() - t0) / 1e9;
        say("  the job on an empty topic (start-up and shut-down alone) ...");
        double emptyS = bounded(kafka, "bench-empty", scratch.resolve("wh-empty"));
        say("  the job on the published events ...");
        Path warehouse = scratch.resolve("wh-throughput");
        double jobS = bounded(kafka, "bench-throughput", warehouse);
        long profiles = WarehouseReader.read(warehouse, WarehouseTable.PROFILES).size();
        results.add(String.format(Locale.ROOT, "publish to Kafka:        %,12.0f events/s (%,d events in %.1f s)", stream.size() / publishS, stream.size(), publishS));
        results.add(jobS > emptyS
                ? String.format(Locale.ROOT, "Kafka -> Parquet:        %,12.0f events/s (job %.1f s, of which %.1f s start-up and shut-down; %,.0f events/s over the whole job)",
                        stream.size() / (jobS - emptyS), jobS, emptyS, stream.size() / jobS)
                : String.format(Locale.ROOT, "Kafka -> Parquet:        too few events to tell from start-up and shut-down (job %.1f s, empty topic %.1f s); raise --events",
                        jobS, emptyS));
        results.add(String.format(Locale.ROOT, "                         %,d of %,d connections profiled and committed", profiles, count));
        say("  the ceiling: plain Kafka consumers, one per partition, no Flink ...");
        double readS = readAll(kafka, "bench-throughput", stream.size(), false);
        double parseS = readAll(kafka, "bench-throughput", stream.size(), true);
        results.add(String.format(Locale.ROOT, "reading alone:           %,12.0f events/s; and parsing the JSON as the job does: %,.0f events/s (%d threads)",
                stream.size() / readS, stream.size() / parseS, partitions));
    }

    /**
     * Seconds for plain consumers, a thread per partition, to read the whole topic (parsing each
     * record if asked): what this machine allows any job before it does anything with the events.
     */
    private double readAll(LocalKafka kafka, String topic, int total, boolean parse) throws Exception {
        AtomicLong read = new AtomicLong();
        AtomicReference<Exception> failed = new AtomicReference<>();
        List<Thread> readers = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int partition = 0; partition < partitions; partition++) {
            TopicPartition tp = new TopicPartition(topic, partition);
            Thread reader = new Thread(() -> {
                Properties p = new Properties();
                p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
                PacketEventJson json = PacketEventJson.standard();
                try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                    c.assign(List.of(tp));
                    c.seekToBeginning(List.of(tp));
                    long end = c.endOffsets(List.of(tp)).get(tp);
                    while (c.position(tp) < end) {
                        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                            if (parse) {
                                json.parse(r.value());
                            }
                            read.incrementAndGet();
                        }
                    }
                } catch (Exception e) {
                    failed.set(e);
                }
            });
            reader.start();
            readers.add(reader);
        }
        for (Thread t : readers) {
            t.join();
        }
        if (failed.get() != null || read.get() != total) {
            throw new IllegalStateException("read " + read.get() + " of " + total + " records", failed.get());
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    private double bounded(LocalKafka kafka, String topic, Path warehouse) throws Exception {
        StreamConfig cfg = config(kafka, topic, warehouse).withBounded(true);
        long t0 = System.nanoTime();
        CritpathJob job = new CritpathJob(cfg);
        job.run(job.localEnvironment());
        return (System.nanoTime() - t0) / 1e9;
    }

    private StreamConfig config(LocalKafka kafka, String topic, Path warehouse) {
        return StreamConfig.defaults(kafka.bootstrapServers(), warehouse.toAbsolutePath().toString()).withTopic(topic, topic)
                .withParallelism(parallelism).withCheckpointing(Duration.ofSeconds(10), warehouse.resolve("_checkpoints").toUri().toString());
    }

    /**
     * A paced stream, event time = wall time: connections start every live-interval, each event is
     * published when its time comes. Latency: from a connection's last event published to its
     * profile in a committed Parquet file.
     */
    private void latency(LocalKafka kafka, LabFleet fleet, Path scratch) throws Exception {
        String topic = "bench-live";
        kafka.createTopic(topic, partitions);
        Path warehouse = scratch.resolve("wh-live");
        say(String.format(Locale.ROOT, "latency: a live stream for %d s, a connection every %d ms; default settings (close grace 5 s, checkpoints every 10 s) ...",
                liveSeconds, liveIntervalMs));
        JobClient job = start(config(kafka, topic, warehouse));
        long startUs = System.currentTimeMillis() * 1000 + 2_000_000;
        int count = (int) (liveSeconds * 1000 / liveIntervalMs);
        List<PacketEvent> stream = fleet.stream(count, startUs, liveIntervalMs * 1000);
        Map<String, Long> lastEventUs = new HashMap<>();
        for (PacketEvent e : stream) {
            lastEventUs.merge(e.origH(), e.tsUs(), Math::max);
        }
        Map<String, Long> seenUs = new HashMap<>();
        try (KafkaProducer<byte[], byte[]> producer = Replay.producer(kafka.bootstrapServers())) {
            long nextPoll = 0;
            for (PacketEvent e : stream) {
                long wait = e.tsUs() / 1000 - System.currentTimeMillis();
                if (wait > 0) {
                    producer.flush();
                    Thread.sleep(wait);
                }
                producer.send(new ProducerRecord<>(topic, null, Replay.json(e)));
                if (System.currentTimeMillis() >= nextPoll) {
                    poll(warehouse, seenUs);
                    nextPoll = System.currentTimeMillis() + 500;
                }
            }
        }
        job.cancel().get();
        // connections that ended in the last 30 s had no later traffic to move event time past them
        long measuredUntil = stream.get(stream.size() - 1).tsUs() - 30_000_000;
        List<Double> latencies = new ArrayList<>();
        for (Map.Entry<String, Long> c : lastEventUs.entrySet()) {
            Long seen = seenUs.get(c.getKey());
            if (c.getValue() <= measuredUntil && seen != null) {
                latencies.add((seen - c.getValue()) / 1e6);
            }
        }
        long due = lastEventUs.values().stream().filter(t -> t <= measuredUntil).count();
        Collections.sort(latencies);
        results.add(String.format(Locale.ROOT, "end of connection -> Parquet: median %.1f s, 90th percentile %.1f s, max %.1f s (%d of %d connections seen)",
                pct(latencies, 0.5), pct(latencies, 0.9), pct(latencies, 1.0), latencies.size(), due));
    }

    private static void poll(Path warehouse, Map<String, Long> seenUs) throws IOException {
        long now = System.currentTimeMillis() * 1000;
        for (GenericRecord r : WarehouseReader.read(warehouse, WarehouseTable.PROFILES)) {
            seenUs.putIfAbsent(r.get("client_addr").toString(), now);
        }
    }

    private static double pct(List<Double> sorted, double p) {
        return sorted.isEmpty() ? Double.NaN : sorted.get((int) Math.min(sorted.size() - 1, Math.floor(p * sorted.size())));
    }

    /** Connections with their first half published and no FIN yet: every event stays in keyed state. */
    private void bufferedPacketState(LocalKafka kafka, LabFleet fleet, Path scratch) throws Exception {
        String topic = "bench-state-packets";
        List<PacketEvent> open = new ArrayList<>();
        for (int j = 0; j < stateConnections; j++) {
            List<PacketEvent> whole = fleet.instance(j, EPOCH_US + j * 1000L);
            int half = whole.size() / 2;
            for (PacketEvent e : whole.subList(0, half)) {
                if (e.hasFlag(TcpFlags.FIN) || e.hasFlag(TcpFlags.RST)) {
                    break;
                }
                open.add(e);
            }
        }
        open.sort(PacketEvent.CAPTURE_ORDER);
        long bytes = stateGrowth(kafka, topic, scratch, open, config(kafka, topic, scratch.resolve("wh-" + topic)));
        results.add(String.format(Locale.ROOT, "state per buffered packet: %.0f bytes (%,d bytes of checkpointed keyed state for %,d events of %,d open connections)",
                (double) bytes / open.size(), bytes, open.size(), stateConnections));
    }

    /**
     * Keep-alive connections after their first exchange, then quiet: once cut, each holds only its
     * restarted handshake and running profile. One later event moves event time past the quiet period.
     */
    private void idleConnectionState(LocalKafka kafka, LabFleet keepAlive, Path scratch) throws Exception {
        String topic = "bench-state-idle";
        List<PacketEvent> idle = new ArrayList<>();
        for (int j = 0; j < stateConnections; j++) {
            List<PacketEvent> whole = keepAlive.instance(j, EPOCH_US + j * 1000L);
            long secondRequest = whole.stream().filter(e -> e.isOrig() && e.len() > 0).map(PacketEvent::tsUs).skip(1).findFirst().orElseThrow();
            idle.addAll(whole.stream().filter(e -> e.tsUs() < secondRequest).toList());
        }
        long last = idle.stream().mapToLong(PacketEvent::tsUs).max().orElseThrow();
        idle.add(keepAlive.instance(stateConnections, last + 30_000_000).get(0)); // moves event time on
        idle.sort(PacketEvent.CAPTURE_ORDER);
        StreamConfig cfg = config(kafka, topic, scratch.resolve("wh-" + topic)).withSegments(new StreamConfig.Segments(Duration.ZERO, Duration.ofSeconds(1)));
        long bytes = stateGrowth(kafka, topic, scratch, idle, cfg);
        results.add(String.format(Locale.ROOT, "state per idle long-lived connection: %.0f bytes (restarted handshake, running profile, timers: %,d bytes for %,d connections)",
                (double) bytes / stateConnections, bytes, stateConnections));
    }

    /** Checkpointed state after the events minus before them, with checkpoints every second. */
    private long stateGrowth(LocalKafka kafka, String topic, Path scratch, List<PacketEvent> events, StreamConfig base) throws Exception {
        kafka.createTopic(topic, partitions);
        Path checkpoints = scratch.resolve("chk-" + topic);
        say(String.format(Locale.ROOT, "state: %,d events into a running job, measuring its checkpoints ...", events.size()));
        JobClient job = start(base.withCheckpointing(Duration.ofSeconds(1), checkpoints.toUri().toString()));
        try {
            long empty = settledCheckpointBytes(checkpoints);
            Replay.publish(kafka.bootstrapServers(), topic, Replay.json(events), n -> { });
            long loaded = settledCheckpointBytes(checkpoints);
            return loaded - empty;
        } finally {
            job.cancel().get();
        }
    }

    private static JobClient start(StreamConfig cfg) throws Exception {
        CritpathJob job = new CritpathJob(cfg);
        StreamExecutionEnvironment env = job.localEnvironment();
        job.build(env);
        return env.executeAsync("critpath bench-stream");
    }

    /** The size of the newest completed checkpoint, once three in a row have had the same size. */
    private static long settledCheckpointBytes(Path root) throws Exception {
        Path counted = null;
        long size = -1;
        int same = 0;
        while (same < 3) {
            Thread.sleep(500);
            Path newest = newestCheckpoint(root);
            if (newest == null || newest.equals(counted)) {
                continue;
            }
            long s = treeBytes(newest);
            same = s == size ? same + 1 : 0;
            size = s;
            counted = newest;
        }
        return size;
    }

    private static Path newestCheckpoint(Path root) throws IOException {
        if (!Files.isDirectory(root)) {
            return null;
        }
        try (Stream<Path> s = Files.walk(root, 2)) {
            return s.filter(p -> p.getFileName().toString().startsWith("chk-") && Files.exists(p.resolve("_metadata")))
                    .max((a, b) -> Long.compare(number(a), number(b))).orElse(null);
        }
    }

    private static long number(Path chk) {
        return Long.parseLong(chk.getFileName().toString().substring(4));
    }

    private static long treeBytes(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    private void say(String line) {
        err.println(line);
        err.flush();
    }
}
