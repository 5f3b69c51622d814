package dev.critpath.core.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.event.CommunityId;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.event.TcpFlags;
import java.util.List;
import org.junit.jupiter.api.Test;

class HalfOpenFlowsTest {
    private static PacketEvent syn(int client, long tsMs) {
        String addr = "198.51.100." + client;
        return new PacketEvent("s", SensorRole.SERVER, tsMs * 1000, CommunityId.tcpV1(addr, 40000, "10.0.0.2", 80, 0), addr, 40000,
                "10.0.0.2", 80, true, TcpFlags.SYN, 1, 0, 0, 64240, 7, 1460, Boolean.TRUE, null, -1, -1, 1, 64, PacketEvent.ABSENT);
    }

    @Test
    void whenFullTheFlowQuietTheLongestIsSetAside() {
        HalfOpenFlows t = new HalfOpenFlows(2);
        assertNull(t.add("a", syn(1, 100), 100));
        assertNull(t.add("b", syn(2, 200), 200));
        assertNull(t.add("a", syn(1, 1100), 1100)); // a's retransmitted SYN: now b is the quietest
        HalfOpenFlows.SetAside evicted = t.add("c", syn(3, 1200), 1200);
        assertEquals("b", evicted.flow());
        assertTrue(evicted.evicted());
        assertEquals(2, t.size());
        assertEquals(3, t.events());
        assertEquals(2, t.take("a").size(), "both of a's SYNs join its connection");
        assertFalse(t.holds("a"));
        assertEquals(1, t.events());
    }

    @Test
    void quietFlowsExpireOldestFirstAndPacketsPerFlowAreBounded() {
        HalfOpenFlows t = new HalfOpenFlows(10);
        for (int i = 0; i < HalfOpenFlows.MAX_EVENTS_PER_FLOW + 5; i++) {
            t.add("flood", syn(1, 100 + i), 100 + i);
        }
        t.add("later", syn(2, 5000), 5000);
        assertEquals(HalfOpenFlows.MAX_EVENTS_PER_FLOW + 1, t.events());
        List<HalfOpenFlows.SetAside> quiet = t.expire(1000);
        assertEquals(1, quiet.size());
        assertEquals(5, quiet.get(0).uncounted());
        assertFalse(quiet.get(0).evicted());
        assertEquals(5000, t.oldestActivityMs());
        assertEquals(List.of(syn(2, 5000).tsUs()), t.snapshot().stream().map(PacketEvent::tsUs).toList());
    }
}
