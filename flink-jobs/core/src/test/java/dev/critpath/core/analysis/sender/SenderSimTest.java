package dev.critpath.core.analysis.sender;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.analysis.AnalysisConfig;
import dev.critpath.core.analysis.DirectionStats;
import dev.critpath.core.analysis.LossCause;
import dev.critpath.core.analysis.align.Timeline;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.event.TcpFlags;
import dev.critpath.core.testing.HandTrace;
import dev.critpath.core.testing.Steps;
import java.util.Comparator;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** The forward pass on hand-built connections: what each transmission is, which ACK let it go, and how each loss was recognised. */
class SenderSimTest {
    /** A 10-segment response (30 ms each way) losing one segment, then the server's re-sends at the given ms after the response began. */
    private static HandTrace response(boolean sack, int lostSegment, double... resendsAfterMs) {
        HandTrace h = new HandTrace(30, 30).sackPermitted(sack);
        double r = h.handshakeAndRequest(30);
        h.responseAckedEach(r, 10, lostSegment);
        for (int i = 0; i < resendsAfterMs.length; i++) {
            HandTrace.P p = h.s(r + resendsAfterMs[i]).resend(1 + 1000L * (lostSegment - 1), 1000);
            if (i < resendsAfterMs.length - 1) {
                p.lost();
            }
        }
        double end = r + resendsAfterMs[resendsAfterMs.length - 1];
        h.c(end + 30.001);
        h.s(end + 60.1).fin();
        h.c(end + 90.2).fin();
        h.s(end + 120.3);
        return h;
    }

    record Loss(String what, HandTrace trace, LossCause cause, long fastRetransmits, long timeouts, long backoffs, long tailLossProbes) {
        @Override
        public String toString() {
            return what;
        }
    }

    static Stream<Loss> losses() {
        return Stream.of(
                new Loss("right after duplicate ACKs: fast retransmit", response(false, 3, 60.161), LossCause.FAST_RETRANSMIT, 1, 0, 0, 0),
                new Loss("5 ms after duplicate ACKs, too soon for the timer: fast retransmit", response(false, 3, 65.161),
                        LossCause.FAST_RETRANSMIT, 1, 0, 0, 0),
                new Loss("the last segment, no evidence: the timer", response(false, 10, 260.1), LossCause.TIMEOUT, 0, 1, 0, 0),
                new Loss("the same segment's timer again: backoff", response(false, 10, 260.1, 780.1), LossCause.BACKOFF, 0, 1, 1, 0),
                new Loss("the last segment with SACK in Open: tail loss probe", response(true, 10, 120.1), LossCause.TAIL_LOSS_PROBE, 0, 0, 0, 1));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("losses")
    void eachLossIsToldByHowTheSenderRecognisedIt(Loss c) {
        Steps s = Steps.run(c.trace().bothSensors());
        SenderMarks marks = s.senders().marks();
        List<Tx> resends = serverSends(s.timeline(), t -> marks.kind(t) == TxKind.RETRANSMISSION);
        Tx last = resends.get(resends.size() - 1);
        assertEquals(c.cause(), marks.lossCause(last));
        assertTrue(marks.lossArc(last), "the re-send where the sender recognised the loss carries the loss arc");
        Tx previous = resends.size() > 1 ? resends.get(resends.size() - 2) : serverSends(s.timeline(), t -> t.seq() == last.seq()).get(0);
        assertEquals(previous.idx(), marks.rtxOf(last), "it repeats the copy sent before it");
        DirectionStats st = s.senders().s2c();
        assertEquals(resends.size(), st.retransmissions);
        assertEquals(c.fastRetransmits(), st.fastRetransmits, "fast retransmits");
        assertEquals(c.timeouts(), st.timeouts, "timeouts");
        assertEquals(c.backoffs(), st.backoffs, "backoffs");
        assertEquals(c.tailLossProbes(), st.tailLossProbes, "tail loss probes");
        assertEquals(0, st.outOfWindow, "Reno's window explains every send");
    }

    @Test
    void aFastRetransmitIsReleasedByTheLatestDuplicateAck() {
        Steps s = Steps.run(response(false, 3, 60.161).bothSensors());
        SenderMarks marks = s.senders().marks();
        Tx resend = serverSends(s.timeline(), t -> marks.kind(t) == TxKind.RETRANSMISSION).get(0);
        Tx latestAck = s.timeline().txs.stream().filter(t -> t.c2s() && t.arr() <= resend.dep()).max(Comparator.comparingLong(t -> t.arr())).orElseThrow();
        assertEquals(latestAck.idx(), marks.liberator(resend));
        assertEquals(7, s.senders().s2c().dupAcksReceived, "segments 4 to 10 each drew a duplicate ACK");
    }

    /**
     * Seen by the client's sensor alone: ten 1000-byte segments from a server whose data waits 250
     * ms in its uplink's queue (its SYN/ACK and FIN do not) and to which the client's ACKs take 5
     * ms longer than the handshake's; one segment lost, re-sent at resendMs on the server's clock.
     * Every packet carries TCP timestamps: the client's ms, the server's ms + 1000, each echoing
     * the last one its sender took in. The connection lasts 3 s.
     */
    private static HandTrace queuedServer(int lostSegment, double resendMs) {
        HandTrace h = HandTrace.stampedRequest(40);
        for (int i = 1; i <= 10; i++) {
            HandTrace.P p = h.s(60 + 0.01 * i).data(1000).tsval(1060).tsecr(40).queued(250);
            if (i == lostSegment) {
                p.lost();
            }
        }
        for (int i = 1; i <= 10; i++) {
            if (i != lostSegment) {
                h.c(330 + 0.01 * i + 0.001).tsval(330).tsecr(1060).queued(5);
            }
        }
        long resendTs = 1000 + Math.round(resendMs);
        h.s(resendMs).resend(1 + 1000L * (lostSegment - 1), 1000).tsval(resendTs).tsecr(330).queued(250);
        double filled = resendMs + 270;
        h.c(filled + 0.1).tsval(Math.round(filled)).tsecr(resendTs);
        h.s(3000).fin().tsval(4000).tsecr(Math.round(filled));
        h.c(3020.1).fin().tsval(3020).tsecr(4000);
        h.s(3040.2).tsval(4040).tsecr(3020);
        return h;
    }

    /**
     * The first segment lost: the server's timer has run since 60 ms when it re-sends at 355.1 ms,
     * as it takes in the third duplicate ACK, 5 ms later than the handshake says an ACK arrives;
     * its timestamps say the duplicate released it. The last segment lost: no duplicate came, and
     * its clock shows 305 ms since it took in the last ACK: its timer.
     */
    @ParameterizedTest(name = "segment {0} lost, re-sent at {1} ms: {2}")
    @CsvSource({"1, 355.1, FAST_RETRANSMIT", "10, 660, TIMEOUT"})
    void theUnwatchedSendersTimestampsTellAnAckReleasedReSendFromATimers(int lostSegment, double resendMs, LossCause cause) {
        Steps s = Steps.run(queuedServer(lostSegment, resendMs).clientSensorOnly());
        SenderMarks marks = s.senders().marks();
        List<Tx> resends = serverSends(s.timeline(), t -> marks.kind(t) == TxKind.RETRANSMISSION);
        assertEquals(1, resends.size());
        assertEquals(cause, marks.lossCause(resends.get(0)));
    }

    @Test
    void aLostSynIsReSentByItsTimer() {
        HandTrace h = new HandTrace(30, 30);
        h.c(0).syn().lost();
        h.c(1000).syn();
        h.s(1030).syn();
        h.c(1060).data(100);
        h.s(1090.1).data(1000).fin();
        h.c(1120.2).fin();
        h.s(1150.3);
        Steps s = Steps.run(h.bothSensors());
        SenderMarks marks = s.senders().marks();
        List<Tx> syns = s.timeline().txs.stream().filter(t -> t.c2s() && t.seq() == 0 && t.p.len == 0 && !t.has(dev.critpath.core.event.TcpFlags.ACK)).toList();
        assertEquals(2, syns.size());
        assertEquals(TxKind.RETRANSMISSION, marks.kind(syns.get(1)));
        assertEquals(LossCause.TIMEOUT, marks.lossCause(syns.get(1)));
        assertEquals(syns.get(0).idx(), marks.rtxOf(syns.get(1)));
        assertEquals(1, s.senders().c2s().timeouts);
    }

    @Test
    void keepAlivesAndWindowProbesRepairNothing() {
        HandTrace h = new HandTrace(10, 10);
        double r = h.handshakeAndRequest(10);
        h.s(r).data(1000);
        h.s(r).data(1000);
        h.c(r + 10.1).window(0);               // buffer full: the window closes
        h.s(r + 60).resend(2000, 0);           // the server probes it: one old sequence number, no data
        h.c(r + 70.1).window(0);
        h.c(r + 160.1).window(1000);
        h.s(r + 170.15).data(1000);
        h.c(r + 1170.2).resend(100, 0);        // a second later the client checks the idle peer is there
        h.s(r + 1180.3);
        h.c(r + 1190.4).fin();
        h.s(r + 1200.5).fin();
        h.c(r + 1210.6);
        Steps s = Steps.run(h.bothSensors());
        SenderMarks marks = s.senders().marks();
        assertEquals(1, serverSends(s.timeline(), t -> marks.kind(t) == TxKind.WINDOW_PROBE).size());
        assertEquals(1, s.timeline().txs.stream().filter(t -> t.c2s() && marks.kind(t) == TxKind.KEEPALIVE).count());
        assertEquals(1, s.senders().s2c().windowProbes);
        assertEquals(1, s.senders().c2s().keepalives);
        assertEquals(0, s.senders().s2c().retransmissions + s.senders().c2s().retransmissions);
    }

    /**
     * From the client's capture: the SYN/ACK echoes the client's first SYN though a second one had
     * come, so the server had answered the first and that answer was lost. Right after the repeated
     * SYN it answers that SYN (Linux: a re-send, no timer); a second later it is the server's timer.
     */
    @ParameterizedTest(name = "SYN/ACK {0} ms after the repeated SYN arrived: {1} timeout(s)")
    @CsvSource({"0.05, 0", "1000, 1"})
    void aSynAckEchoingAnEarlierSynIsAReSend(double afterRepeatedSynMs, long timeouts) {
        HandTrace h = new HandTrace(30, 30);
        h.c(0).syn().tsval(100);
        h.s(30).syn().tsecr(100).lost();
        h.c(1000).syn().tsval(1100);
        double synAck = 1030 + afterRepeatedSynMs;
        h.s(synAck).syn().tsecr(100);
        h.c(synAck + 30).ack(1);
        h.c(synAck + 30).data(100);
        h.s(synAck + 61).data(1000);
        h.c(synAck + 91.1);
        DirectionStats server = Steps.run(h.clientSensorOnly()).senders().s2c();
        assertEquals(1, server.retransmissions);
        assertEquals(timeouts, server.timeouts);
    }

    /**
     * A 1400-byte segment too big for the path: the router's ICMP "packet too big" comes back
     * within the round trip and the server re-sends the bytes at once as 1300 + 100 (PMTUD.pcapng's
     * Windows server, Linux's tcp_simple_retransmit): no timer, no ACK, so neither a timeout nor a
     * fast retransmit. The same pieces after the minimum RTO are the timer's; a same-size copy that
     * soon is no path MTU's.
     */
    @ParameterizedTest(name = "re-sent {0} ms later as {1} + {2} bytes: {3}")
    @CsvSource({"1.7, 1300, 100, PATH_MTU", "250, 1300, 100, TIMEOUT", "1.7, 1400, 0, TIMEOUT"})
    void piecesOfASegmentReSentAtOnceAreThePathMtus(double afterMs, int first, int second, LossCause cause) {
        HandTrace h = new HandTrace(30, 30);
        double r = h.handshakeAndRequest(30);
        h.s(r + 0.1).data(1400).lost();
        h.s(r + afterMs).resend(1, first);
        if (second > 0) {
            h.s(r + afterMs + 0.01).resend(1 + first, second);
        }
        h.c(r + afterMs + 30.11);
        for (Steps s : List.of(Steps.run(h.bothSensors()), Steps.run(h.serverSensorOnly()))) {
            SenderMarks marks = s.senders().marks();
            Tx piece = serverSends(s.timeline(), t -> t.isData() && marks.kind(t) == TxKind.RETRANSMISSION).get(0);
            assertEquals(cause, marks.lossCause(piece));
            DirectionStats server = s.senders().s2c();
            assertEquals(cause == LossCause.PATH_MTU ? 2 : 0, server.pathMtuRetransmits);
            assertEquals(cause == LossCause.TIMEOUT ? 1 : 0, server.timeouts, "Linux counts no timeout for it");
        }
    }

    /** The same after the timer re-sent the segment whole: the pieces are still the path MTU's, counted as such, one timeout. */
    @Test
    void piecesAfterATimersWholeReSendAreThePathMtus() {
        HandTrace h = new HandTrace(30, 30);
        double r = h.firstSegmentLostTwice(1400);
        h.s(r + 301.8).resend(1, 1300);
        h.s(r + 301.81).resend(1301, 100);
        h.c(r + 331.92);
        for (Steps s : List.of(Steps.run(h.bothSensors()), Steps.run(h.serverSensorOnly()))) {
            SenderMarks marks = s.senders().marks();
            List<Tx> pieces = serverSends(s.timeline(), t -> t.isData() && t.p.len < 1400);
            pieces.forEach(t -> assertEquals(LossCause.PATH_MTU, marks.lossCause(t)));
            DirectionStats server = s.senders().s2c();
            assertEquals(2, server.pathMtuRetransmits);
            assertEquals(1, server.timeouts);
            assertEquals(0, server.slowStartRetransmits, "no ACK released them");
        }
    }

    /**
     * Four segments too big: the window sends the first two's pieces at once and the other two's
     * when the first pieces' ACKs come back, a round later (Linux marks every oversized segment
     * lost). All eight are the path MTU's; no timer fired.
     */
    @Test
    void piecesTheWindowHeldBackAreThePathMtusToo() {
        HandTrace h = new HandTrace(30, 30);
        double r = h.handshakeAndRequest(30);
        for (int i = 0; i < 4; i++) {
            h.s(r + 0.1 + 0.01 * i).data(1400).lost();
        }
        for (int i = 0; i < 2; i++) {
            h.s(r + 1.8 + 0.02 * i).resend(1 + 1400L * i, 1300);
            h.s(r + 1.81 + 0.02 * i).resend(1301 + 1400L * i, 100);
        }
        h.c(r + 31.81);
        h.c(r + 31.83);
        for (int i = 2; i < 4; i++) {
            h.s(r + 61.84 + 0.02 * (i - 2)).resend(1 + 1400L * i, 1300);
            h.s(r + 61.85 + 0.02 * (i - 2)).resend(1301 + 1400L * i, 100);
        }
        h.c(r + 91.9);
        for (Steps s : List.of(Steps.run(h.bothSensors()), Steps.run(h.serverSensorOnly()))) {
            DirectionStats server = s.senders().s2c();
            assertEquals(8, server.pathMtuRetransmits);
            assertEquals(0, server.timeouts);
        }
    }

    /**
     * A close as BSD-derived stacks make it (tcptrace's http.dmp): the server's FIN crosses the
     * client's. Acknowledging the client's FIN 50 µs after it came, the server sends its FIN again
     * (FIN goes on every segment while it is unacknowledged): a re-send answering that FIN, no
     * timer, from either capture. With its first FIN lost and the copy 300 ms later, its timer sent it.
     */
    @ParameterizedTest(name = "first FIN lost {0}, again {1} ms after the client's FIN arrived: {2}")
    @CsvSource({"false, 0.05, ", "true, 270.1, TIMEOUT"})
    void aFinSentAgainAcknowledgingThePeersFinAnswersIt(boolean firstLost, double afterClientFinMs, LossCause cause) {
        HandTrace h = new HandTrace(30, 30);
        double r = h.handshakeAndRequest(30);
        h.s(r + 0.1).data(1000);
        h.c(r + 30.2).fin();
        HandTrace.P fin = h.s(r + 30.3).fin();
        if (firstLost) {
            fin.lost();
        }
        double again = r + 60.2 + afterClientFinMs;
        h.s(again).resend(1001, 0).fin();
        h.c(again + 30.1);
        // the client's sensor alone never sees a lost first FIN: what it tells is the answer case
        List<Steps> runs = firstLost ? List.of(Steps.run(h.bothSensors())) : List.of(Steps.run(h.bothSensors()), Steps.run(h.clientSensorOnly()));
        for (Steps s : runs) {
            SenderMarks marks = s.senders().marks();
            List<Tx> fins = serverSends(s.timeline(), t -> t.has(TcpFlags.FIN));
            Tx last = fins.get(fins.size() - 1);
            assertEquals(TxKind.RETRANSMISSION, marks.kind(last));
            assertEquals(cause, marks.lossCause(last));
            DirectionStats server = s.senders().s2c();
            assertEquals(1, server.retransmissions, "tcptrace and tshark count it a re-send");
            assertEquals(cause == null ? 0 : 1, server.timeouts);
            assertEquals(0, server.spuriousRetransmissions, "no loss repaired, none claimed");
        }
    }

    /**
     * Issue 18, item 1: from the client's capture, with its ACKs queued on a slow uplink and some
     * dropped there, each of the server's segments is clocked by an ACK that had reached the server
     * when it left (the one its timestamp echo names), not by one the window model takes as arrived
     * half a round trip after it left the client.
     */
    @Test
    void fromTheClientsCaptureTheServersDataIsClockedByAnAckThatHadArrived() {
        HandTrace h = HandTrace.queuedAcks(5, 20);
        Steps s = Steps.run(h.clientSensorOnly());
        SenderMarks marks = s.senders().marks();
        List<Tx> data = serverSends(s.timeline(), Tx::isData);
        long dropped = s.timeline().txs.stream().filter(t -> t.c2s() && t.isPureAck() && h.scripted(t).arrivedUs() == Long.MAX_VALUE).count();
        assertTrue(dropped >= 3, dropped + " ACKs dropped in the uplink's queue: the case this checks");
        for (Tx d : data) {
            Tx ack = s.timeline().txs.get(marks.liberator(d));
            assertTrue(h.scripted(ack).arrivedUs() <= h.scripted(d).departedUs(), d + " left before its liberator " + ack + " arrived");
        }
    }

    @Test
    void aResetsWindowIsNoZeroWindow() {
        HandTrace h = new HandTrace(30, 30);
        double r = h.handshakeAndRequest(30);
        h.s(r).data(1000);
        h.c(r + 30.1).rst().window(0);         // the client aborts; a reset's window field means nothing
        h.s(r + 50).data(1000);                // still in flight when the reset arrives
        Steps s = Steps.run(h.bothSensors());
        assertEquals(0, s.senders().s2c().zeroWindowEpisodes);
        assertEquals(0, s.senders().s2c().zeroWindowUs);
    }

    @Test
    void dataBeyondTheWindowResynchronisesOnTheLatestAck() {
        HandTrace h = new HandTrace(30, 30);
        double r = h.handshakeAndRequest(30);
        for (int i = 0; i < 12; i++) {
            h.s(r + 0.01 * i).data(1000);      // twelve segments where the initial window allows ten
        }
        Steps s = Steps.run(h.bothSensors());
        SenderMarks marks = s.senders().marks();
        List<Tx> beyond = serverSends(s.timeline(), marks::outOfWindow);
        assertEquals(2, beyond.size());
        assertEquals(2, s.senders().s2c().outOfWindow);
        Tx request = s.timeline().txs.stream().filter(t -> t.c2s() && t.p.len == 100).findFirst().orElseThrow();
        for (Tx t : beyond) {
            assertEquals(request.idx(), marks.liberator(t), "the request, the latest packet to reach the server, carried the ACK");
        }
    }

    @Test
    void tcpevalsRoundFourReleasesOnlyThreePackets() {
        // figure 3: an ACK covering two of the four packets in flight; with cwnd 5 and two still
        // in flight only three more may go (classic Reno, one segment per ACK in slow start)
        HandTrace h = new HandTrace(30, 30);
        double r = h.handshakeAndRequest(30);
        h.s(r).data(1000);
        h.s(r).data(1000);
        h.c(r + 30.1).ack(1001);
        h.c(r + 30.2).ack(2001);
        h.s(r + 60.1).data(1000);
        h.s(r + 60.1).data(1000);
        h.s(r + 60.2).data(1000);
        h.s(r + 60.2).data(1000);
        h.c(r + 90.3).ack(4001);          // acknowledges two of the four
        for (int i = 0; i < 4; i++) {
            h.s(r + 120.3).data(1000);
        }
        AnalysisConfig classic = AnalysisConfig.builder().initialWindow(2).slowStartIncreasePerAck(1).build();
        assertEquals(3, releasedWithinWindowBy(Steps.forwardPass(h.bothSensors(), classic, 1000), 4001));
        // Linux counts both acknowledged segments (RFC 3465): cwnd 6, so all four fit
        AnalysisConfig linux = classic.toBuilder().slowStartIncreasePerAck(0).build();
        assertEquals(4, releasedWithinWindowBy(Steps.forwardPass(h.bothSensors(), linux, 1000), 4001));
    }

    private static long releasedWithinWindowBy(Steps.Forward f, long ackNumber) {
        Tx ack = f.timeline().txs.stream().filter(x -> x.c2s() && x.p.ack == ackNumber).findFirst().orElseThrow();
        return f.timeline().txs.stream().filter(x -> !x.c2s() && f.marks().liberator(x) == ack.idx() && !f.marks().outOfWindow(x)).count();
    }

    private static List<Tx> serverSends(Timeline tl, Predicate<Tx> which) {
        return tl.txs.stream().filter(t -> !t.c2s() && t.dep() != Tx.NONE).filter(which).sorted(Comparator.comparingLong(t -> t.dep())).toList();
    }
}
