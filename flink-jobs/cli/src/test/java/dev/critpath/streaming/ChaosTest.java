package dev.critpath.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.testing.HandTrace;
import dev.critpath.core.testing.PcapBuilder;
import dev.critpath.core.testing.Repo;
import dev.critpath.kafka.LocalKafka;
import dev.critpath.kafka.Replay;
import dev.critpath.warehouse.WarehouseReader;
import dev.critpath.warehouse.WarehouseTable;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a fleet can send, all at once, live-paced into `critpath stream` running unbounded in a JVM
 * of its own with a small heap: poison records, a connection whose MSS of 1 byte would split its
 * megabyte segments into millions of pieces, a pcap whose lengths cannot be true, a sensor whose
 * clock runs ten minutes fast and one event stamped ten minutes ahead, a SYN flood several times
 * the half-open table, and a SIGKILL of the process mid-stream followed by a restart with the
 * same arguments. The job is still running at the end, every good connection is in the warehouse
 * exactly once and equal to the core engine's analysis of its packets, and every bad input is one
 * dead letter with its reason.
 */
class ChaosTest {
    /** Before the budget, the amplified connection alone needed gigabytes. */
    private static final String HEAP = "-Xmx512m";
    private static final long SECOND_WAVE_US = 40_000_000;
    private static final int FLOOD = 3000;
    private static final int HALF_OPEN_CAP = 300;
    private static final int JUNK = 30;
    private static final List<String> PARSER_ERRORS = List.of("malformed_json", "missing_field", "wrong_type", "out_of_range", "bad_format");

    @TempDir
    Path tmp;

    @Test
    void whateverTheFleetSendsTheJobRunsAndEveryGoodConnectionComesOutOnce() throws Exception {
        try (LocalKafka kafka = LocalKafka.start(Repo.root().resolve("flink-jobs/kafka-broker/target/lib"), tmp.resolve("kafka"))) {
            String topic = "chaos";
            kafka.createTopic(topic, 2);
            Path warehouse = tmp.resolve("wh");
            List<String> args = List.of("stream", "--bootstrap-servers", kafka.bootstrapServers(), "--topic", topic,
                    "--warehouse", warehouse.toString(), "--checkpoint-interval-s", "1", "--parallelism", "2", "--idle-timeout-s", "10",
                    "--max-half-open-flows", String.valueOf(HALF_OPEN_CAP));

            Path firstLog = tmp.resolve("first.log");
            Process job = StreamProcess.start(args, firstLog, HEAP);
            // live traffic starts once the job runs (its first checkpoint is written), so the kill comes mid-stream
            long deadline = System.nanoTime() + Duration.ofSeconds(240).toNanos();
            while (Checkpoints.latest(warehouse.resolve("_checkpoints").toString()).isEmpty()) { // the job runs
                assertTrue(job.isAlive() && System.nanoTime() < deadline, "no first checkpoint: " + StreamProcess.tail(firstLog));
                Thread.sleep(200);
            }
            long startUs = System.currentTimeMillis() * 1000 + 2_000_000;
            List<PacketEvent> good = secondWaveLater(LabReplay.live(LabReplay.events(LabReplay.scenarios("dl-20k", "fast-retransmit",
                    "keepalive-3", "clock-offset", "tail-timeout", "think-100ms", "backoff", "zero-window")), startUs), 4);
            long endUs = good.get(good.size() - 1).tsUs();
            List<LabReplay.Timed> sends = new ArrayList<>();
            good.forEach(e -> sends.add(LabReplay.Timed.of(e.tsUs(), e)));
            List<PacketEvent> fast = LabReplay.fastClockSensor(good);
            fast.forEach(e -> sends.add(LabReplay.Timed.of(e.tsUs() - LabReplay.TEN_MINUTES_US, e)));
            PacketEvent first = good.get(0);
            long aheadAtUs = startUs + 4_000_000;
            sends.add(LabReplay.Timed.of(aheadAtUs, LabReplay.syn(first.sensor(), "192.0.2.200", aheadAtUs + LabReplay.TEN_MINUTES_US)));
            amplified(startUs + 3_000_000).forEach(e -> sends.add(LabReplay.Timed.of(e.tsUs(), e)));
            Random rnd = new Random(5);
            int poisoned = poison(sends, good, startUs, endUs, rnd);
            for (int i = 0; i < FLOOD; i++) { // spread over the whole run
                long t = startUs + (endUs - startUs) * i / FLOOD;
                sends.add(LabReplay.Timed.of(t, LabReplay.syn("lab-server", "198.51." + (i / 250) + "." + (1 + i % 250), t)));
            }
            for (long t = endUs + 100_000, i = 0; t < endUs + 20_000_000; t += 100_000, i++) { // live traffic goes on
                sends.add(LabReplay.Timed.of(t, LabReplay.syn(first.sensor(), "203.0.113." + (1 + i % 250), t)));
            }
            CompletableFuture<Void> traffic = CompletableFuture.runAsync(() -> {
                try {
                    LabReplay.publishLive(kafka.bootstrapServers(), topic, sends);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });

            try {
                LabReplay.awaitProfiles(warehouse, 1, Duration.ofSeconds(240), () -> "the first run: " + StreamProcess.tail(firstLog));
            } finally {
                job.destroyForcibly().waitFor(); // SIGKILL mid-stream
            }
            int total = LabReplay.expectedRows(good).get(WarehouseTable.PROFILES).size();
            int committedBeforeKill = WarehouseReader.read(warehouse, WarehouseTable.PROFILES).size();
            assertTrue(committedBeforeKill < total, "the kill must come mid-stream: " + committedBeforeKill + " of " + total + " committed");

            Path secondLog = tmp.resolve("second.log");
            String checkpoints = warehouse.resolve("_checkpoints").toString();
            var beforeRestart = Checkpoints.latest(checkpoints);
            long restartNs = System.nanoTime();
            Process restarted = StreamProcess.start(args, secondLog, HEAP);
            long peakMib;
            long recoveryS;
            try {
                // recovered: the resumed job completed a checkpoint of its own
                while (Checkpoints.latest(checkpoints).equals(beforeRestart)) {
                    assertTrue(restarted.isAlive() && System.nanoTime() - restartNs < Duration.ofSeconds(240).toNanos(), StreamProcess.tail(secondLog));
                    Thread.sleep(100);
                }
                recoveryS = (System.nanoTime() - restartNs) / 1_000_000_000;
                Path amplifiedPcap = impossiblePcap();
                Process replay = StreamProcess.start(List.of("replay", "--bootstrap-servers", kafka.bootstrapServers(), "--topic", topic,
                        "--pcap", amplifiedPcap.toString()), tmp.resolve("replay.log"));
                assertEquals(0, replay.waitFor(), StreamProcess.tail(tmp.resolve("replay.log")));
                assertTrue(Files.readString(tmp.resolve("replay.log")).contains("1 with an impossible time or length"), StreamProcess.tail(tmp.resolve("replay.log")));
                traffic.get();
                LabReplay.awaitProfiles(warehouse, total, Duration.ofSeconds(240), () -> "the second run: " + StreamProcess.tail(secondLog));
                Thread.sleep(3000); // a few more checkpoints: anything written twice would show now
                assertTrue(restarted.isAlive(), "the job still runs: " + StreamProcess.tail(secondLog));
                peakMib = StreamProcess.peakRssMib(restarted);
            } finally {
                restarted.destroyForcibly().waitFor();
            }
            System.err.printf("chaos: restarted job checkpointing again %d s after its start; peak resident memory %d MiB with %s; "
                    + "newest checkpoint %,d bytes%n", recoveryS, peakMib, HEAP, StreamProcess.newestCheckpointBytes(warehouse.resolve("_checkpoints")));
            assertTrue(Files.readString(secondLog).contains("resuming from checkpoint"), StreamProcess.tail(secondLog));

            LabReplay.assertTablesEqual(LabReplay.expectedRows(good), LabReplay.warehouseRows(warehouse)); // fails on any row seen twice
            Map<String, Integer> reasons = new TreeMap<>();
            int flooded = 0;
            for (GenericRecord d : WarehouseReader.read(warehouse, WarehouseTable.DEAD_LETTERS)) {
                String reason = d.get("reason").toString();
                reasons.merge(reason, 1, Integer::sum);
                flooded += reason.equals("half_open_connection") && d.get("detail").toString().contains(" 198.51.") ? 1 : 0;
            }
            // the parser's own verdicts (a truncated line may end inside a number it checks first)
            assertEquals(poisoned, PARSER_ERRORS.stream().mapToInt(r -> reasons.getOrDefault(r, 0)).sum(), reasons.toString());
            assertEquals(fast.size() + 1, reasons.getOrDefault("sensor_clock_ahead", 0), reasons.toString());
            assertEquals(1, reasons.getOrDefault("analysis_budget_exceeded", 0), reasons.toString());
            assertEquals(FLOOD, flooded, "every flood SYN one dead letter: " + reasons);
            assertEquals(0, reasons.getOrDefault("late_event", 0), reasons.toString());
            assertEquals(0, reasons.getOrDefault("analysis_failed", 0), reasons.toString());
        }
    }

    /** The connections after the first {@code firstWave} moved later, well after the first wave is committed: the kill comes between. */
    private static List<PacketEvent> secondWaveLater(List<PacketEvent> events, int firstWave) {
        Set<String> first = new HashSet<>();
        for (PacketEvent e : events) {
            if (first.size() < firstWave) {
                first.add(e.communityId());
            }
        }
        return events.stream().map(e -> first.contains(e.communityId()) ? e : e.withTsUs(e.tsUs() + SECOND_WAVE_US)).toList();
    }

    /** A connection whose MSS option of 1 byte makes each of its 20 megabyte segments a million pieces. */
    private static List<PacketEvent> amplified(long atUs) {
        HandTrace h = new HandTrace(5, 5).mss(1);
        h.c(0).syn();
        h.s(5).syn();
        h.c(10).ack(1);
        for (int i = 0; i < 20; i++) {
            h.c(11 + i).data(1 << 20);
        }
        h.c(40).fin();
        h.s(45).fin();
        h.c(50);
        List<PacketEvent> events = h.clientCapture();
        long shift = atUs - events.get(0).tsUs();
        return events.stream().map(e -> e.withTsUs(e.tsUs() + shift)).toList();
    }

    /** Junk, truncated JSON and the byte sequences that once failed the source, spread over the run. */
    private static int poison(List<LabReplay.Timed> sends, List<PacketEvent> good, long fromUs, long toUs, Random rnd) {
        List<byte[]> bad = LabReplay.garbage(Replay.json(good.get(0)), JUNK / 2, JUNK / 2, rnd);
        for (int i = 0; i < bad.size(); i++) {
            sends.add(new LabReplay.Timed(fromUs + (toUs - fromUs) * i / bad.size(), bad.get(i)));
        }
        return bad.size();
    }

    /** A pcap whose one packet claims 2 GB of payload (IP total length 0, original length 2^31 - 1). */
    private Path impossiblePcap() throws Exception {
        byte[] ip = PcapBuilder.ipv4Tcp("10.9.9.1", 40000, "10.9.9.2", 80, 1, 1, 0x18, 1000, 1448, 1, 64, new byte[0]);
        ip[2] = 0;
        ip[3] = 0;
        byte[] frame = PcapBuilder.ethernet(ip);
        Path f = tmp.resolve("impossible.pcap");
        Files.write(f, new PcapBuilder.Pcap(1, ByteOrder.LITTLE_ENDIAN, false, 65535)
                .add(System.currentTimeMillis() * 1000, frame, frame.length, Integer.MAX_VALUE).bytes());
        return f;
    }
}
