package dev.critpath.core.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.pcap.PcapEvents;
import dev.critpath.core.testing.LabFixtures;
import dev.critpath.core.testing.Repo;
import dev.critpath.core.trace.ConnectionTrace;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Asymmetric routing at the server site: its sensor sees the client's packets but not the
 * server's answers, so the connection cannot estimate the sensors' clock offset (lab truth:
 * +1.5 s) nor the server-to-client delay. The sensor pair's offset and the path's delays from an
 * earlier, complete connection put both right.
 */
class SensorPairClockTest {
    private static final long INJECTED_OFFSET_US = 1_500_000;

    @Test
    void aConnectionSeenOneWayAtASiteTakesTheSensorPairsOffset() throws Exception {
        Path lab = Repo.testdata("lab/clock-offset");
        List<PacketEvent> client = PcapEvents.readAll(lab.resolve("client.pcap"), "lab-client", SensorRole.CLIENT);
        List<PacketEvent> server = PcapEvents.readAll(lab.resolve("server.pcap"), "lab-server", SensorRole.SERVER);
        ConnectionAnalysis complete = Analyzer.defaults().analyze(LabFixtures.oneConnection(client, server));
        assertTrue(complete.profile().timing.clockOffsetReliable());
        ClockHint pair = new ClockHint(complete.profile().timing.clockOffsetUs(), complete.profile().timing.clockOffsetUncertaintyUs());

        ConnectionTrace oneWay = LabFixtures.oneConnection(client, server.stream().filter(PacketEvent::isOrig).toList());
        ConnectionProfile.Timing guessed = Analyzer.defaults().analyze(oneWay).profile().timing;
        assertFalse(guessed.clockOffsetReliable());
        assertTrue(Math.abs(guessed.clockOffsetUs() - INJECTED_OFFSET_US) > 10_000, "on its own it can only guess: " + guessed);

        // what the streaming job knows of the path from the complete connection: its offset and minimum delays
        ConnectionProfile.Timing path = complete.profile().timing;
        ConnectionAnalysis hinted = Analyzer.defaults().analyze(oneWay, new PathPrior(path.minOwdC2sUs(), path.minOwdS2cUs(), pair));
        ConnectionProfile.Timing t = hinted.profile().timing;
        assertTrue(t.clockOffsetFromPair());
        assertEquals(INJECTED_OFFSET_US, t.clockOffsetUs(), 1_000, "within 1 ms of the injected offset");
        assertEquals(complete.profile().durationUs(), hinted.profile().durationUs(), "the client's view is unchanged");
        assertEquals(complete.profile().times.get(Category.PROPAGATION), hinted.profile().times.get(Category.PROPAGATION),
                0.05 * complete.profile().times.get(Category.PROPAGATION), "propagation as with both directions seen");
    }
}
