package dev.critpath.core.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.critpath.core.screen.ConnectionResult;
import dev.critpath.core.testing.LabFixtures.Connection;
import dev.critpath.core.testing.LabFixtures.Scenario;
import dev.critpath.core.testing.LabFixtures;
import dev.critpath.core.testing.Skipped;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * critpath against the trace lab's ground truth (testdata/lab, real Linux connections with
 * injected delays and drops): what the programs executed, what the delay line dropped, what the
 * kernels counted. Criteria from the trace-lab issue; the measured table is docs/accuracy.md.
 */
class LabAccuracyTest {
    private static final long MS = 1000;

    @TestFactory
    Stream<DynamicNode> everyScenarioAgreesWithItsTruth() {
        List<Scenario> scenarios = LabFixtures.all();
        if (scenarios.isEmpty()) {
            return Skipped.because("no lab fixtures under testdata/lab");
        }
        return scenarios.stream().map(s -> DynamicContainer.dynamicContainer(s.name(),
                s.connections().stream().map(c -> DynamicContainer.dynamicContainer("port " + c.clientPort(), checks(s, c)))));
    }

    static Stream<DynamicNode> checks(Scenario s, Connection c) {
        List<DynamicNode> t = new ArrayList<>();
        ConnectionProfile p = c.result().profile();
        t.add(DynamicTest.dynamicTest("categories add up to the client-observed duration", () -> {
            assertEquals(c.truth().get("capture").get("client_observed_duration_us").asLong(), p.durationUs());
            assertEquals(p.durationUs(), p.times.total(), p.times.toString());
        }));
        t.add(DynamicTest.dynamicTest("clock offset recovered within 1 ms", () -> {
            // unsynchronised clocks cannot tell an offset from path asymmetry: minimum filtering
            // assumes equal minimum delays and is off by half their difference (asym-delay, and a
            // slow uplink's serialisation of each ACK)
            long injected = s.truth().get("config").get("server_clock_offset_us").asLong();
            long asymmetry = (c.pathDelayUs(Direction.C2S) - c.pathDelayUs(Direction.S2C)) / 2;
            assertTrue(Math.abs(p.timing.clockOffsetUs() - (injected + asymmetry)) <= MS,
                    "estimated " + p.timing.clockOffsetUs() + " us, injected " + injected + " us, path asymmetry bias " + asymmetry + " us");
        }));
        t.add(DynamicTest.dynamicTest("propagation within 5% of the path's one-way delay times the crossings on the path", () -> {
            long expected = c.expectedPropagationUs();
            long got = p.times.get(Category.PROPAGATION);
            assertTrue(Math.abs(got - expected) <= expected * 0.05, "propagation " + got + " us, expected " + expected + " us");
        }));
        t.add(DynamicTest.dynamicTest("server time, its own link's serialisation apart, within max(2 ms, 5%) of the executed server delay", () -> {
            for (int i = 0; i < c.result().exchanges().size(); i++) {
                ExchangeProfile x = c.result().exchanges().get(i);
                long injected = c.injectedServerDelayUs(i);
                long sends = c.serverSendWindowsUs(i);
                long link = Math.max(0, x.costs().serverLinkUs());
                long got = x.times().get(Category.SERVER) - link;
                long tolerance = Math.max(2 * MS, injected / 20);
                // each server arc on the path also holds the kernel's reaction to an ACK (tens of
                // µs), which no program can inject or log: allow 100 µs per arc on top
                long stack = 100 * serverArcsWithin(c.result(), x);
                assertTrue(got >= injected - tolerance && got <= injected + sends + tolerance + stack,
                        "exchange " + i + ": server " + got + " us on the path (its link's " + link + " us apart), injected " + injected + " us plus up to "
                                + sends + " us in its send calls (tolerance " + tolerance + " + " + stack + " for the stack)");
            }
        }));
        t.add(DynamicTest.dynamicTest("lost between the sensors: every packet the delay line dropped, pure ACKs apart", () -> {
            long acks = 0;
            for (JsonNode d : c.truth().get("drops")) {
                acks += "ack".equals(d.get("kind").asText()) ? 1 : 0;
            }
            assertEquals(c.truth().get("drops").size(), p.quality.lostBetweenSensors(), "packets lost between the sensors");
            assertEquals(acks, p.quality.acksLostBetweenSensors(), "pure ACKs lost between the sensors");
        }));
        t.add(DynamicTest.dynamicTest("server think time within max(2 ms, 5%) of the lab's request arrival to first byte", () -> assertServerThink(c, p, true)));
        t.add(DynamicTest.dynamicTest("every drop classified as the kernel recovered it", () -> {
            JsonNode server = c.truth().get("kernel").get("server");
            JsonNode client = c.truth().get("kernel").get("client");
            assertRecovery("server", p.s2c, server);
            assertRecovery("client", p.c2s, client);
        }));
        return t.stream();
    }

    /**
     * The first exchange's server think time against the server's log (request complete to first
     * response byte, the re-sent copy's arrival when the first was lost); {@code atMost} false
     * where the figure may hold queuing too (from the client's capture, on a shaped path).
     */
    static void assertServerThink(Connection c, ConnectionProfile p, boolean atMost) {
        JsonNode x = c.truth().get("exchanges").get(0);
        long truth = x.get("first_byte_ts_us").asLong() - x.get("request_arrival_ts_us").asLong();
        long got = p.path.serverThinkUs();
        long tolerance = Math.max(2 * MS, truth / 20);
        assertTrue(got >= truth - tolerance && (!atMost || got <= truth + tolerance), "server think " + got + " us, the lab logged " + truth + " us");
    }

    private static long serverArcsWithin(ConnectionResult r, ExchangeProfile x) {
        return r.arcs().stream().filter(a -> a.category() == Category.SERVER && a.toUs() > x.startUs() && a.fromUs() < x.endUs()).count();
    }

    /**
     * The sender's loss recovery as its kernel counted it (nstat deltas around the connection). A
     * re-send critpath calls "probe or timeout" (a tail loss probe whose timing an RTO fits too:
     * Linux fires the probe no later than the RTO) may be either in the kernel's counts.
     */
    static void assertRecovery(String side, DirectionStats d, JsonNode k) {
        String where = side + " sender: ";
        assertEquals(k.get("TcpExtTCPFastRetrans").asLong(), d.fastRetransmits, where + "fast retransmits");
        long kernelTimeouts = k.get("TcpExtTCPTimeouts").asLong();
        long kernelProbes = k.get("TcpExtTCPLossProbes").asLong();
        assertEquals(kernelTimeouts + kernelProbes, d.timeouts + d.backoffs + d.tailLossProbes, where + "timer expiries, probes included");
        assertTrue(kernelTimeouts >= d.timeouts + d.backoffs && kernelTimeouts <= d.timeouts + d.backoffs + d.probesOrTimeouts,
                where + "retransmission timer expiries: kernel " + kernelTimeouts + ", critpath " + (d.timeouts + d.backoffs)
                        + " and " + d.probesOrTimeouts + " probe(s) or timeout(s)");
        assertEquals(k.get("TcpExtTCPSlowStartRetrans").asLong(), d.slowStartRetransmits, where + "re-sends after a timeout");
        assertEquals(k.get("TcpRetransSegs").asLong(), d.retransmissions, where + "retransmitted segments");
    }

    /** Renders docs/accuracy.md's table from the same analysis (target/accuracy.md) and checks the docs carry it. */
    @Test
    void writesTheAccuracyTable() throws java.io.IOException {
        List<Scenario> all = LabFixtures.all();
        assumeTrue(!all.isEmpty(), "no lab fixtures");
        String table = dev.critpath.core.testing.AccuracyTable.markdown(all);
        assertTrue(table.contains("| fast-retransmit |") && table.contains("random-batch"), table);
        dev.critpath.core.testing.AccuracyTable.writeAndCheckDocs(table, "accuracy.md");
    }

    @Test
    void backoffScenarioHasOneTimeoutThenOneBackoff() {
        Connection c = LabFixtures.scenario("backoff").connections().get(0);
        DirectionStats s2c = c.result().profile().s2c;
        assertEquals(1, s2c.timeouts);
        assertEquals(1, s2c.backoffs);
        assertTrue(c.result().profile().times.get(Category.LOSS_BACKOFF) > c.result().profile().times.get(Category.LOSS_TIMEOUT),
                "the backed-off timer waits longer than the first");
    }

    @Test
    void zeroWindowEpisodesMatchTheReceiversKernelAndTheReaderDominates() {
        Connection c = LabFixtures.scenario("zero-window").connections().get(0);
        ConnectionProfile p = c.result().profile();
        assertEquals(c.truth().get("kernel").get("client").get("TcpExtTCPToZeroWindowAdv").asLong(), p.s2c.zeroWindowEpisodes);
        assertTrue(p.times.get(Category.CLIENT) > p.durationUs() / 2, "the slow reader is the bottleneck: " + p.times);
        assertTrue(c.result().verdict().failedRules().contains("never_rwnd_limited"));
    }

    @Test
    void bottleneckQueueShowsAsQueuingAndTheSlowUplinkAsLostAcks() {
        ConnectionProfile queue = LabFixtures.scenario("bottleneck-4mbit").connections().get(0).result().profile();
        assertTrue(queue.times.get(Category.QUEUING) > queue.durationUs() / 2, "a 400 KB queue at 4 Mbit/s: " + queue.times);
        ConnectionProfile uplink = LabFixtures.scenario("slow-uplink").connections().get(0).result().profile();
        assertTrue(uplink.times.get(Category.QUEUING) > 100 * MS, "ACKs queue on the 64 kbit/s uplink: " + uplink.times);
        for (String scenario : List.of("slow-uplink", "uplink-ack-loss")) {
            Connection c = LabFixtures.scenario(scenario).connections().get(0);
            long dropped = 0;
            for (JsonNode d : c.truth().get("drops")) {
                dropped += "ack".equals(d.get("kind").asText()) ? 1 : 0;
            }
            assertTrue(dropped >= 10, scenario + ": the uplink's queue dropped " + dropped + " pure ACKs");
            assertEquals(dropped, c.result().profile().quality.acksLostBetweenSensors(), scenario + ": pure ACKs lost between the sensors");
        }
    }

    @Test
    void randomBatchServerDelaysCorrelateAbove099() {
        Scenario batch = LabFixtures.scenario("random-batch");
        List<double[]> pairs = new ArrayList<>();
        for (Connection c : batch.connections()) {
            pairs.add(new double[] {c.injectedServerDelayUs(0), c.result().exchanges().get(0).times().get(Category.SERVER)});
        }
        assertTrue(pairs.size() >= 40, "the batch has about 40 connections");
        double r = LabFixtures.pearson(pairs);
        assertTrue(r > 0.99, "correlation of injected and measured server delay " + r);
    }
}
