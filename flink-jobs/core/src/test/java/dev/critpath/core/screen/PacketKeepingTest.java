package dev.critpath.core.screen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.analysis.ConnectionAnalysis;
import dev.critpath.core.analysis.PacketSighting;
import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.testing.HandTrace;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class PacketKeepingTest {
    /** A small transfer, sensors at both ends: seven packets, 14 sightings. */
    private static ConnectionAnalysis transfer(long isn) {
        return Analyzer.defaults().analyze(HandTrace.smallTransfer(10, 10).isns(isn, 5000).bothSensors());
    }

    private static Screen screen(String rules, String max, String rate) {
        Properties p = new Properties();
        p.setProperty("rules", rules);
        p.setProperty("no_server_stall.threshold_ms", "10");
        p.setProperty("packets.max_per_connection", max);
        p.setProperty("packets.boring_sample_rate", rate);
        return Screen.fromProperties(p, null);
    }

    @Test
    void aConnectionThatFailsTheScreenKeepsItsPacketsUpToTheCap() {
        ConnectionAnalysis a = transfer(1000);
        int all = a.packets().sightings().size();
        assertEquals(14, all, "seven packets, each captured leaving and arriving");
        // the 20 ms think time fails a 10 ms stall threshold
        ConnectionResult flagged = screen("no_server_stall", "1000", "0").apply(a);
        assertFalse(flagged.verdict().boring());
        assertEquals(all, flagged.packetValues().size());
        ConnectionResult capped = screen("no_server_stall", "5", "0").apply(transfer(1000));
        assertEquals(5, capped.packetValues().size(), "the earliest five");
        assertEquals(a.packets().sightings().subList(0, 5).stream().map(s -> s.timeUs()).toList(),
                capped.packetValues().stream().map(r -> r[PacketSighting.COLUMNS.indexOf("time_us")]).toList());
    }

    @Test
    void boringConnectionsAreSampledByTheirKeySoEveryRunKeepsTheSameOnes() {
        List<Boolean> kept = new ArrayList<>();
        int n = 200;
        for (int i = 0; i < n; i++) {
            ConnectionResult r = screen("", "1000", "0.25").apply(transfer(1000L + 7919L * i));
            assertTrue(r.verdict().boring(), "no rules: every connection is boring");
            kept.add(!r.packetValues().isEmpty());
            assertEquals(kept.get(i), !screen("", "1000", "0.25").apply(transfer(1000L + 7919L * i)).packetValues().isEmpty(), "again");
        }
        long share = kept.stream().filter(k -> k).count();
        assertTrue(share > n / 8 && share < n * 3 / 8, share + " of " + n + " kept at a rate of 0.25");
        assertTrue(screen("", "1000", "0").apply(transfer(1000)).packetValues().isEmpty(), "rate 0 keeps none");
        assertEquals(14, screen("", "1000", "1").apply(transfer(1000)).packetValues().size(), "rate 1 keeps all");
    }

    @Test
    void nonsenseSettingsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> screen("", "-1", "0.1"));
        assertThrows(IllegalArgumentException.class, () -> screen("", "10", "1.5"));
    }
}
