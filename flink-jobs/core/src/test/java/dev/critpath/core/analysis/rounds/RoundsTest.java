package dev.critpath.core.analysis.rounds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.analysis.PathArc;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.event.TcpFlags;
import dev.critpath.core.testing.HandTrace;
import dev.critpath.core.testing.Steps;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The dependence graph alone: which event released each event, on hand-built connections, on and off the critical path. */
class RoundsTest {
    private static Tx only(List<Tx> txs, java.util.function.Predicate<Tx> which) {
        List<Tx> found = txs.stream().filter(which).toList();
        assertEquals(1, found.size(), found.toString());
        return found.get(0);
    }

    private static void assertParent(Rounds r, int node, int parent, PathArc.Kind kind) {
        assertEquals(parent, r.parent(node), () -> r.tx(node) + " depends on " + (r.parent(node) < 0 ? "nothing" : r.tx(r.parent(node))));
        assertEquals(kind, r.arcKind(node));
    }

    @Test
    void aRequestAndItsResponseAreEachReleasedByWhatCameBefore() {
        Steps s = Steps.run(HandTrace.smallTransfer(30, 30).bothSensors());
        Rounds r = s.rounds();
        List<Tx> txs = s.timeline().txs;
        Tx syn = only(txs, t -> t.has(TcpFlags.SYN) && !t.has(TcpFlags.ACK));
        Tx synAck = only(txs, t -> t.has(TcpFlags.SYN) && t.has(TcpFlags.ACK));
        Tx request = only(txs, t -> t.c2s() && t.p.len == 100);
        Tx response = only(txs, t -> !t.c2s() && t.p.len == 1000);
        Tx clientFin = only(txs, t -> t.c2s() && t.has(TcpFlags.FIN));
        Tx lastAck = txs.get(txs.size() - 1);

        assertParent(r, Rounds.dep(syn.idx()), Rounds.NO_NODE, null);
        for (Tx t : txs) {
            assertParent(r, Rounds.arr(t.idx()), Rounds.dep(t.idx()), PathArc.Kind.NETWORK);
        }
        assertParent(r, Rounds.dep(synAck.idx()), Rounds.arr(syn.idx()), PathArc.Kind.HOST);
        assertParent(r, Rounds.dep(request.idx()), Rounds.arr(synAck.idx()), PathArc.Kind.HOST);
        assertParent(r, Rounds.dep(response.idx()), Rounds.arr(request.idx()), PathArc.Kind.HOST);
        assertParent(r, Rounds.dep(clientFin.idx()), Rounds.arr(response.idx()), PathArc.Kind.HOST);
        assertParent(r, Rounds.dep(lastAck.idx()), Rounds.arr(clientFin.idx()), PathArc.Kind.HOST);
    }

    @Test
    void eachAckAnswersTheSegmentThatArrivedLastAndNewDataItsLiberatingAck() {
        HandTrace h = new HandTrace(30, 30);
        double r0 = h.handshakeAndRequest(30);
        h.responseAckedEach(r0, 10, 0);
        h.s(r0 + 60.2).data(1000);            // after the first ACKs: released by one of them
        Steps s = Steps.run(h.bothSensors());
        Rounds r = s.rounds();
        List<Tx> txs = s.timeline().txs;
        List<Tx> segments = txs.stream().filter(t -> !t.c2s() && t.p.len == 1000).toList();
        List<Tx> acks = txs.stream().filter(t -> t.c2s() && t.p.len == 0 && t.dep() > segments.get(0).arr()).toList();
        assertEquals(10, acks.size());
        for (int i = 0; i < 10; i++) {
            assertParent(r, Rounds.dep(acks.get(i).idx()), Rounds.arr(segments.get(i).idx()), PathArc.Kind.HOST);
        }
        Tx eleventh = segments.get(10);
        int liberator = s.senders().marks().liberator(eleventh);
        assertEquals(true, acks.stream().anyMatch(a -> a.idx() == liberator), "an ACK of the response released it");
        assertParent(r, Rounds.dep(eleventh.idx()), Rounds.arr(liberator), PathArc.Kind.HOST);
    }

    @Test
    void aTimerReSendDependsOnTheLostCopy() {
        HandTrace h = new HandTrace(30, 30);
        h.handshakeAndRequest(30);
        h.s(110.1).data(1000).lost();
        h.s(410.1).resend(1, 1000);
        h.c(440.2).fin();
        Steps s = Steps.run(h.bothSensors());
        List<Tx> copies = s.timeline().txs.stream().filter(t -> !t.c2s() && t.p.len == 1000).toList();
        assertEquals(2, copies.size());
        assertParent(s.rounds(), Rounds.dep(copies.get(1).idx()), Rounds.dep(copies.get(0).idx()), PathArc.Kind.LOSS);
    }

    /**
     * From the client's capture a copy lost before it is a hole: it left after the segment below it
     * and no later than the first above. Lost at the tail of the initial window (which let it go
     * with that flight) its loss runs from the segment just below; lost at the head of the next
     * flight (let go only by the ACKs), from the first above: each time from the segment it truly
     * left with.
     */
    @ParameterizedTest(name = "segment {0} lost")
    @ValueSource(ints = {10, 11})
    void aCopyLostBeforeTheSensorIsTimedFromTheSegmentItLeftWith(int lost) {
        HandTrace h = new HandTrace(30, 30).mss(1000); // ten segments fill the initial window
        double r = h.handshakeAndRequest(30);
        List<HandTrace.P> segments = new ArrayList<>();
        for (int i = 1; i <= 10; i++) {
            segments.add(h.s(r + 0.01 * i).data(1000)); // the initial window
        }
        int acked = lost <= 10 ? lost - 1 : 10;
        for (int i = 1; i <= acked; i++) {
            h.c(r + 0.01 * i + 30.001);
            segments.add(h.s(r + 0.01 * i + 60.002).data(1000)); // each ACK releases two more
            segments.add(h.s(r + 0.01 * i + 60.003).data(1000));
        }
        segments.get(lost - 1).lost();
        double thirdDuplicate = 0;
        int duplicates = 0;
        for (int k = 10; k < segments.size(); k++) {
            double at = r + 0.01 * ((k - 10) / 2 + 1) + 90.0025 + (k % 2) * 0.001; // its arrival, ACKed 0.5 µs later
            if (k + 1 > lost) {
                h.c(at);
                thirdDuplicate = ++duplicates == 3 ? at : thirdDuplicate;
            }
        }
        h.s(thirdDuplicate + 30.001).resend(1 + (lost - 1) * 1000L, 1000);
        h.c(thirdDuplicate + 60.002);
        Steps s = Steps.run(h.clientSensorOnly());
        Tx resend = only(s.timeline().txs, t -> s.senders().marks().kind(t) == dev.critpath.core.analysis.sender.TxKind.RETRANSMISSION);
        int from = s.rounds().parent(Rounds.dep(resend.idx()));
        assertEquals(PathArc.Kind.LOSS, s.rounds().arcKind(Rounds.dep(resend.idx())));
        long leftWith = h.scripted(s.rounds().tx(from)).departedUs();
        long lostLeft = segments.get(lost - 1).departedUs();
        assertTrue(Math.abs(leftWith - lostLeft) <= 10, "timed from " + s.rounds().tx(from) + ", " + (leftWith - lostLeft) + " us from the lost copy");
    }

    @Test
    void theNextRequestWaitsForTheReSendThatFillsTheHoleNotForTheHighestByte() {
        HandTrace h = new HandTrace(30, 30);
        h.holeFilledThenNextRequest(h.handshakeAndRequest(30));
        Steps s = Steps.run(h.bothSensors());
        List<Tx> txs = s.timeline().txs;
        Tx holeFill = only(txs, t -> s.senders().marks().kind(t) == dev.critpath.core.analysis.sender.TxKind.RETRANSMISSION);
        Tx secondRequest = only(txs, t -> t.c2s() && t.p.len == 100 && t.p.seq > 1);
        Tx highest = only(txs, t -> !t.c2s() && t.p.seq == 9001);
        assertParent(s.rounds(), Rounds.dep(secondRequest.idx()), Rounds.arr(holeFill.idx()), PathArc.Kind.HOST);
        assertEquals(holeFill.arr(), s.rounds().deliveredAt(highest), "the bytes above the hole were readable only once it was filled");
    }
}
