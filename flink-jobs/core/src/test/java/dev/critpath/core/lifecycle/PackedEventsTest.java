package dev.critpath.core.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.pcap.PcapEvents;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

class PackedEventsTest {
    private static final Path LAB = Path.of("..", "..", "testdata", "lab");

    @Test
    void givesBackEveryEventOfBothSensorsEqualAndInOrder() throws Exception {
        List<PacketEvent> events = new ArrayList<>();
        events.addAll(PcapEvents.readAll(LAB.resolve("sack-fast-retransmit/client.pcap"), "client-side", SensorRole.CLIENT));
        events.addAll(PcapEvents.readAll(LAB.resolve("sack-fast-retransmit/server.pcap"), "server-side", SensorRole.SERVER));
        events.sort(Comparator.comparingLong(PacketEvent::tsUs));
        assertTrue(events.stream().anyMatch(e -> e.sack() != null), "the fixture has SACK blocks to keep");
        PackedEvents packed = new PackedEvents();
        packed.addAll(events);
        assertEquals(events, packed);
        assertEquals(events, new ArrayList<>(packed)); // through its iterator too
        assertEquals(events, walked(packed));
    }

    /** The events as forEach gives them, chunk by chunk. */
    private static List<PacketEvent> walked(PackedEvents packed) {
        List<PacketEvent> out = new ArrayList<>();
        packed.forEach(out::add);
        return out;
    }

    @Test
    void keepsEdgesOfEachRangeAndWhatFallsOutsideThem() {
        PacketEvent base = new PacketEvent("s", SensorRole.SERVER, 1_000, "1:abc", "10.0.0.1", 40000, "10.0.0.2", 80, true, 0x18,
                0xffff_ffffL, 0, 1448, 65535, 255, 65535, true, null, 0xffff_ffffL, 0, 65535, 255, 7);
        List<PacketEvent> events = new ArrayList<>(List.of(
                base,
                // every optional field absent: -1 is not 2^32 - 1
                new PacketEvent("s", SensorRole.SERVER, -5, "1:abc", "10.0.0.1", 40000, "10.0.0.2", 80, false, 0x10, 0, 0xffff_ffffL,
                        0, 0, PacketEvent.ABSENT, PacketEvent.ABSENT, null, null, PacketEvent.ABSENT, PacketEvent.ABSENT,
                        PacketEvent.ABSENT, PacketEvent.ABSENT, PacketEvent.ABSENT),
                base.withSeqAck(-7, 1L << 40), // out of the schema's range: kept as it came
                new PacketEvent("s", SensorRole.SERVER, 2_000, "1:abc", "10.0.0.1", 40000, "10.0.0.2", 80, true, 0x10, 1, 1, 0,
                        70_000, 300, -2, false, new long[] {5, 9}, 1, 1, 70_000, 256, Long.MAX_VALUE),
                // equal names in other objects, another sensor between
                base.withSensor(new String("s"), SensorRole.SERVER).withTsUs(3_000),
                base.withSensor("c", SensorRole.CLIENT).withTsUs(Long.MIN_VALUE)));
        for (int i = 0; i < 3_000; i++) { // past those kept as they came, and past its growing chunks
            events.add(base.withTsUs(10_000 + i));
        }
        PackedEvents packed = new PackedEvents();
        packed.addAll(events);
        assertEquals(events, packed);
        assertEquals(events, walked(packed));
        assertSame(base.sensor(), packed.get(4).sensor(), "a flow's strings are kept once");
    }

    /** Each value out of its range alone, so each range's check is what keeps the event whole. */
    @Test
    void keepsAnEventWithAnyOneValueOutOfRangeAsItCame() {
        PacketEvent e = new PacketEvent("s", SensorRole.SERVER, 1_000, "1:abc", "10.0.0.1", 40000, "10.0.0.2", 80, true, 0x10, 1, 1, 0,
                1000, 7, 1460, false, null, 5, 6, 9, 64, 7);
        List<PacketEvent> events = List.of(e,
                new PacketEvent("s", SensorRole.SERVER, 1_000, "1:abc", "10.0.0.1", 40000, "10.0.0.2", 80, true, 0x1ff, 1, 1, 0, 1000, 7, 1460,
                        false, null, 5, 6, 9, 64, 7),
                new PacketEvent("s", SensorRole.SERVER, 1_000, "1:abc", "10.0.0.1", 40000, "10.0.0.2", 80, true, 0x10, 1, 1, 0, 70_000, 7, 1460,
                        false, null, 5, 6, 9, 64, 7),
                new PacketEvent("s", SensorRole.SERVER, 1_000, "1:abc", "10.0.0.1", 40000, "10.0.0.2", 80, true, 0x10, 1, 1, 0, 1000, 300, 1460,
                        false, null, 5, 6, 9, 64, 7),
                new PacketEvent("s", SensorRole.SERVER, 1_000, "1:abc", "10.0.0.1", 40000, "10.0.0.2", 80, true, 0x10, 1, 1, 0, 1000, 7, 1460,
                        false, null, 5, 6, 70_000, 64, 7),
                new PacketEvent("s", SensorRole.SERVER, 1_000, "1:abc", "10.0.0.1", 40000, "10.0.0.2", 80, true, 0x10, 1, 1, 0, 1000, 7, 1460,
                        false, null, 5, 6, 9, 256, 7),
                new PacketEvent("s", SensorRole.SERVER, 1_000, "1:abc", "10.0.0.1", 40000, "10.0.0.2", 80, true, 0x10, 1, 1, 0, 1000, 7, 1460,
                        false, null, 1L << 33, 6, 9, 64, 7));
        PackedEvents packed = new PackedEvents();
        packed.addAll(events);
        assertEquals(events, packed);
    }

    /** A long run of events kept as they came (SACK blocks in a long recovery) leaves whole chunks unmade. */
    @Test
    void packsAgainAfterARunKeptAsItCame() {
        PacketEvent plain = new PacketEvent("s", SensorRole.CLIENT, 1_000, "1:abc", "10.0.0.1", 40000, "10.0.0.2", 80, true, 0x10, 1, 1, 0,
                1000, 7, 1460, true, null, 5, 6, 9, 64, 7);
        List<PacketEvent> events = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            events.add(new PacketEvent("s", SensorRole.CLIENT, 2_000 + i, "1:abc", "10.0.0.1", 40000, "10.0.0.2", 80, true, 0x10, 1, 1 + i,
                    0, 1000, 7, 1460, true, new long[] {5, 9}, 5, 6, 9, 64, 7));
        }
        events.add(plain);
        PackedEvents packed = new PackedEvents();
        packed.addAll(events);
        assertEquals(events, packed);
        assertEquals(events, walked(packed));
    }

    /** A flow's chunks serve the flows after it: what they read is theirs alone, whatever the chunks held before. */
    @Test
    void aReleasedFlowsChunksServeTheNextFlowsWithNothingLeftOver() throws Exception {
        List<PacketEvent> first = PcapEvents.readAll(LAB.resolve("sack-fast-retransmit/client.pcap"), "client-side", SensorRole.CLIENT);
        List<PacketEvent> second = PcapEvents.readAll(LAB.resolve("fast-retransmit/server.pcap"), "server-side", SensorRole.SERVER);
        assertTrue(first.size() > 300 && second.size() > 300, "both flows fill chunks of every size");
        PackedEvents.ChunkPool pool = new PackedEvents.ChunkPool();
        PackedEvents one = new PackedEvents(pool);
        one.addAll(first);
        assertEquals(0, pool.bytes());
        List<PacketEvent> readBefore = new ArrayList<>(one);
        one.release();
        long pooled = pool.bytes();
        assertTrue(pooled > 0, "the chunks are pooled");
        assertEquals(0, one.size());
        assertThrows(IndexOutOfBoundsException.class, () -> one.get(0));
        assertEquals(first, readBefore, "what was read before stays");

        PackedEvents two = new PackedEvents(pool);
        two.addAll(second);
        assertTrue(pool.bytes() < pooled, "the next flow took pooled chunks");
        assertEquals(second, two);
        assertEquals(second, walked(two));
        assertTrue(walked(one).isEmpty());
    }

    @Test
    void thePoolHoldsNoMoreThanItsBound() {
        PackedEvents.ChunkPool pool = new PackedEvents.ChunkPool();
        int chunkBytes = 256 * (2 * 8 + 9 * 4);
        long fits = PackedEvents.ChunkPool.MAX_POOLED_BYTES / chunkBytes;
        for (int i = 0; i < fits + 10; i++) {
            pool.give(5, new long[256 * 2], new int[256 * 9]);
        }
        assertEquals(fits * chunkBytes, pool.bytes());
    }
}
