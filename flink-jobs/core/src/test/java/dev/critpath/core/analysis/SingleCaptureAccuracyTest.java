package dev.critpath.core.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.critpath.core.screen.ConnectionResult;
import dev.critpath.core.testing.AccuracyTable;
import dev.critpath.core.testing.LabFixtures;
import dev.critpath.core.testing.LabFixtures.Connection;
import dev.critpath.core.testing.LabFixtures.Scenario;
import dev.critpath.core.testing.Skipped;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.function.Executable;

/**
 * Every lab connection analysed from one capture, as a fleet mostly sees it, held to the lab's
 * truth: the local host's time as two captures measure it, the remote end's merged category at
 * least what the remote host spent, propagation within 5% of the configured delays and never
 * more than two captures find, the kernels' loss counters, and causality: every remote reply's
 * trigger reached the remote host before the reply left it, checked in the other capture.
 */
class SingleCaptureAccuracyTest {
    private static final long MS = 1000;
    /**
     * How closely one capture can order the remote host's events: its times there are the local
     * ones shifted by the minimum one-way delay, and the lab path's delay varies by about this much
     * (the delay line's scheduling, the remote kernel's reaction), which no single capture resolves.
     */
    private static final long REMOTE_RESOLUTION_US = 200;

    /**
     * Checks that still fail, each with why (docs/accuracy.md): mode/scenario/client port/check.
     * Each is asserted to fail, so a fix that closes one must take it off this list. OneCaptureCeilingTest
     * shows on the raw packets that the capture alone allows no better.
     */
    private static final Map<String, String> KNOWN_GAPS = Map.ofEntries(
            Map.entry("server_side/jitter/54692/propagation", "up to 10 ms of jitter each way, a packet never overtaking the one before: each way's least, timed apart by the client's stamps, adds up to 44.4 ms against two captures' 41.6 ms (no quicker way there shows in stamps of packets the path holds behind the first of their burst): 7 % over"),
            Map.entry("server_side/slow-uplink/42150/loss", "the client's FIN lost in the uplink queue and re-sent by its timer: the server's capture sees one FIN, whose IP id gap and 275 ms timestamp gap a late close would show too"),
            Map.entry("client_side/jitter/54692/propagation", "the same jitter: each way's least, timed apart by the server's 1 ms stamps, adds up to 42.2 ms against two captures' 41.6 ms: 1.4 % over"),
            Map.entry("client_side/slow-uplink/42150/propagation", "the least round trip one capture sees pairs a 66-byte ACK with a full-size segment (0.6 ms of serialisation at 20 Mbit/s), and timing the ways apart by the server's 1 ms stamps does no better: the ACKs reach it 8.25 ms apart, so their rounding never cancels (0.8 ms): 1.3 % more than two captures, which time each way by its smallest packets"));

    @TestFactory
    Stream<DynamicNode> everyScenarioFromEachCaptureAlone() {
        List<Scenario> scenarios = LabFixtures.all();
        if (scenarios.isEmpty()) {
            return Skipped.because("no lab fixtures under testdata/lab");
        }
        return Stream.of(CaptureMode.SERVER_SIDE, CaptureMode.CLIENT_SIDE).map(mode -> DynamicContainer.dynamicContainer(mode.key(),
                scenarios.stream().map(two -> {
                    Scenario one = LabFixtures.load(two.dir(), mode);
                    return DynamicContainer.dynamicContainer(two.name(), one.connections().stream().map(c -> DynamicContainer.dynamicContainer(
                            "port " + c.clientPort(), checks(two, one, c, twin(two, c)))));
                })));
    }

    /** Renders docs/accuracy.md's single-capture table from the same analyses (target/accuracy-single.md) and checks the docs carry it. */
    @Test
    void writesTheSingleCaptureTable() throws java.io.IOException {
        List<Scenario> all = LabFixtures.all();
        assumeTrue(!all.isEmpty(), "no lab fixtures");
        String table = AccuracyTable.singleCapture(all, (s, mode) -> LabFixtures.load(s.dir(), mode));
        assertTrue(table.contains("| fast-retransmit | server side |") && table.contains("| fast-retransmit | client side |"), table);
        AccuracyTable.writeAndCheckDocs(table, "accuracy-single.md");
    }

    private static Connection twin(Scenario twoPoint, Connection single) {
        return twoPoint.connections().stream().filter(c -> c.clientPort() == single.clientPort()).findFirst().orElseThrow();
    }

    private static Stream<DynamicNode> checks(Scenario s, Scenario single, Connection c, Connection both) {
        CaptureMode mode = single.mode();
        ConnectionProfile p = c.result().profile();
        ConnectionProfile p2 = both.result().profile();
        Endpoint remote = mode.unwatched();
        Category local = remote == Endpoint.CLIENT ? Category.SERVER : Category.CLIENT;
        Category remoteOwn = remote == Endpoint.CLIENT ? Category.CLIENT : Category.SERVER;
        Category merged = remote == Endpoint.CLIENT ? Category.CLIENT_OR_QUEUING : Category.SERVER_OR_QUEUING;
        Checks t = new Checks(mode.key() + "/" + s.name() + "/" + c.clientPort() + "/");
        t.add("side", "the capture's side and no invented split", () -> {
            assertEquals(mode, p.mode);
            assertEquals(0, p.times.get(Category.QUEUING) + p.times.get(remoteOwn), "one capture cannot split " + p.times);
            assertEquals(p.durationUs(), p.times.total(), p.times.toString());
        });
        t.add("local", "local host time as two captures measure it", () -> {
            long one = p.times.get(local);
            long two = p2.times.get(local);
            assertTrue(Math.abs(one - two) <= Math.max(MS, two / 20), local.key() + " " + one + " us alone, " + two + " us with both captures");
        });
        t.add("remote", "the remote category holds at least what the remote host spent", () -> {
            long truth = AccuracyTable.remoteSpentUs(c, remote == Endpoint.SERVER);
            long got = p.times.get(merged);
            long tolerance = Math.max(2 * MS, truth / 20);
            assertTrue(got >= truth - tolerance, merged.key() + " " + got + " us, the remote host spent " + truth + " us");
            if (unshaped(s)) {
                long ceiling = truth + tolerance + remoteSlackUs(c, both, remote);
                assertTrue(got <= ceiling, merged.key() + " " + got + " us on an unshaped path, the remote host spent " + truth
                        + " us (at most " + ceiling + " us with what the kernel adds)");
            }
        });
        t.add("propagation", "propagation within 5% of the configured delays, never above two captures' figure", () -> {
            long expected = both.expectedPropagationUs(); // the rounds two captures find, each checked against the lab's delays
            long got = p.times.get(Category.PROPAGATION);
            long twoPoint = p2.times.get(Category.PROPAGATION);
            assertTrue(Math.abs(got - expected) <= expected * 0.05, "propagation " + got + " us, expected " + expected + " us");
            assertTrue(got <= twoPoint + twoPoint / 100, "propagation " + got + " us alone, " + twoPoint + " us with both captures");
        });
        t.add("loss", "every drop classified as the kernels recovered it", () -> {
            JsonNode k = c.truth().get("kernel");
            LabAccuracyTest.assertRecovery("server", p.s2c, k.get("server"));
            LabAccuracyTest.assertRecovery("client", p.c2s, k.get("client"));
        });
        t.add("think", "the first response's server think time as the lab logged it (from the client: or queuing, on shaped paths)",
                () -> LabAccuracyTest.assertServerThink(c, p, mode == CaptureMode.SERVER_SIDE || unshaped(s)));
        t.add("causality", "every remote reply on the path left after its trigger reached the remote host (to 200 us)", () -> {
            List<String> acausal = acausalRemoteArcs(c.result(), both.result(), remote);
            assertTrue(acausal.isEmpty(), acausal.size() + " remote arcs whose trigger had not arrived: " + acausal);
        });
        return t.tests.stream().map(d -> d);
    }

    /** One connection's checks, a known gap among them asserted to still fail. */
    private static final class Checks {
        final String prefix;
        final List<DynamicTest> tests = new ArrayList<>();

        Checks(String prefix) {
            this.prefix = prefix;
        }

        void add(String id, String name, Executable check) {
            String gap = KNOWN_GAPS.get(prefix + id);
            if (gap == null) {
                tests.add(DynamicTest.dynamicTest(name, check));
            } else {
                tests.add(DynamicTest.dynamicTest(name + " (known gap: " + gap + ")", () -> assertThrows(AssertionError.class, check,
                        prefix + id + " holds now: take it off KNOWN_GAPS and out of docs/accuracy.md")));
            }
        }
    }

    /**
     * Lab paths with neither a rate limit (the delay line's or the server's own link) nor jitter:
     * the remote category is the remote host's time alone.
     */
    private static boolean unshaped(Scenario s) {
        JsonNode cfg = s.truth().get("config");
        return cfg.get("rate_kbit").get("c2s").isNull() && cfg.get("rate_kbit").get("s2c").isNull() && cfg.path("server_link_kbit").asLong() == 0
                && cfg.get("jitter_us").get("c2s").asLong() == 0 && cfg.get("jitter_us").get("s2c").asLong() == 0;
    }


    /**
     * What the merged category may hold beyond the remote host's logged time: what the remote
     * host's kernel and program add that no lab log pins down (the server's send windows and 100 µs
     * per remote arc for its reaction to each packet; the client's ACK timer and reading, as two
     * captures measure them) and the queuing two captures measure on the path.
     */
    private static long remoteSlackUs(Connection single, Connection both, Endpoint remote) {
        long arcs = single.result().arcs().stream().filter(a -> a.kind() == PathArc.Kind.HOST && a.endpoint() == remote).count();
        long slack = 100 * arcs + both.result().profile().times.get(Category.QUEUING);
        if (remote == Endpoint.SERVER) {
            for (int i = 0; i < single.truth().get("exchanges").size(); i++) {
                slack += single.serverSendWindowsUs(i);
            }
        } else {
            slack += both.result().profile().times.get(Category.CLIENT);
        }
        return slack;
    }

    /** A packet as a sensor stamped it: which sensor, its own clock, and what it carried. */
    private record Sighting(String sensor, long sensorTimeUs, Direction direction, long seq, long ack, int len, String flags) {
        static Sighting of(PacketSighting s) {
            return new Sighting(s.sensor(), s.sensorTimeUs(), s.direction(), s.seq(), s.ack(), s.len(), s.flags());
        }
    }

    /**
     * Host arcs at the remote end whose trigger (the event before them on the path) did not reach
     * the remote host before the reply left it, as the remote host's own sensor saw both packets.
     */
    private static List<String> acausalRemoteArcs(ConnectionResult single, ConnectionResult both, Endpoint remote) {
        Map<Integer, PacketSighting> seenAlone = new HashMap<>();
        single.analysis().packets().sightings().forEach(s -> seenAlone.put(s.txIndex(), s));
        Map<Sighting, Integer> bothTx = new HashMap<>();
        Map<Integer, List<PacketSighting>> bothSightings = new HashMap<>();
        for (PacketSighting s : both.analysis().packets().sightings()) {
            bothTx.put(Sighting.of(s), s.txIndex());
            bothSightings.computeIfAbsent(s.txIndex(), k -> new ArrayList<>()).add(s);
        }
        String remoteSensor = remote == Endpoint.CLIENT ? "client-side" : "server-side";
        List<PathArc> arcs = single.arcs();
        List<String> out = new ArrayList<>();
        for (int i = 1; i < arcs.size(); i++) {
            PathArc a = arcs.get(i);
            if (a.kind() != PathArc.Kind.HOST || a.endpoint() != remote) {
                continue;
            }
            PathArc before = arcs.get(i - 1);
            long trigger = atRemote(before.txIndex(), seenAlone, bothTx, bothSightings, remoteSensor);
            long reply = atRemote(a.txIndex(), seenAlone, bothTx, bothSightings, remoteSensor);
            if (trigger == Long.MIN_VALUE || reply == Long.MIN_VALUE || trigger > reply + REMOTE_RESOLUTION_US) {
                out.add(String.format("arc %d: %s %s seq %d ack %d at %s after %s seq %d at %s", a.index(), a.direction().key(), a.flags(), a.seq(), a.ack(),
                        reply == Long.MIN_VALUE ? "never seen" : reply, before.flags(), before.seq(), trigger == Long.MIN_VALUE ? "never seen" : trigger));
            }
        }
        return out;
    }

    /** When the remote host's sensor saw this single-capture transmission, or MIN_VALUE if it never did. */
    private static long atRemote(int txAlone, Map<Integer, PacketSighting> seenAlone, Map<Sighting, Integer> bothTx,
            Map<Integer, List<PacketSighting>> bothSightings, String remoteSensor) {
        PacketSighting local = seenAlone.get(txAlone);
        Integer tx = local == null ? null : bothTx.get(Sighting.of(local));
        if (tx == null) {
            return Long.MIN_VALUE;
        }
        return bothSightings.get(tx).stream().filter(s -> s.sensor().equals(remoteSensor)).mapToLong(PacketSighting::sensorTimeUs).min()
                .orElse(Long.MIN_VALUE);
    }
}
