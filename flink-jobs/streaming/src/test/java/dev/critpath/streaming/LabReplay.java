package dev.critpath.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.event.CommunityId;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.event.TcpFlags;
import dev.critpath.core.screen.ConnectionResult;
import dev.critpath.core.screen.Screen;
import dev.critpath.core.testing.Repo;
import dev.critpath.core.trace.ConnectionAssembler;
import dev.critpath.core.trace.ConnectionTrace;
import dev.critpath.kafka.Replay;
import dev.critpath.warehouse.AvroRows;
import dev.critpath.warehouse.WarehouseReader;
import dev.critpath.warehouse.WarehouseTable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.producer.ProducerRecord;

/** The trace lab's two-point fixtures as sensor event streams, and what the core engine says of them directly. */
final class LabReplay {
    static final long TEN_MINUTES_US = 600_000_000L;
    /** Gaps between the lab's recordings shrink to this in a live replay: live-paced, but short. */
    static final long LIVE_GAP_US = 1_500_000;

    private LabReplay() {
    }

    static List<Path> scenarios(String... names) throws IOException {
        if (names.length > 0) {
            return Stream.of(names).map(n -> Repo.testdata("lab/" + n)).toList();
        }
        try (Stream<Path> s = Files.list(Repo.testdata("lab"))) {
            return s.filter(d -> Files.exists(d.resolve("client.pcap"))).sorted().toList();
        }
    }

    static List<PacketEvent> events(List<Path> scenarios) throws Exception {
        return Replay.labRuns(scenarios);
    }

    /** The events with each moved up to {@code maxUs} later in the stream (seeded): arrival out of order. */
    static List<PacketEvent> disordered(List<PacketEvent> events, long maxUs, long seed) {
        Random rnd = new Random(seed);
        List<long[]> keyed = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            keyed.add(new long[] {events.get(i).tsUs() + (long) (rnd.nextDouble() * maxUs), i});
        }
        keyed.sort((a, b) -> Long.compare(a[0], b[0]));
        return keyed.stream().map(k -> events.get((int) k[1])).toList();
    }

    /** The core engine's rows for the same events, per table, keyed by connection and row order. */
    static Map<WarehouseTable, Map<String, List<String>>> expectedRows(List<PacketEvent> events) {
        return expectedRows(events, Screen.defaults());
    }

    /** The same, with a given screen (a job elsewhere lacks the test classpath's plugin screen rule). */
    static Map<WarehouseTable, Map<String, List<String>>> expectedRows(List<PacketEvent> events, Screen screen) {
        Analyzer analyzer = Analyzer.defaults();
        ConnectionAssembler as = new ConnectionAssembler();
        events.forEach(as::add);
        Map<WarehouseTable, Map<String, List<String>>> out = new java.util.EnumMap<>(WarehouseTable.class);
        for (ConnectionTrace t : as.connections()) {
            ConnectionResult r = screen.apply(analyzer.analyze(t));
            for (WarehouseTable table : WarehouseTable.values()) {
                for (Map<String, Object> row : table.rows(r)) {
                    GenericRecord g = AvroRows.toRecord(table.schema(), row);
                    out.computeIfAbsent(table, k -> new TreeMap<>()).put(rowKey(table, g), normalised(g));
                }
            }
        }
        return out;
    }

    /** What the warehouse holds, in the same shape. Fails on a row seen twice: exactly once. */
    static Map<WarehouseTable, Map<String, List<String>>> warehouseRows(Path warehouse) throws IOException {
        Map<WarehouseTable, List<GenericRecord>> read = new java.util.EnumMap<>(WarehouseTable.class);
        for (WarehouseTable table : WarehouseTable.values()) {
            read.put(table, WarehouseReader.read(warehouse, table));
        }
        return rows(read);
    }

    /** Rows as they came out of the job, in the same shape. Fails on a row seen twice: exactly once. */
    static Map<WarehouseTable, Map<String, List<String>>> rows(Map<WarehouseTable, List<GenericRecord>> byTable) {
        Map<WarehouseTable, Map<String, List<String>>> out = new java.util.EnumMap<>(WarehouseTable.class);
        for (WarehouseTable table : byTable.keySet()) {
            if (table == WarehouseTable.DEAD_LETTERS) {
                continue;
            }
            for (GenericRecord g : byTable.get(table)) {
                String key = rowKey(table, g);
                if (out.computeIfAbsent(table, k -> new TreeMap<>()).put(key, normalised(g)) != null) {
                    throw new AssertionError(table.tableName() + " holds row " + key + " twice");
                }
            }
        }
        return out;
    }

    /** Waits until the warehouse holds n profiles; else fails saying how far it got and {@code why}'s account of the job. */
    static void awaitProfiles(Path warehouse, int n, Duration timeout, Callable<String> why) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        int seen = 0;
        while (System.nanoTime() < deadline) {
            seen = WarehouseReader.read(warehouse, WarehouseTable.PROFILES).size();
            if (seen >= n) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("only " + seen + " of " + n + " profiles committed within " + timeout + "; " + why.call());
    }

    /** The analysis tables (dead letters aside) hold the same rows, and each row the same values. */
    static void assertTablesEqual(Map<WarehouseTable, Map<String, List<String>>> expected, Map<WarehouseTable, Map<String, List<String>>> got) {
        for (WarehouseTable t : List.of(WarehouseTable.PROFILES, WarehouseTable.EXCHANGES, WarehouseTable.CRITICAL_PATH, WarehouseTable.PACKETS,
                WarehouseTable.SCREENING)) {
            Map<String, List<String>> want = expected.getOrDefault(t, Map.of());
            Map<String, List<String>> have = got.getOrDefault(t, Map.of());
            assertEquals(want.keySet(), have.keySet(), t.tableName() + ": the same rows");
            for (String k : want.keySet()) {
                assertEquals(want.get(k), have.get(k), t.tableName() + " row " + k);
            }
        }
    }

    private static String rowKey(WarehouseTable table, GenericRecord g) {
        return switch (table) {
            case EXCHANGES -> g.get("conn_uid") + "#" + g.get("exchange_index");
            case CRITICAL_PATH -> g.get("conn_uid") + "#" + g.get("arc_index");
            case PACKETS -> g.get("conn_uid") + "#" + g.get("segment_start_us") + "#" + g.get("tx_index") + "#" + g.get("seen_at");
            default -> String.valueOf(g.get("conn_uid"));
        };
    }

    /** Field values as text, maps sorted: Avro's Utf8 and Java strings compare equal this way. */
    static List<String> normalised(GenericRecord r) {
        List<String> out = new ArrayList<>();
        for (Schema.Field f : r.getSchema().getFields()) {
            Object v = r.get(f.pos());
            if (v instanceof Map<?, ?> m) {
                TreeMap<String, String> sorted = new TreeMap<>();
                m.forEach((k, x) -> sorted.put(k.toString(), String.valueOf(x)));
                v = sorted;
            }
            out.add(f.name() + "=" + v);
        }
        return out;
    }

    /**
     * Moves event time {@code byUs} past {@code last} on every partition of the topic: SYNs of new
     * connections from its sensor, as many on each partition as it takes for a sensor's jump to
     * count there (see SensorWatermarks). Past every open connection's close timer.
     */
    static void passTime(String bootstrapServers, String topic, int partitions, PacketEvent last, long byUs) throws Exception {
        try (var producer = Replay.producer(bootstrapServers)) {
            for (int p = 0; p < partitions; p++) {
                for (int i = 0; i < SensorWatermarks.EVENTS_TO_CONFIRM_JUMP; i++) {
                    PacketEvent syn = syn(last.sensor(), last.sensorRole(), "192.0." + (2 + p) + "." + (1 + i), last.respH(), last.respP(),
                            last.tsUs() + byUs + i);
                    producer.send(new ProducerRecord<>(topic, p, null, Replay.json(syn))).get();
                }
            }
        }
    }

    /** The recordings moved to start at {@code startUs}, quiet gaps between them shortened; each connection's own timing kept. */
    static List<PacketEvent> live(List<PacketEvent> recorded, long startUs) {
        List<PacketEvent> sorted = new ArrayList<>(recorded);
        sorted.sort(PacketEvent.CAPTURE_ORDER);
        List<PacketEvent> out = new ArrayList<>();
        long shift = startUs - sorted.get(0).tsUs();
        long prev = sorted.get(0).tsUs();
        for (PacketEvent e : sorted) {
            if (e.tsUs() - prev > 5_000_000) { // between recordings: no connection spans such a gap
                shift -= e.tsUs() - prev - LIVE_GAP_US;
            }
            prev = e.tsUs();
            out.add(e.withTsUs(e.tsUs() + shift));
        }
        return out;
    }

    /** A client-side sensor ten minutes fast, watching a connection of its own (the first one's packets, another client). */
    static List<PacketEvent> fastClockSensor(List<PacketEvent> good) {
        PacketEvent first = good.get(0);
        String client = "192.0.2.99";
        String cid = CommunityId.tcpV1(client, first.origP(), first.respH(), first.respP(), 0);
        return good.stream().filter(e -> e.communityId().equals(first.communityId()) && e.sensor().equals(first.sensor()))
                .map(e -> e.withSensor("fast-clock", SensorRole.CLIENT).withClient(client, cid).withTsUs(e.tsUs() + TEN_MINUTES_US)).toList();
    }

    static PacketEvent syn(String sensor, String client, long tsUs) {
        return syn(sensor, SensorRole.CLIENT, client, "10.71.2.2", 8080, tsUs);
    }

    /** The SYN of a new connection from {@code client}, port 40000, as {@code sensor} sees it. */
    static PacketEvent syn(String sensor, SensorRole role, String client, String server, int port, long tsUs) {
        return new PacketEvent(sensor, role, tsUs, CommunityId.tcpV1(client, 40000, server, port, 0), client, 40000, server, port, true,
                TcpFlags.SYN, 1, 0, 0, 64240, 7, 1460, Boolean.TRUE, null, PacketEvent.ABSENT, PacketEvent.ABSENT, 1, 64, PacketEvent.ABSENT);
    }

    /** The byte sequences that once failed the source (schemas/vectors/packet-event/invalid). */
    static final List<String> POISON_VECTORS = List.of("nul-prefixed", "confluent-avro-framed", "utf32-with-bom", "invalid-utf8");

    /**
     * Records no parser takes for an event: {@code junk} random ones, {@code truncated} cuts of a
     * valid record, then the poison vectors.
     */
    static List<byte[]> garbage(byte[] valid, int junk, int truncated, Random rnd) {
        List<byte[]> bad = new ArrayList<>();
        for (int i = 0; i < junk; i++) {
            byte[] b = new byte[1 + rnd.nextInt(300)];
            rnd.nextBytes(b);
            b[0] = '#'; // never valid JSON, whatever the rest is
            bad.add(b);
        }
        String text = new String(valid, StandardCharsets.UTF_8);
        for (int i = 0; i < truncated; i++) {
            bad.add(text.substring(0, 1 + rnd.nextInt(text.length() - 2)).getBytes(StandardCharsets.UTF_8));
        }
        for (String name : POISON_VECTORS) {
            bad.add(Repo.schemaResource("vectors/packet-event/invalid/" + name + ".json"));
        }
        return bad;
    }

    /** A record and when (wall clock, µs) to publish it. */
    record Timed(long sendAtUs, byte[] value) {
        static Timed of(long sendAtUs, PacketEvent e) {
            return new Timed(sendAtUs, Replay.json(e));
        }
    }

    /** Publishes each event when the wall clock reaches its time, as sensors publish live traffic. */
    static void publishLive(String bootstrapServers, String topic, List<Timed> sends) throws InterruptedException {
        List<Timed> inOrder = new ArrayList<>(sends);
        inOrder.sort(java.util.Comparator.comparingLong(Timed::sendAtUs));
        try (var producer = Replay.producer(bootstrapServers)) {
            for (Timed s : inOrder) {
                long waitMs = s.sendAtUs() / 1000 - System.currentTimeMillis();
                if (waitMs > 0) {
                    Thread.sleep(waitMs);
                }
                producer.send(new ProducerRecord<>(topic, s.value()));
            }
        }
    }
}
