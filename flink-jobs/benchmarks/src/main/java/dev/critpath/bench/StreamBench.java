package dev.critpath.bench;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.PacketEventReader;
import dev.critpath.core.event.TcpFlags;
import dev.critpath.kafka.LocalKafka;
import dev.critpath.kafka.Replay;
import dev.critpath.streaming.CritpathJob;
import dev.critpath.streaming.StreamConfig;
import dev.critpath.warehouse.WarehouseReader;
import dev.critpath.warehouse.WarehouseTable;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
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

/**
 * What `critpath bench-stream` measures: the streaming job on this machine, broker and job side
 * by side: sustained events per second from Kafka to committed Parquet, end-of-connection to
 * Parquet latency on a live stream, and keyed-state bytes per buffered packet and per idle
 * connection, read from the job's own checkpoints.
 */
public final class StreamBench {
    /** 2026-11-22 00:00 UTC: event time of the synthetic fleet. */
    private static final long EPOCH_US = 1_795_305_600_000_000L;
    /** Passes at the end whose median is the sustained rate (this machine's speed varies from run to run). */
    public static final int MEASURED = 5;

    /** What can be measured; the names are bench-stream's --measure values. */
    public enum Measurement { throughput, latency, state }

    /**
     * What to measure and how, as bench-stream's options say.
     *
     * @param measure the measurements to run
     * @param events packet events for the throughput run
     * @param passes passes of the job over the published events, at least 2: the first is the JIT's
     * @param checkpointIntervalMs checkpoint interval of the throughput and latency runs
     * @param intervalUs event time between connection starts in the throughput run
     * @param partitions partitions of the benchmark topics
     * @param parallelism parallelism of the job
     * @param liveSeconds length of the paced live stream for the latency measurement
     * @param liveIntervalMs wall time between connection starts in the live stream
     * @param stateConnections connections held open for the state measurements
     * @param encoding how the events are written to Kafka
     */
    public record Settings(Set<Measurement> measure, int events, int passes, long checkpointIntervalMs, long intervalUs, int partitions,
            int parallelism, int liveSeconds, long liveIntervalMs, int stateConnections, Replay.Encoding encoding) {
        public Settings {
            measure = Set.copyOf(measure);
        }
    }

    private final Settings settings;
    private final PrintWriter err;
    private final List<String> results = new ArrayList<>();

    private StreamBench(Settings settings, PrintWriter err) {
        this.settings = settings;
        this.err = err;
    }

    /**
     * Starts a broker, runs the measurements, prints progress to {@code err} and the results to {@code out}.
     *
     * @param fixtures the lab runs whose connections make the fleet (keepalive-3 among them for the idle-connection state)
     * @param kafkaBrokerLib the broker's jars (flink-jobs/kafka-broker/target/lib)
     * @param scratch where the broker, the warehouses and the checkpoints go; the caller removes it
     */
    public static void run(Settings settings, Path fixtures, Path kafkaBrokerLib, Path scratch, PrintWriter out, PrintWriter err) throws Exception {
        StreamBench bench = new StreamBench(settings, err);
        bench.measure(fixtures, kafkaBrokerLib, scratch);
        bench.results.forEach(out::println);
        out.printf(Locale.ROOT, "(%d cores, broker and job on this machine; parallelism %d, %d partitions)%n",
                cores(), settings.parallelism(), settings.partitions());
    }

    private void measure(Path fixtures, Path kafkaBrokerLib, Path scratch) throws Exception {
        LabFleet fleet = new LabFleet(Replay.labRunsUnder(fixtures));
        say("starting a Kafka broker (KRaft, single node) ...");
        try (LocalKafka kafka = LocalKafka.start(kafkaBrokerLib, scratch.resolve("kafka"))) {
            if (settings.measure().contains(Measurement.throughput)) {
                throughput(kafka, fleet, scratch);
            }
            if (settings.measure().contains(Measurement.latency)) {
                latency(kafka, fleet, scratch);
            }
            if (settings.measure().contains(Measurement.state)) {
                bufferedPacketState(kafka, fleet, scratch);
                idleConnectionState(kafka, new LabFleet(List.of(fixtures.resolve("keepalive-3"))), scratch);
            }
        }
    }

    /** Everything published first, then the job reads it to the end and commits: events over the job's wall time. */
    private void throughput(LocalKafka kafka, LabFleet fleet, Path scratch) throws Exception {
        int count = (int) Math.ceil(settings.events() / fleet.eventsPerConnection());
        List<PacketEvent> stream = fleet.stream(count, EPOCH_US, settings.intervalUs());
        say(String.format(Locale.ROOT, "throughput: %,d events of %,d connections, publishing ...", stream.size(), count));
        kafka.createTopic("bench-throughput", settings.partitions());
        kafka.createTopic("bench-empty", settings.partitions());
        long t0 = System.nanoTime();
        AtomicLong recordBytes = new AtomicLong();
        Replay.publish(kafka.bootstrapServers(), "bench-throughput", () -> stream.stream().map(e -> {
                    byte[] record = settings.encoding().encode(e);
                    recordBytes.addAndGet(record.length);
                    return record;
                }).iterator(),
                n -> { if (n % 500_000 == 0) say(String.format(Locale.ROOT, "  %,d published", n)); });
        double publishS = (System.nanoTime() - t0) / 1e9;
        int n = stream.size();
        // Flink's, Kafka's, Parquet's and the engine's code is compiled by the JIT over the first
        // millions of events (a third of a first pass' CPU): a long-running job's rate is that
        // of the last passes.
        List<Usage> wholes = new ArrayList<>();
        List<Usage> empties = new ArrayList<>();
        Path warehouse = null;
        for (int pass = 1; pass <= settings.passes(); pass++) {
            say(String.format(Locale.ROOT, "  the job over the published events, pass %d of %d ...", pass, settings.passes()));
            warehouse = scratch.resolve("wh-pass-" + pass);
            wholes.add(bounded(kafka, "bench-throughput", "bench-pass-" + pass, warehouse));
            // start-up and shut-down alone, as warm as this pass: a job on an empty topic
            empties.add(bounded(kafka, "bench-empty", "bench-empty-" + pass, scratch.resolve("wh-empty-" + pass)));
        }
        // on a busy machine a short pass can take less than a start-up alone: then a difference means nothing
        boolean separable = true;
        for (int i = 0; i < settings.passes(); i++) {
            separable &= empties.get(i).wallS < wholes.get(i).wallS / 2;
        }
        List<Usage> runs = new ArrayList<>();
        for (int i = 0; i < settings.passes(); i++) {
            Usage run = separable ? wholes.get(i).less(empties.get(i)) : wholes.get(i);
            say(String.format(Locale.ROOT, "    pass %d: %,.0f events/s, %.2f µs of the job's CPU per event", i + 1, n / run.wallS, run.jobCpuS * 1e6 / n));
            runs.add(run);
        }
        int last = Math.min(MEASURED, settings.passes() - 1); // never the first pass, which compiles
        List<Usage> measured = new ArrayList<>(runs.subList(runs.size() - last, runs.size()));
        measured.sort(Comparator.comparingDouble(Usage::wallS));
        Usage median = measured.get(last / 2);
        long profiles = WarehouseReader.read(warehouse, WarehouseTable.PROFILES).size();
        results.add(String.format(Locale.ROOT, "publish to Kafka:        %,12.0f events/s (%,d events in %.1f s, %s, %.1f bytes per event)",
                n / publishS, n, publishS, settings.encoding(), (double) recordBytes.get() / n));
        results.add(String.format(Locale.ROOT, "Kafka -> Parquet:        %,12.0f events/s sustained: the median of the last %d passes (%,.0f to %,.0f), each %s",
                n / median.wallS, last, n / measured.get(last - 1).wallS, n / measured.get(0).wallS,
                separable ? "less the start-up" : "with its start-up"));
        results.add(String.format(Locale.ROOT, "                         and shut-down of a job on an empty topic%s; all passes: %s events/s, the first in a fresh JVM",
                separable ? "" : " (as long as half a pass or more: too few --events to tell them apart)",
                String.join(", ", runs.stream().map(r -> String.format(Locale.ROOT, "%,.0f", n / r.wallS)).toList())));
        results.add(String.format(Locale.ROOT, "                         %,d of %,d connections profiled and committed in the last pass", profiles, count));
        double jobUs = median.jobCpuS * 1e6 / n;
        double brokerUs = median.brokerCpuS * 1e6 / n;
        results.add(String.format(Locale.ROOT, "CPU per event:           %.2f µs in the job, %.2f µs in the broker (that pass): %,.0f events/s if %d cores did nothing else",
                jobUs, brokerUs, cores() * 1e6 / (jobUs + brokerUs), cores()));
        say("  the ceiling: plain Kafka consumers, one per partition, no Flink ...");
        Usage read = readAll(kafka, "bench-throughput", n, false);
        Usage parse = readAll(kafka, "bench-throughput", n, true);
        results.add(String.format(Locale.ROOT, "reading alone:           %,12.0f events/s, %.2f µs CPU per event in the reader, %.2f µs in the broker (%d threads)",
                n / read.wallS, read.jobCpuS * 1e6 / n, read.brokerCpuS * 1e6 / n, settings.partitions()));
        results.add(String.format(Locale.ROOT, "and parsing the events: %,12.0f events/s, %.2f µs CPU per event in the reader, %.2f µs in the broker",
                n / parse.wallS, parse.jobCpuS * 1e6 / n, parse.brokerCpuS * 1e6 / n));
    }

    /**
     * Wall time and CPU time of a run: CPU time is what the run cost, whatever else this machine's
     * host was doing meanwhile (wall times here vary by half from run to run).
     *
     * @param jobCpuS CPU seconds of this JVM (the job, or the plain readers' threads)
     */
    private record Usage(double wallS, double jobCpuS, double brokerCpuS) {
        /** This run without another's share, e.g. without start-up and shut-down. */
        Usage less(Usage fixed) {
            return new Usage(wallS - fixed.wallS, jobCpuS - fixed.jobCpuS, brokerCpuS - fixed.brokerCpuS);
        }
    }

    private static int cores() {
        return Runtime.getRuntime().availableProcessors();
    }

    private static double cpuSeconds(ProcessHandle p) {
        return p.info().totalCpuDuration().orElseThrow(() -> new IllegalStateException("no CPU time for process " + p.pid())).toNanos() / 1e9;
    }

    /**
     * Plain consumers, a thread per partition, reading the whole topic (parsing each record if
     * asked): what this machine allows any job before it does anything with the events.
     */
    private Usage readAll(LocalKafka kafka, String topic, int total, boolean parse) throws Exception {
        AtomicLong read = new AtomicLong();
        AtomicLong readerCpuNs = new AtomicLong();
        double broker0 = cpuSeconds(kafka.process());
        AtomicReference<Exception> failed = new AtomicReference<>();
        List<Thread> readers = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int partition = 0; partition < settings.partitions(); partition++) {
            TopicPartition tp = new TopicPartition(topic, partition);
            Thread reader = new Thread(() -> {
                Properties p = new Properties();
                p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
                PacketEventReader events = new PacketEventReader();
                try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                    c.assign(List.of(tp));
                    c.seekToBeginning(List.of(tp));
                    long end = c.endOffsets(List.of(tp)).get(tp);
                    while (c.position(tp) < end) {
                        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                            if (parse) {
                                events.parse(r.value());
                            }
                            read.incrementAndGet();
                        }
                    }
                } catch (Exception e) {
                    failed.set(e);
                }
                readerCpuNs.addAndGet(ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime());
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
        return new Usage((System.nanoTime() - t0) / 1e9, readerCpuNs.get() / 1e9, cpuSeconds(kafka.process()) - broker0);
    }

    private Usage bounded(LocalKafka kafka, String topic, String group, Path warehouse) throws Exception {
        StreamConfig cfg = config(kafka, topic, warehouse).withTopic(topic, group).withBounded(true);
        double job0 = cpuSeconds(ProcessHandle.current());
        double broker0 = cpuSeconds(kafka.process());
        long t0 = System.nanoTime();
        CritpathJob job = CritpathJob.kafkaToParquet(cfg);
        job.run(job.localEnvironment());
        return new Usage((System.nanoTime() - t0) / 1e9, cpuSeconds(ProcessHandle.current()) - job0, cpuSeconds(kafka.process()) - broker0);
    }

    private StreamConfig config(LocalKafka kafka, String topic, Path warehouse) {
        return StreamConfig.defaults(kafka.bootstrapServers(), warehouse.toAbsolutePath().toString()).withTopic(topic, topic)
                .withParallelism(settings.parallelism()).withCheckpointing(Duration.ofMillis(settings.checkpointIntervalMs()), warehouse.resolve("_checkpoints").toUri().toString());
    }

    /**
     * A paced stream, event time = wall time: connections start every live-interval, each event is
     * published when its time comes. Latency: from a connection's last event published to its
     * profile in a committed Parquet file.
     */
    private void latency(LocalKafka kafka, LabFleet fleet, Path scratch) throws Exception {
        String topic = "bench-live";
        kafka.createTopic(topic, settings.partitions());
        Path warehouse = scratch.resolve("wh-live");
        say(String.format(Locale.ROOT, "latency: a live stream for %d s, a connection every %d ms; default settings (close grace 5 s, checkpoints every 10 s) ...",
                settings.liveSeconds(), settings.liveIntervalMs()));
        JobClient job = start(config(kafka, topic, warehouse));
        long startUs = System.currentTimeMillis() * 1000 + 2_000_000;
        int count = (int) (settings.liveSeconds() * 1000 / settings.liveIntervalMs());
        List<PacketEvent> stream = fleet.stream(count, startUs, settings.liveIntervalMs() * 1000);
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
                producer.send(new ProducerRecord<>(topic, null, settings.encoding().encode(e)));
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
        for (int j = 0; j < settings.stateConnections(); j++) {
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
                (double) bytes / open.size(), bytes, open.size(), settings.stateConnections()));
    }

    /**
     * Keep-alive connections after their first exchange, then quiet: once cut, each holds only its
     * restarted handshake and running profile. One later event moves event time past the quiet period.
     */
    private void idleConnectionState(LocalKafka kafka, LabFleet keepAlive, Path scratch) throws Exception {
        String topic = "bench-state-idle";
        List<PacketEvent> idle = new ArrayList<>();
        for (int j = 0; j < settings.stateConnections(); j++) {
            List<PacketEvent> whole = keepAlive.instance(j, EPOCH_US + j * 1000L);
            long secondRequest = whole.stream().filter(e -> e.isOrig() && e.len() > 0).map(PacketEvent::tsUs).skip(1).findFirst().orElseThrow();
            idle.addAll(whole.stream().filter(e -> e.tsUs() < secondRequest).toList());
        }
        long last = idle.stream().mapToLong(PacketEvent::tsUs).max().orElseThrow();
        idle.add(keepAlive.instance(settings.stateConnections(), last + 30_000_000).get(0)); // moves event time on
        idle.sort(PacketEvent.CAPTURE_ORDER);
        StreamConfig cfg = config(kafka, topic, scratch.resolve("wh-" + topic)).withSegments(new StreamConfig.Segments(Duration.ZERO, Duration.ofSeconds(1)));
        long bytes = stateGrowth(kafka, topic, scratch, idle, cfg);
        results.add(String.format(Locale.ROOT, "state per idle long-lived connection: %.0f bytes (restarted handshake, running profile, timers: %,d bytes for %,d connections)",
                (double) bytes / settings.stateConnections(), bytes, settings.stateConnections()));
    }

    /** Checkpointed state after the events minus before them, with checkpoints every second. */
    private long stateGrowth(LocalKafka kafka, String topic, Path scratch, List<PacketEvent> events, StreamConfig base) throws Exception {
        kafka.createTopic(topic, settings.partitions());
        Path checkpoints = scratch.resolve("chk-" + topic);
        say(String.format(Locale.ROOT, "state: %,d events into a running job, measuring its checkpoints ...", events.size()));
        JobClient job = start(base.withCheckpointing(Duration.ofSeconds(1), checkpoints.toUri().toString()));
        try {
            long empty = settledCheckpointBytes(checkpoints);
            Replay.publish(kafka.bootstrapServers(), topic, settings.encoding().encode(events), n -> { });
            long loaded = settledCheckpointBytes(checkpoints);
            return loaded - empty;
        } finally {
            job.cancel().get();
        }
    }

    private static JobClient start(StreamConfig cfg) throws Exception {
        CritpathJob job = CritpathJob.kafkaToParquet(cfg);
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
