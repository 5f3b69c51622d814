package dev.critpath.core.analysis.recipe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.analysis.Category;
import dev.critpath.core.analysis.ConnectionAnalysis;
import dev.critpath.core.analysis.ConnectionProfile;
import dev.critpath.core.analysis.ExchangeProfile;
import dev.critpath.core.analysis.PathArc;
import dev.critpath.core.analysis.PathPrior;
import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.analysis.recipe.SegmentedConnection;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.pcap.PcapEvents;
import dev.critpath.core.screen.ConnectionResult;
import dev.critpath.core.screen.Screen;
import dev.critpath.core.testing.LabFixtures;
import dev.critpath.core.trace.ConnectionSegments;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A keep-alive connection (lab: three requests, server think 20/80/150 ms, the client pausing
 * 30 ms before the 2nd and 3rd) cut into segments where a streaming job would cut it, analysed
 * segment by segment with the state kept between them serialised, as the job keeps it. The quiet
 * period is set below the round trip so that cuts also fall where a response paused for ACKs.
 * Each exchange must come out as the lab's truth has it, and the connection as a whole as if it
 * had been held to the end.
 */
class SegmentedConnectionTest {
    private static final long QUIET_US = 10_000;

    @Test
    void aKeepAliveConnectionAnalysedExchangeByExchange() throws Exception {
        LabFixtures.Scenario lab = LabFixtures.scenario("keepalive-3");
        LabFixtures.Connection truth = lab.connections().get(0);
        ConnectionResult whole = truth.result();
        List<List<PacketEvent>> segments = cutAtQuietPoints(events(lab.dir()));
        assertTrue(segments.size() >= 4, "cut after each response, and where a response paused for a round trip: " + segments.size());
        Analyzer analyzer = Analyzer.defaults();
        SegmentedConnection conn = new SegmentedConnection();
        List<ExchangeProfile> exchanges = new ArrayList<>();
        List<PathArc> arcs = new ArrayList<>();
        for (List<PacketEvent> segment : segments) {
            conn = roundTrip(conn); // what the job's state backend does between segments
            ConnectionAnalysis r = conn.add(analyzer, LabFixtures.oneConnection(segment), PathPrior.NONE);
            exchanges.addAll(r.exchanges());
            arcs.addAll(r.arcs());
            assertEquals(whole.profile().connUid, r.profile().connUid, "every segment's rows name the connection");
        }
        ConnectionResult merged = Screen.defaults().apply(conn.finish());
        exchanges.addAll(merged.exchanges());
        ConnectionProfile p = merged.profile();

        assertEquals(3, exchanges.size());
        for (int i = 0; i < 3; i++) {
            ExchangeProfile x = exchanges.get(i);
            assertEquals(i, x.index());
            long injected = truth.injectedServerDelayUs(i);
            assertEquals(injected, x.times().get(Category.SERVER), 2_000, "exchange " + i + " server time against the lab's think time");
            assertEquals(injected, x.serverThinkUs(), 2_000, "exchange " + i + " server think");
            long bytes = truth.truth().get("exchanges").get(i).get("response_bytes").asLong();
            assertEquals(bytes, x.responseBytes(), "exchange " + i + " response bytes");
            assertEquals(whole.exchanges().get(i).startUs(), x.startUs());
            assertEquals(whole.exchanges().get(i).endUs(), x.endUs(), "a response that paused is one exchange");
            for (Category c : Category.ALL) {
                assertEquals(whole.exchanges().get(i).times().get(c), x.times().get(c), 1_000, "exchange " + i + " " + c.key());
            }
        }
        for (int i = 0; i < arcs.size(); i++) {
            assertEquals(i, arcs.get(i).index(), "arc numbers run on across segments");
            if (i > 0) {
                assertEquals(arcs.get(i - 1).toUs(), arcs.get(i).fromUs(), "the path is unbroken across segments");
            }
        }
        assertEquals(whole.profile().startUs, p.startUs);
        assertEquals(whole.profile().endUs, p.endUs);
        assertEquals(p.durationUs(), p.times.total(), "the segments' times add up to the connection's");
        for (Category c : Category.ALL) {
            assertEquals(whole.profile().times.get(c), p.times.get(c), 0.01 * p.durationUs(), c.key() + " as if held whole");
        }
        assertEquals(whole.profile().c2s.packets, p.c2s.packets, "restarted handshakes are not counted twice");
        assertEquals(whole.profile().s2c.packets, p.s2c.packets);
        assertEquals(whole.profile().s2c.bytes, p.s2c.bytes);
        assertEquals(whole.profile().path.handshakeUs(), p.path.handshakeUs());
        assertEquals(3, p.path.exchanges());
        assertEquals(whole.profile().pie.clientUs(), p.pie.clientUs(), 2_000, "the two-capture pie of the whole");
        assertEquals(whole.profile().pie.serverUs(), p.pie.serverUs(), 2_000);
        assertTrue(p.quality.closed());
        assertFalse(p.quality.midStream());
        assertEquals(whole.verdict().boring(), merged.verdict().boring());
    }

    @Test
    void noCutInsideAnExchangeOrBeforeItIsAcknowledged() throws Exception {
        List<PacketEvent> all = events(LabFixtures.scenario("keepalive-3").dir());
        int firstRequest = indexOf(all, e -> e.isOrig() && e.len() > 0);
        int firstResponse = indexOf(all, e -> !e.isOrig() && e.len() > 0);
        assertFalse(ConnectionSegments.canCutAfter(all.subList(0, firstResponse)), "request sent, no answer yet");
        assertFalse(ConnectionSegments.canCutAfter(all.subList(0, firstResponse + 1)), "response not yet acknowledged");
        assertFalse(ConnectionSegments.canCutAfter(all), "closed");
        assertTrue(firstRequest < firstResponse);
    }

    /** Both sensors' events in time order (the lab's sensors share a clock). */
    private static List<PacketEvent> events(Path dir) throws Exception {
        List<PacketEvent> all = new ArrayList<>(PcapEvents.readAll(dir.resolve("client.pcap"), "client-side", SensorRole.CLIENT));
        all.addAll(PcapEvents.readAll(dir.resolve("server.pcap"), "server-side", SensorRole.SERVER));
        all.sort(Comparator.comparingLong(PacketEvent::tsUs));
        return all;
    }

    /** What the streaming job does: at each quiet point where the connection can be cut, emit and restart. */
    private static List<List<PacketEvent>> cutAtQuietPoints(List<PacketEvent> all) {
        List<List<PacketEvent>> segments = new ArrayList<>();
        List<PacketEvent> held = new ArrayList<>();
        for (PacketEvent e : all) {
            boolean quiet = !held.isEmpty() && e.tsUs() - held.get(held.size() - 1).tsUs() >= QUIET_US;
            if (quiet && ConnectionSegments.canCutAfter(held)) {
                segments.add(held);
                held = new ArrayList<>(ConnectionSegments.restartedHandshake(held));
                assertEquals(4, held.size(), "SYN and SYN/ACK as each sensor saw them");
            }
            held.add(e);
        }
        segments.add(held);
        return segments;
    }

    private static SegmentedConnection roundTrip(SegmentedConnection c) {
        byte[] state = c.toBytes();
        assertTrue(state.length < 1_000, "an idle long-lived connection's running profile in under 1 KB: " + state.length);
        return SegmentedConnection.fromBytes(state);
    }

    private static int indexOf(List<PacketEvent> all, java.util.function.Predicate<PacketEvent> p) {
        for (int i = 0; i < all.size(); i++) {
            if (p.test(all.get(i))) {
                return i;
            }
        }
        throw new AssertionError("no such event");
    }
}
