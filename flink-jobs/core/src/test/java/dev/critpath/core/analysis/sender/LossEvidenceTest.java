package dev.critpath.core.analysis.sender;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.analysis.DirectionStats;
import dev.critpath.core.analysis.LossCause;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.testing.HandTrace;
import dev.critpath.core.testing.Steps;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a re-send proves about the copy before it (spurious only on evidence, otherwise that copy
 * was lost), which timer event a re-send belongs to, and re-sends whose original the capture
 * never saw, on hand-built connections whose truth is known.
 */
class LossEvidenceTest {
    private static List<Tx> serverData(Steps s) {
        return s.timeline().txs.stream().filter(t -> !t.c2s() && t.p.len > 0).toList();
    }

    private static void close(HandTrace h, double ms) {
        h.c(ms).fin();
        h.s(ms + 30.1).fin();
        h.c(ms + 60.2);
    }

    @Test
    void aHiddenOriginalsReSendAtTheReceiversCaptureIsNoSpuriousReSend() {
        HandTrace h = new HandTrace(30, 30);
        double r = h.handshakeAndRequest(30);
        h.responseAckedEach(r, 10, 3);               // segment 3 lost before the client's sensor
        h.s(r + 60.161).resend(2001, 1000);          // fast retransmit after the duplicate ACKs
        close(h, r + 90.3);
        DirectionStats st = Steps.run(h.clientSensorOnly()).senders().s2c();
        assertEquals(1, st.retransmissions);
        assertEquals(1, st.fastRetransmits);
        assertEquals(0, st.spuriousRetransmissions, "the segment above the hole, which did arrive, is not the copy it repeats");
    }

    /** The client's ACK of a 1000-byte response is lost, the server's timer re-sends it; the client reports the duplicate with a D-SACK or not. */
    private static HandTrace lostAck(boolean dsack) {
        HandTrace h = new HandTrace(30, 30).sackPermitted(true);
        double r = h.handshakeAndRequest(30);
        h.s(r).data(1000);
        h.c(r + 30.05).lost();
        h.s(r + 260).resend(1, 1000);
        HandTrace.P answer = h.c(r + 290.05);
        if (dsack) {
            answer.sack(1, 1001);                    // below the cumulative ACK: received twice (RFC 2883)
        }
        close(h, r + 300);
        return h;
    }

    @Test
    void aDsackProvesTheReSendSpuriousAtTheSendersCapture() {
        Steps s = Steps.run(lostAck(true).serverSensorOnly());
        assertEquals(1, s.senders().s2c().spuriousRetransmissions);
        assertFalse(s.senders().marks().lost(serverData(s).get(0)), "the first copy arrived");
    }

    @Test
    void withoutEvidenceTheReSendRepairedALossAndTheFirstCopyDeliveredNothing() {
        Steps s = Steps.run(lostAck(false).serverSensorOnly());
        assertEquals(0, s.senders().s2c().spuriousRetransmissions, "the server's capture cannot see the ACK lost after the client");
        assertTrue(s.senders().marks().lost(serverData(s).get(0)));
    }

    @Test
    void anAckThatLeftBeforeTheReSendCouldArriveProvesItSpurious() {
        HandTrace h = new HandTrace(30, 30);
        double r = h.handshakeAndRequest(30);
        h.s(r).data(1000);
        h.c(r + 30.05).queued(150);                  // the ACK waits in a queue: at the server 5 ms after the re-send left
        h.s(r + 205).resend(1, 1000);
        close(h, r + 260);
        // the client's capture sees the ACK leave 205 ms before the re-send arrives (the server's alone
        // cannot: the queued ACK looks like a 5 ms answer to the re-send)
        Steps s = Steps.run(h.clientSensorOnly());
        assertEquals(1, s.senders().s2c().spuriousRetransmissions);
        assertFalse(s.senders().marks().lost(serverData(s).get(0)));
    }

    @Test
    void reSendsReleasedByAcksAfterATimeoutBelongToThatTimeout() {
        HandTrace h = new HandTrace(30, 30);
        double r = h.handshakeAndRequest(30);
        for (int i = 1; i <= 4; i++) {
            h.s(r + 0.01 * i).data(1000).lost();     // the whole response lost
        }
        h.s(r + 300).resend(1, 1000);                // the timer
        h.c(r + 330.05);
        h.s(r + 365.05).resend(1001, 1000);          // 5 ms after each ACK (a slow host): past the slack, yet no timer
        h.s(r + 365.06).resend(2001, 1000);
        h.c(r + 395.1);
        h.s(r + 430.1).resend(3001, 1000);
        close(h, r + 460.2);
        Steps s = Steps.run(h.bothSensors());
        DirectionStats st = s.senders().s2c();
        assertEquals(4, st.retransmissions);
        assertEquals(1, st.timeouts, "one timer event");
        assertEquals(3, st.slowStartRetransmits, "the rest of its recovery, released by ACKs");
        assertEquals(0, st.backoffs);
        List<Tx> resends = serverData(s).stream().filter(t -> s.senders().marks().kind(t) == TxKind.RETRANSMISSION).toList();
        assertTrue(s.senders().marks().lossArc(resends.get(0)));
        assertTrue(resends.stream().skip(1).allMatch(t -> s.senders().marks().lossCause(t) == LossCause.TIMEOUT
                && !s.senders().marks().lossArc(t)), "charged to the timeout, each released by its ACK");
    }

    @Test
    void aPureAcksSequenceNumberRevealsDataTheCaptureNeverSaw() {
        HandTrace h = new HandTrace(30, 30);
        double r = h.handshakeAndRequest(30);
        h.s(r).data(1000);
        h.s(r + 0.01).data(1000).lost();             // lost before the client's sensor
        h.s(r + 0.02).data(1000).lost();
        h.s(r + 5);                                  // a pure ACK: its sequence number is 3001
        h.c(r + 30.05);
        h.s(r + 300).resend(1001, 1000);
        h.c(r + 330.05);
        h.s(r + 360.1).resend(2001, 1000);
        close(h, r + 390.2);
        DirectionStats st = Steps.run(h.clientSensorOnly()).senders().s2c();
        assertEquals(2, st.retransmissions, "bytes below a sequence number the server already used were sent before");
        assertEquals(0, st.spuriousRetransmissions);
    }

    @Test
    void aHoleFillInTheSameTimestampTickIsOrderedByItsIpId() {
        HandTrace h = new HandTrace(0.05, 0.05);
        double r = h.handshakeAndRequest(0.05);
        h.s(r).data(1000).tsval(7);
        h.s(r + 0.01).data(1000).tsval(7).lost();
        for (int i = 2; i <= 4; i++) {
            h.s(r + 0.01 * i).data(1000).tsval(7);
        }
        for (double arrived : new double[] {r + 0.05, r + 0.07, r + 0.08, r + 0.09}) {
            h.c(arrived + 0.001);                    // an ACK, then three duplicates
        }
        h.s(r + 0.145).resend(1001, 1000).tsval(7);  // the fast retransmit, same 1 ms tick, a later IP id
        close(h, r + 0.3);
        DirectionStats st = Steps.run(h.clientSensorOnly()).senders().s2c();
        assertEquals(1, st.retransmissions, "it left after the data above the hole: a re-send, not a reordered original");
        assertEquals(1, st.fastRetransmits);
    }
}
