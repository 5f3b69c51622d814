package dev.critpath.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.critpath.core.event.CommunityId;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.event.TcpFlags;
import dev.critpath.core.testing.Repo;
import dev.critpath.kafka.Replay;
import dev.critpath.warehouse.WarehouseReader;
import dev.critpath.warehouse.WarehouseTable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * A topic mixing good sensor events with garbage, truncated JSON, absurd values and a SYN flood
 * fifteen times the half-open table: the job finishes, every good connection is profiled exactly as the core engine profiles it, and
 * every bad input is a dead letter with its reason. 
 */
class BadInputTest extends JobTestBase {
    private static final int FLOOD = 3000;
    private static final int HALF_OPEN_CAP = 200;
    private static final long ABSURD_KAFKA_TS_MS = 9_000_000_000_000_000L;

    @Test
    void garbageAndAFloodCostDeadLettersNeverGoodConnections() throws Exception {
        // the server sensors leave out the optional sensor_role (the engine infers it): odd, but valid
        List<PacketEvent> good = LabReplay.events(LabReplay.scenarios("fast-retransmit", "keepalive-3", "clock-offset")).stream()
                .map(e -> e.sensorRole() == SensorRole.SERVER ? e.withSensor(e.sensor(), null) : e).toList();
        long t0 = good.get(0).tsUs();
        List<byte[]> records = new ArrayList<>(Replay.json(good));
        Random rnd = new Random(11);
        // junk, truncated records, and bytes a JSON library may take for another encoding (one once failed the source for good)
        List<byte[]> bad = new ArrayList<>(LabReplay.garbage(records.get(100), 40, 25, rnd));
        String valid = new String(records.get(100), StandardCharsets.UTF_8);
        bad.add(valid.replaceFirst("\"resp_p\":\\d+", "\"resp_p\":70000").getBytes(StandardCharsets.UTF_8));
        bad.add(valid.replaceFirst("\"len\":\\d+", "\"len\":-5").getBytes(StandardCharsets.UTF_8));
        bad.add(valid.replaceFirst("\"ts_us\":\\d+", "\"ts_us\":4000000000000000").getBytes(StandardCharsets.UTF_8)); // 2096
        bad.add(new byte[0]);
        for (int i = 0; i < bad.size(); i++) {
            records.add(rnd.nextInt(records.size()), bad.get(i));
        }
        List<PacketEvent> flood = synFlood(t0, FLOOD, rnd);
        List<byte[]> floodJson = Replay.json(flood);
        for (int i = 0; i < floodJson.size(); i++) {
            records.add(Math.min(records.size(), 50 + i * 3), floodJson.get(i)); // spread over the good traffic
        }

        String topic = "bad-input";
        kafka.createTopic(topic, 2);
        Replay.publish(kafka.bootstrapServers(), topic, records, n -> { });
        try (var producer = Replay.producer(kafka.bootstrapServers())) {
            // a producer's clock in the year 287,000: the record's partition must not follow it
            producer.send(new ProducerRecord<>(topic, null, ABSURD_KAFKA_TS_MS, null, "#".getBytes(StandardCharsets.UTF_8))).get();
        }
        Path warehouse = tmp.resolve("wh-bad");
        run(boundedJob(topic, warehouse).withCaps(new StreamConfig.Caps(200_000, 2_000_000, HALF_OPEN_CAP)));

        LabReplay.assertTablesEqual(LabReplay.expectedRows(good), LabReplay.warehouseRows(warehouse)); // every good connection
        Map<String, Integer> reasons = new TreeMap<>();
        int setAsideEarly = 0;
        for (GenericRecord d : WarehouseReader.read(warehouse, WarehouseTable.DEAD_LETTERS)) {
            reasons.merge(d.get("reason").toString(), 1, Integer::sum);
            setAsideEarly += d.get("detail").toString().contains("set aside early") ? 1 : 0;
            assertTrue(d.get("detail") != null && !d.get("detail").toString().isBlank(), "every dead letter says why: " + d);
        }
        assertEquals(65 + LabReplay.POISON_VECTORS.size() + 1, reasons.getOrDefault("malformed_json", 0), "junk, truncated and poison records: " + reasons);
        assertEquals(2, reasons.getOrDefault("out_of_range", 0), reasons.toString());
        assertEquals(1, reasons.getOrDefault("sensor_clock_ahead", 0), reasons.toString());
        assertEquals(1, reasons.getOrDefault("empty_record", 0), reasons.toString());
        assertEquals(FLOOD, reasons.getOrDefault("half_open_connection", 0), reasons.toString());
        // both instances of the connection step filled their half-open tables: the oldest went first, no good connection did
        assertTrue(setAsideEarly >= FLOOD - 2 * HALF_OPEN_CAP, setAsideEarly + " set aside early");
        try (var partitions = Files.list(warehouse.resolve("dead_letters"))) {
            int thisYear = java.time.LocalDate.now(java.time.ZoneOffset.UTC).getYear();
            for (Path p : partitions.toList()) {
                String dt = p.getFileName().toString();
                assertTrue(dt.matches("dt=\\d{4}-\\d\\d-\\d\\d") && Math.abs(Integer.parseInt(dt.substring(3, 7)) - thisYear) <= 1,
                        "dead letters are partitioned by when they were set aside: " + dt);
            }
        }
        assertEquals(65 + LabReplay.POISON_VECTORS.size() + 1 + 2 + 1 + 1 + FLOOD, reasons.values().stream().mapToInt(Integer::intValue).sum(), "nothing else: " + reasons);
    }

    /**
     * A topic in the middle of its sensors' move to Avro: the good events alternate between JSON
     * and Avro records, among every invalid Avro vector and Avro records cut short. The tables are
     * what the events give, and each bad record is a dead letter with its vector's code.
     */
    @Test
    void avroAndJsonOnOneTopicGiveTheSameRowsAndAvroDeadLetters() throws Exception {
        List<PacketEvent> good = LabReplay.events(LabReplay.scenarios("fast-retransmit", "keepalive-3", "clock-offset"));
        List<byte[]> records = new ArrayList<>();
        for (int i = 0; i < good.size(); i++) {
            records.add((i % 2 == 0 ? Replay.Encoding.avro : Replay.Encoding.json).encode(good.get(i)));
        }
        Map<String, Integer> expected = new TreeMap<>();
        List<byte[]> bad = new ArrayList<>();
        JsonNode index = new ObjectMapper().readTree(Repo.schemaResource("vectors/packet-event-avro/index.json"));
        index.get("invalid").fields().forEachRemaining(v -> {
            bad.add(Repo.schemaResource("vectors/packet-event-avro/invalid/" + v.getKey() + ".bin"));
            expected.merge(v.getValue().get("error").asText().toLowerCase(Locale.ROOT), 1, Integer::sum);
        });
        Random rnd = new Random(12);
        byte[] avro = records.get(100);
        for (int i = 0; i < 20; i++) {
            bad.add(Arrays.copyOf(avro, 2 + rnd.nextInt(avro.length - 2))); // C3 01 and on, cut short
            expected.merge("malformed_avro", 1, Integer::sum);
        }
        for (byte[] b : bad) {
            records.add(rnd.nextInt(records.size()), b);
        }

        String topic = "mixed-encodings";
        kafka.createTopic(topic, 2);
        Replay.publish(kafka.bootstrapServers(), topic, records, n -> { });
        Path warehouse = tmp.resolve("wh-mixed");
        run(boundedJob(topic, warehouse));

        LabReplay.assertTablesEqual(LabReplay.expectedRows(good), LabReplay.warehouseRows(warehouse));
        Map<String, Integer> reasons = new TreeMap<>();
        List<String> raws = new ArrayList<>();
        for (GenericRecord d : WarehouseReader.read(warehouse, WarehouseTable.DEAD_LETTERS)) {
            reasons.merge(d.get("reason").toString(), 1, Integer::sum);
            raws.add(d.get("raw").toString());
        }
        assertEquals(expected, reasons);
        // an Avro record's bytes are kept in base64, whole
        byte[] unknown = Repo.schemaResource("vectors/packet-event-avro/invalid/unknown-fingerprint.bin");
        assertTrue(raws.contains("avro:" + Base64.getEncoder().encodeToString(unknown)), raws.toString());
    }

    @Test
    void aConnectionBeyondTheCapIsFlaggedNotDropped() throws Exception {
        List<PacketEvent> events = LabReplay.events(LabReplay.scenarios("dl-500k"));
        String topic = "capped";
        kafka.createTopic(topic, 1);
        Replay.publish(kafka.bootstrapServers(), topic, Replay.json(events), n -> { });
        Path warehouse = tmp.resolve("wh-capped");
        run(boundedJob(topic, warehouse).withMaxEventsPerConnection(200));

        List<GenericRecord> profiles = WarehouseReader.read(warehouse, WarehouseTable.PROFILES);
        assertEquals(1, profiles.size());
        GenericRecord p = profiles.get(0);
        assertEquals((long) events.size() - 200, (long) p.get("events_over_cap"), "every event beyond the cap is counted");
        assertTrue(p.get("failed_rules").toString().contains("complete_trace"), p.get("failed_rules").toString());
        GenericRecord verdict = WarehouseReader.read(warehouse, WarehouseTable.SCREENING).get(0);
        assertTrue(verdict.get("explanation").toString().contains("beyond the per-connection cap"), verdict.get("explanation").toString());
    }

    /** SYNs from many spoofed clients to the lab server, never answered, as the server-side sensor sees them. */
    private static List<PacketEvent> synFlood(long t0, int n, Random rnd) {
        List<PacketEvent> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String src = "198.51." + (i / 250) + "." + (1 + i % 250);
            int port = 1024 + rnd.nextInt(60000);
            out.add(new PacketEvent("lab-server", SensorRole.SERVER, t0 + i * 100L, CommunityId.tcpV1(src, port, "10.71.2.2", 8080, 0),
                    src, port, "10.71.2.2", 8080, true, TcpFlags.SYN, rnd.nextInt() & 0xffffffffL, 0, 0, 64240, 7, 1460, Boolean.TRUE, null,
                    PacketEvent.ABSENT, PacketEvent.ABSENT, rnd.nextInt(65536), 64, PacketEvent.ABSENT));
        }
        return out;
    }
}
