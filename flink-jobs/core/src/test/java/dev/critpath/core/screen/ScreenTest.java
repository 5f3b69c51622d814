package dev.critpath.core.screen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.analysis.Category;
import dev.critpath.core.analysis.ConnectionProfile;
import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.testing.HandTrace;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class ScreenTest {
    /** 1 KB with 120 ms of think time and a 300 ms handshake-free transfer at 10 ms per hop. */
    private static ConnectionProfile thinkingServer() {
        HandTrace h = new HandTrace(10, 10);
        h.c(0).syn();
        h.s(10).syn();
        h.c(20).data(50);
        h.s(150).data(1000).fin();
        h.c(160).fin();
        h.s(170);
        return Analyzer.defaults().analyze(h.bothSensors()).profile();
    }

    private static Properties props(String... kv) {
        Properties p = new Properties();
        for (int i = 0; i < kv.length; i += 2) {
            p.setProperty(kv[i], kv[i + 1]);
        }
        return p;
    }

    @Test
    void theDefaultsFlagAServerStallAndSayWhy() {
        ScreenVerdict v = Screen.defaults().evaluate(thinkingServer());
        assertFalse(v.boring());
        assertEquals(List.of("no_server_stall"), v.failedRules());
        assertEquals(120_000, v.counts().get("max_server_arc_us"));
        assertTrue(v.explanation().contains("server stalled 120.0 ms"), v.explanation());
        assertEquals(0, v.counts().get("retransmissions"), "counts behind passing rules are reported too");
    }

    @Test
    void aServerStallSeenFromTheClientAloneIsFlaggedAsServerOrQueuing() {
        HandTrace h = new HandTrace(10, 10);
        h.c(0).syn();
        h.s(10).syn();
        h.c(20).data(50);
        h.s(1030).data(1000).fin();            // a second of think time, as latency4.pcapng shows from its client
        h.c(1040).fin();
        h.s(1050);
        ScreenVerdict v = Screen.defaults().evaluate(Analyzer.defaults().analyze(h.clientSensorOnly()).profile());
        assertEquals(List.of("no_server_stall"), v.failedRules());
        assertEquals(1_000_000, v.counts().get("max_server_arc_us"), "the think time: the one-way delays are the minimum ones");
        assertTrue(v.explanation().contains("server (or queuing on the way to it"), v.explanation());
    }

    @Test
    void aTimerReSendBothTimersFitIsSaidToBeProbeOrTimeout() {
        HandTrace h = new HandTrace(30, 30).sackPermitted(true);
        double r = h.handshakeAndRequest(30);
        h.s(r).data(1000);
        h.s(r + 0.01).data(1000).lost();       // the tail
        h.c(r + 30.05);                        // its ACK restarts both timers at r + 60.05 (SRTT 60 ms)
        h.s(r + 320).resend(1001, 1000);       // 260 ms on: past SRTT + 200 ms, before the probe's 1.5 SRTT + 200 ms and a quarter
        h.c(r + 350.05).fin();
        h.s(r + 380.1).fin();
        h.c(r + 410.2);
        ConnectionProfile p = Analyzer.defaults().analyze(h.bothSensors()).profile();
        assertEquals(1, p.s2c.tailLossProbes);
        assertEquals(1, p.s2c.probesOrTimeouts);
        String why = Screen.defaults().evaluate(p).explanation();
        assertTrue(why.contains("1 tail probe, 1 of them probe or timeout: the timing fits both"), why);
    }

    @Test
    void thresholdsRuleListsAndCustomRulesComeFromProperties() {
        ConnectionProfile p = thinkingServer();
        assertTrue(Screen.fromProperties(props("no_server_stall.threshold_ms", "200"), null).evaluate(p).boring());
        assertTrue(Screen.fromProperties(props("rules", "no_retransmission,no_timeout"), null).evaluate(p).boring());
        ScreenVerdict custom = Screen.fromProperties(props("rules", "no_retransmission", "custom.fast_start", "first_byte_us < 100000"), null)
                .evaluate(p);
        assertEquals(List.of("fast_start"), custom.failedRules());
        assertTrue(custom.explanation().contains("first_byte_us = 140000 (wanted < 100000)"), custom.explanation());
        // a custom rule may be named in the list too: it is not an unknown rule, and it runs once
        Screen listed = Screen.fromProperties(props("rules", "no_retransmission,fast_start", "custom.fast_start", "first_byte_us < 100000"), null);
        assertEquals(List.of("no_retransmission", "fast_start"), listed.rules().stream().map(ScreenRule::name).toList());
    }

    @Test
    void misconfigurationsGetClearErrors() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Screen.fromProperties(props("rules", "no_such_rule"), null))
                .getMessage().contains("unknown screen rule 'no_such_rule'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Screen.fromProperties(props("custom.x", "bogus_metric > 1"), null))
                .getMessage().contains("unknown metric 'bogus_metric'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Screen.fromProperties(props("custom.x", "duration_us is long"), null))
                .getMessage().contains("expected 'metric op number'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Screen.fromProperties(props("no_server_stall.threshold_ms", "soon"), null))
                .getMessage().contains("must be a number of milliseconds"));
    }

    @Test
    void pluginRulesJoinThroughServiceLoader() {
        Screen s = Screen.defaults();
        assertTrue(s.rules().stream().anyMatch(r -> r.name().equals("plugin_slow_handshake")), "registered in META-INF/services");
        assertFalse(Screen.fromProperties(props("rules", "no_timeout"), null).rules().stream().anyMatch(r -> r.name().startsWith("plugin")),
                "an explicit rule list leaves unlisted plugins out");
    }

    @Test
    void theScoreRanksTimeNotExplainedByPropagation() {
        ConnectionProfile p = thinkingServer();
        ScreenVerdict v = Screen.defaults().evaluate(p);
        assertEquals(p.durationUs() - p.times.get(Category.PROPAGATION), v.scoreUs());
    }
}
