package dev.critpath.core.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.analysis.ConnectionAnalysis;
import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.TcpFlags;
import dev.critpath.core.testing.HandTrace;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Connection instances: the pitfalls of splitting one connection in several, or merging two. */
class ConnectionAssemblerTest {
    private static HandTrace transfer(double startMs, long clientIsn) {
        HandTrace h = new HandTrace(10, 10).startingAtMs(startMs).isns(clientIsn, 777_000);
        h.c(0).syn();
        h.s(10).syn();
        h.c(20).data(50);
        h.s(30).data(500).fin();
        h.c(40).fin();
        h.s(50);
        return h;
    }

    private static List<ConnectionTrace> assemble(List<PacketEvent> events) {
        ConnectionAssembler as = new ConnectionAssembler();
        events.forEach(as::add);
        return as.connections();
    }

    @Test
    void aReusedPortPairAfterACloseIsASecondConnection() {
        List<PacketEvent> both = new ArrayList<>(transfer(0, 1000).clientCapture());
        both.addAll(transfer(5_000, 900_000).clientCapture());
        List<ConnectionTrace> conns = assemble(both);
        assertEquals(2, conns.size());
        assertEquals(conns.get(0).communityId(), conns.get(1).communityId());
        Analyzer a = Analyzer.defaults();
        assertTrue(!a.analyze(conns.get(0)).profile().connUid.equals(a.analyze(conns.get(1)).profile().connUid), "distinct uids");
    }

    @Test
    void retransmittedSynsSynAcksWithAnotherIsnAndFinsStayOneConnection() {
        HandTrace h = new HandTrace(10, 10);
        h.c(0).syn();
        h.s(10).syn().lost();              // the first SYN/ACK is lost
        h.c(1000).syn();                   // SYN re-sent by the timer, same ISN
        h.s(1010).syn();
        h.c(1020).data(50);
        h.s(1030).data(500).fin();
        h.c(1040).fin().lost();
        h.c(1240).resend(51, 0).fin();     // FIN re-sent
        h.s(1250);
        List<PacketEvent> events = new ArrayList<>(h.clientCapture());
        // a SYN/ACK re-sent with another ISN (seen with SYN cookies and some load balancers)
        PacketEvent synAck = events.stream().filter(e -> e.hasFlag(TcpFlags.SYN) && e.hasFlag(TcpFlags.ACK)).findFirst().orElseThrow();
        events.add(new PacketEvent(synAck.sensor(), synAck.sensorRole(), synAck.tsUs() + 2, synAck.communityId(), synAck.origH(),
                synAck.origP(), synAck.respH(), synAck.respP(), false, synAck.flags(), 123_456_789L, synAck.ack(), 0, synAck.win(),
                synAck.wscale(), synAck.mss(), synAck.sackOk(), null, -1, -1, synAck.ipId() + 1, synAck.ttl(), PacketEvent.ABSENT));
        List<ConnectionTrace> conns = assemble(events);
        assertEquals(1, conns.size());
        ConnectionAnalysis r = Analyzer.defaults().analyze(conns.get(0));
        assertEquals(500, r.profile().s2c.bytes, "the sequence space follows the SYN/ACK the client acknowledged");
        assertEquals(2, r.profile().c2s.timeouts, "the SYN and the FIN, both re-sent by the timer");
        assertEquals(2, r.profile().c2s.retransmissions, "SYN and FIN re-sends");
        assertEquals(r.profile().durationUs(), r.profile().times.total());
    }

    @Test
    void twoSensorsArePairedPerInstanceWhateverTheirClockOffset() {
        List<PacketEvent> events = new ArrayList<>();
        for (HandTrace h : List.of(transfer(0, 1000).serverClockOffsetMs(-3_000), transfer(60_000, 5_000_000).serverClockOffsetMs(-3_000))) {
            events.addAll(h.clientCapture());
            events.addAll(h.serverCapture());
        }
        List<ConnectionTrace> conns = assemble(events);
        assertEquals(2, conns.size());
        for (ConnectionTrace t : conns) {
            assertEquals(2, t.captures().size(), "both sensors' packets of the same instance");
            ConnectionAnalysis r = Analyzer.defaults().analyze(t);
            assertEquals(-3_000_000, r.profile().timing.clockOffsetUs());
        }
    }

    @Test
    void aConnectionCaughtMidStreamIsStillAnalysed() {
        List<PacketEvent> events = new ArrayList<>(transfer(0, 1000).clientCapture());
        events.removeIf(e -> e.hasFlag(TcpFlags.SYN));
        List<ConnectionTrace> conns = assemble(events);
        assertEquals(1, conns.size());
        ConnectionAnalysis r = Analyzer.defaults().analyze(conns.get(0));
        assertTrue(r.profile().quality.midStream());
        assertEquals(r.profile().durationUs(), r.profile().times.total());
    }
}
