package dev.critpath.core.analysis.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.critpath.core.analysis.ConnectionProfile;
import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.testing.HandTrace;
import org.junit.jupiter.api.Test;

/** Paper 003's burstiness on responses whose every departure is known by construction. */
class BurstinessTest {
    private static ConnectionProfile response(double... departuresMs) {
        HandTrace h = new HandTrace(20, 20);
        double start = h.handshakeAndRequest(20);
        for (double ms : departuresMs) {
            h.s(start + ms).data(1000);
        }
        return Analyzer.defaults().analyze(h.bothSensors()).profile();
    }

    @Test
    void aPacedSenderIsNotBursty() {
        // ten segments 10 ms apart: every byte leaves at the throughput itself
        ConnectionProfile p = response(0, 10, 20, 30, 40, 50, 60, 70, 80, 90);
        assertEquals(0.0, (Double) p.columns().get("burstiness_s2c"));
    }

    @Test
    void twoBackToBackFlightsAreBurstyButForTheSegmentsAfterThePause() {
        // two flights of five segments 10 µs apart, 100 ms between them: of the 9000 bytes after the
        // first segment, 8000 leave at 100 MB/s against a 90 kB/s throughput, 1000 after the pause
        ConnectionProfile p = response(0, 0.01, 0.02, 0.03, 0.04, 100, 100.01, 100.02, 100.03, 100.04);
        assertEquals(8000.0 / 9000, (Double) p.columns().get("burstiness_s2c"), 1e-9);
        assertNull(p.columns().get("burstiness_c2s"), "one request segment: no rate to measure");
    }
}
