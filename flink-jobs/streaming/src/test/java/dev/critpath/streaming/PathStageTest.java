package dev.critpath.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.pcap.PcapEvents;
import dev.critpath.core.testing.LabFixtures;
import dev.critpath.core.testing.Repo;
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
}
