package dev.critpath.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.analysis.Category;
import dev.critpath.core.analysis.ConnectionAnalysis;
import dev.critpath.core.analysis.ExchangeProfile;
import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.testing.LabFixtures;
import dev.critpath.core.testing.Repo;
import dev.critpath.core.trace.ConnectionAssembler;
import dev.critpath.kafka.Replay;
import dev.critpath.warehouse.WarehouseReader;
import dev.critpath.warehouse.WarehouseTable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

/**
 * A keep-alive connection (lab: three requests, server think 20/80/150 ms) whose client waits 5 s
 * before each further request, with the server sensor's clock 1.5 s ahead, through Kafka and the
 * job with a per-connection cap of 100 events: more than the connection has. Cut after each
 * exchange, it is analysed whole and uncapped, as the lab has it.
 */
class LongLivedConnectionTest extends JobTestBase {
    private static final long CLIENT_WAIT_US = 5_000_000;
    private static final long SERVER_CLOCK_AHEAD_US = 1_500_000;

    @Test
    void aConnectionLargerThanTheCapIsWrittenExchangeByExchange() throws Exception {
        Path lab = Repo.testdata("lab/keepalive-3");
        LabFixtures.Connection truth = LabFixtures.load(lab).connections().get(0);
        List<PacketEvent> events = stretched(lab);
        assertTrue(events.size() > 100, "more events than the cap: " + events.size());

        String topic = "long-lived";
        // one partition: with two, one reader can race through its half before the other reader's
        // watermark lets the quiet periods pass, and the whole connection is buffered (flaky);
        // watermark alignment bounds that skew in a live stream, not in a replay read in milliseconds
        kafka.createTopic(topic, 1);
        Replay.publish(kafka.bootstrapServers(), topic, Replay.json(events), n -> { });
        Path warehouse = tmp.resolve("wh-long");
        run(boundedJob(topic, warehouse).withMaxEventsPerConnection(100)
                .withSegments(new StreamConfig.Segments(Duration.ZERO, Duration.ofSeconds(1))));

        ConnectionAssembler as = new ConnectionAssembler();
        events.forEach(as::add);
        ConnectionAnalysis whole = Analyzer.defaults().analyze(as.connections().get(0));

        List<GenericRecord> profiles = WarehouseReader.read(warehouse, WarehouseTable.PROFILES);
        assertEquals(1, profiles.size());
        GenericRecord p = profiles.get(0);
        assertEquals(0L, p.get("events_over_cap"), "never more than the cap held at once");
        assertEquals(whole.profile().connUid, p.get("conn_uid").toString());
        assertEquals(whole.profile().durationUs(), (long) p.get("duration_us"));
        assertTrue(whole.profile().durationUs() > 2 * CLIENT_WAIT_US);
        for (Category c : Category.ALL) {
            assertEquals(whole.profile().times.get(c), (long) p.get(c.key() + "_us"), 0.001 * whole.profile().durationUs(), c.key());
        }
        assertEquals(3, (int) p.get("exchanges"));
        assertEquals(whole.profile().c2s.packets, (long) p.get("packets_c2s"));
        assertEquals(whole.profile().s2c.bytes, (long) p.get("bytes_s2c"));
        assertEquals(1_500_000, (long) p.get("clock_offset_us"), 1_000);
        assertEquals(1, WarehouseReader.read(warehouse, WarehouseTable.SCREENING).size());

        List<GenericRecord> exchanges = new ArrayList<>(WarehouseReader.read(warehouse, WarehouseTable.EXCHANGES));
        exchanges.sort(Comparator.comparingInt(r -> (int) r.get("exchange_index")));
        assertEquals(3, exchanges.size());
        for (int i = 0; i < 3; i++) {
            GenericRecord x = exchanges.get(i);
            ExchangeProfile w = whole.exchanges().get(i);
            assertEquals(i, (int) x.get("exchange_index"));
            assertEquals(w.startUs(), (long) x.get("start_us"));
            assertEquals(w.endUs(), (long) x.get("end_us"));
            assertEquals(truth.injectedServerDelayUs(i), (long) x.get("server_us"), 2_000, "exchange " + i + " against the lab's think time");
        }

        List<GenericRecord> arcs = new ArrayList<>(WarehouseReader.read(warehouse, WarehouseTable.CRITICAL_PATH));
        arcs.sort(Comparator.comparingInt(r -> (int) r.get("arc_index")));
        long covered = 0;
        for (int i = 0; i < arcs.size(); i++) {
            assertEquals(i, (int) arcs.get(i).get("arc_index"));
            covered += (long) arcs.get(i).get("duration_us");
        }
        assertEquals(whole.profile().durationUs(), covered, "the written path covers the connection once");
    }

    /** keepalive-3 with the client waiting 5 s more before requests 2 and 3, and the server sensor 1.5 s ahead. */
    private static List<PacketEvent> stretched(Path lab) throws Exception {
        List<PacketEvent> client = Replay.events(List.of(new Replay.Capture(lab.resolve("client.pcap"), "lab-client", SensorRole.CLIENT)));
        List<PacketEvent> server = Replay.events(List.of(new Replay.Capture(lab.resolve("server.pcap"), "lab-server", SensorRole.SERVER)));
        List<Long> requests = client.stream().filter(e -> e.isOrig() && e.len() > 0).map(PacketEvent::tsUs).skip(1).toList();
        List<PacketEvent> out = new ArrayList<>();
        for (PacketEvent e : client) {
            out.add(e.withTsUs(e.tsUs() + CLIENT_WAIT_US * requests.stream().filter(r -> e.tsUs() >= r).count()));
        }
        for (PacketEvent e : server) { // a request reaches the server 25 ms after it left; nothing else is in flight then
            long waits = requests.stream().filter(r -> e.tsUs() >= r + 10_000).count();
            out.add(e.withTsUs(e.tsUs() + CLIENT_WAIT_US * waits + SERVER_CLOCK_AHEAD_US));
        }
        out.sort(PacketEvent.CAPTURE_ORDER);
        return out;
    }
}
