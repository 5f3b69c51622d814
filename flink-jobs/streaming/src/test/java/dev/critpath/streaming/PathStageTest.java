package dev.critpath.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.analysis.Category;
import dev.critpath.core.analysis.ConnectionAnalysis;
import dev.critpath.core.analysis.Direction;
import dev.critpath.core.analysis.PathArc;
import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.lifecycle.PathState;
import dev.critpath.core.pcap.PcapEvents;
import dev.critpath.core.testing.LabFixtures;
import dev.critpath.core.testing.Repo;
import dev.critpath.core.trace.ConnectionAssembler;
import dev.critpath.core.trace.ConnectionTrace;
import dev.critpath.kafka.Replay;
import dev.critpath.warehouse.WarehouseReader;
import dev.critpath.warehouse.WarehouseTable;
import java.nio.file.Path;
import java.util.List;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

/**
 * What the path stage learns from one connection and applies to the next on the same path (same
 * client /24, server and sensor pair), checked against what the lab configured.
 */
class PathStageTest extends JobTestBase {
    /**
     * think-100ms, 20 ms each way, then fast-retransmit a second later, 25 ms each way: the second
     * connection's propagation is the path's 20 ms per crossing, its other 5 ms queuing.
     */
    @Test
    void aSlowerConnectionOnAKnownPathHasItsExtraDelayAsQueuing() throws Exception {
        Path first = Repo.testdata("lab/think-100ms");
        Path second = Repo.testdata("lab/fast-retransmit");
        List<PacketEvent> events = Replay.events(List.of(
                new Replay.Capture(first.resolve("client.pcap"), "lab-client", SensorRole.CLIENT),
                new Replay.Capture(first.resolve("server.pcap"), "lab-server", SensorRole.SERVER),
                new Replay.Capture(second.resolve("client.pcap"), "lab-client", SensorRole.CLIENT),
                new Replay.Capture(second.resolve("server.pcap"), "lab-server", SensorRole.SERVER)));
        String topic = "one-path";
        kafka.createTopic(topic, 1);
        Replay.publish(kafka.bootstrapServers(), topic, Replay.json(events), n -> { });
        Path warehouse = tmp.resolve("wh-path");
        run(boundedJob(topic, warehouse).withParallelism(1)); // one instance: connections reach the path in time order

        int secondPort = LabFixtures.load(second).connections().get(0).clientPort();
        GenericRecord p = WarehouseReader.read(warehouse, WarehouseTable.PROFILES).stream()
                .filter(r -> (int) r.get("client_port") == secondPort).findFirst().orElseThrow();
        long crossings = WarehouseReader.read(warehouse, WarehouseTable.CRITICAL_PATH).stream()
                .filter(a -> a.get("conn_uid").toString().equals(p.get("conn_uid").toString()) && a.get("arc_type").toString().equals("network"))
                .count();
        long propagation = (long) p.get("propagation_us");
        long queuing = (long) p.get("queuing_us");
        assertTrue((long) p.get("min_owd_c2s_us") > 24_000, "its own minimum is its 25 ms: " + p.get("min_owd_c2s_us"));
        assertEquals(crossings * 20_000, propagation, crossings * 20_000 * 0.05, "the path's 20 ms per crossing");
        assertTrue(queuing >= crossings * 5_000 * 0.95, "the extra 5 ms per crossing is queuing: " + queuing + " over " + crossings + " crossings");
    }

    /**
     * clock-offset, then cubic-clock-offset three seconds later, both with the server sensor 1.5 s
     * ahead; the second as if the server site routed its answers past its sensor (asymmetric
     * routing), so it cannot estimate the offset itself. It takes the sensor pair's.
     */
    @Test
    void aConnectionSeenOneWayAtASiteTakesTheSensorPairsClockOffset() throws Exception {
        Path first = Repo.testdata("lab/clock-offset");
        Path second = Repo.testdata("lab/cubic-clock-offset");
        List<PacketEvent> events = new java.util.ArrayList<>(Replay.events(List.of(
                new Replay.Capture(first.resolve("client.pcap"), "lab-client", SensorRole.CLIENT),
                new Replay.Capture(first.resolve("server.pcap"), "lab-server", SensorRole.SERVER),
                new Replay.Capture(second.resolve("client.pcap"), "lab-client", SensorRole.CLIENT))));
        events.addAll(PcapEvents.readAll(second.resolve("server.pcap"), "lab-server", SensorRole.SERVER).stream().filter(PacketEvent::isOrig).toList());
        events.sort(PacketEvent.CAPTURE_ORDER);
        String topic = "one-way-site";
        kafka.createTopic(topic, 1);
        Replay.publish(kafka.bootstrapServers(), topic, Replay.json(events), n -> { });
        Path warehouse = tmp.resolve("wh-one-way");
        run(boundedJob(topic, warehouse).withParallelism(1));

        int port = LabFixtures.load(second).connections().get(0).clientPort();
        GenericRecord p = WarehouseReader.read(warehouse, WarehouseTable.PROFILES).stream()
                .filter(r -> (int) r.get("client_port") == port).findFirst().orElseThrow();
        assertTrue((boolean) p.get("clock_offset_from_sensor_pair"), p.toString());
        assertEquals(1_500_000, (long) p.get("clock_offset_us"), 1_000, "within 1 ms of the injected +1.5 s");
    }

    /**
     * Connections reach the path stage in the order the watermark lets them out, which is not
     * fixed from run to run, so a connection may or may not have the path's minimum yet. Only the
     * split of its network time may differ: propagation by at most (its own minimum one-way delay
     * minus the path's) per crossing, queuing by the opposite (docs/reliability.md).
     */
    @Test
    void theOrderConnectionsReachThePathMovesOnlyThePropagationQueuingSplitWithinItsBound() throws Exception {
        Analyzer analyzer = Analyzer.defaults();
        PathState path = new PathState();
        path.learn(analyzer.analyze(trace(Repo.testdata("lab/think-100ms"))).profile());
        ConnectionTrace second = trace(Repo.testdata("lab/fast-retransmit"));
        ConnectionAnalysis first = analyzer.analyze(second);
        ConnectionAnalysis after = analyzer.analyze(second, path.prior());

        assertEquals(first.arcs().size(), after.arcs().size(), "the same critical path");
        long bound = 0;
        for (int i = 0; i < first.arcs().size(); i++) {
            PathArc a = first.arcs().get(i);
            assertEquals(a.fromUs(), after.arcs().get(i).fromUs());
            assertEquals(a.toUs(), after.arcs().get(i).toUs());
            if (a.kind() == PathArc.Kind.NETWORK) {
                bound += a.direction() == Direction.C2S ? first.profile().timing.minOwdC2sUs() - path.owdC2sUs() : first.profile().timing.minOwdS2cUs() - path.owdS2cUs();
            }
        }
        for (Category c : Category.ALL) {
            if (c != Category.PROPAGATION && c != Category.QUEUING) {
                assertEquals(first.profile().times.get(c), after.profile().times.get(c), c.key());
            }
        }
        long moved = first.profile().times.get(Category.PROPAGATION) - after.profile().times.get(Category.PROPAGATION);
        assertEquals(moved, after.profile().times.get(Category.QUEUING) - first.profile().times.get(Category.QUEUING), "queuing takes what propagation gives");
        assertTrue(moved > 0 && moved <= bound, "moved " + moved + " µs of a bound of " + bound + " µs");
    }

    private static ConnectionTrace trace(Path lab) throws Exception {
        ConnectionAssembler assembler = new ConnectionAssembler();
        Replay.events(List.of(new Replay.Capture(lab.resolve("client.pcap"), "lab-client", SensorRole.CLIENT),
                new Replay.Capture(lab.resolve("server.pcap"), "lab-server", SensorRole.SERVER))).forEach(assembler::add);
        return assembler.connections().get(0);
    }
}
