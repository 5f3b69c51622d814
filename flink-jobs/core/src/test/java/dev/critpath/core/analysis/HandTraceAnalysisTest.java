package dev.critpath.core.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.analysis.align.Timeline;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.screen.ConnectionResult;
import dev.critpath.core.screen.Screen;
import dev.critpath.core.testing.HandTrace;
import dev.critpath.core.testing.Steps;
import dev.critpath.core.trace.ConnectionTrace;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The method step by step on hand-built connections whose truth is known by construction:
 * handshake/request/response/teardown, slow start rounds, the loss kinds, lost ACKs, a zero
 * window, capture-filter drops, clock offsets and single-sensor captures.
 */
class HandTraceAnalysisTest {
    private static final Analyzer ANALYZER = Analyzer.defaults();
    private static final Screen SCREEN = Screen.defaults();

    private static void assertSumsToDuration(ConnectionResult r, long expectedDurationUs) {
        ConnectionProfile p = r.profile();
        assertEquals(expectedDurationUs, p.durationUs(), "client-observed duration");
        assertEquals(p.durationUs(), p.times.total(), "categories must add up to the duration: " + p.times);
        long arcs = r.arcs().stream().mapToLong(PathArc::durationUs).sum();
        assertEquals(p.durationUs(), arcs, "arcs must add up to the duration");
        for (ExchangeProfile x : r.exchanges()) {
            assertEquals(x.durationUs(), x.times().total(), "exchange " + x.index() + " categories must add up");
        }
    }

    @Test
    void smallTransferWalksTcpevalsSixPacketPath() {
        HandTrace h = HandTrace.smallTransfer(30, 30);
        ConnectionResult r = SCREEN.apply(ANALYZER.analyze(h.bothSensors()));
        ConnectionProfile p = r.profile();
        assertSumsToDuration(r, 200_300);
        assertEquals(6 * 30_000, p.times.get(Category.PROPAGATION));
        assertEquals(20_000, p.times.get(Category.SERVER));
        assertEquals(300, p.times.get(Category.CLIENT));
        assertEquals(0, p.times.get(Category.QUEUING));
        assertEquals(6, p.path.packets(), "paper 000: 6 packets on the critical path of a small file");
        assertEquals(3, p.path.rounds());
        assertEquals(20_000, p.path.serverThinkUs());
        assertEquals(60_000, p.path.handshakeUs());
        assertEquals(80_000, p.path.firstByteUs());
        assertEquals(1, p.path.exchanges());
        assertEquals(100, p.c2s.bytes);
        assertEquals(1000, p.s2c.bytes);
        assertTrue(r.verdict().boring(), r.verdict().explanation());
        assertEquals(CaptureMode.TWO_POINT, p.mode);
    }

    /**
     * The client keeps the connection open after the response and its kernel probes it every 45 s
     * (one byte below what the server acknowledged; the server answers at once): from any capture
     * the wait is idle and each probe's answer is its own round trip.
     */
    @ParameterizedTest
    @EnumSource(CaptureMode.class)
    void keepAlivesOnAnIdleConnectionAreIdle(CaptureMode mode) {
        HandTrace h = new HandTrace(10, 10);
        double r = h.handshakeAndRequest(10);
        h.s(r + 1).data(1000);
        h.c(r + 11.1);
        for (int probe = 1; probe <= 2; probe++) {
            double at = r + 11.1 + 45_000 * probe;
            h.c(at).resend(100, 0);
            h.s(at + 10.05);
        }
        ConnectionProfile p = ANALYZER.analyze(h.trace(mode)).profile();
        assertEquals(2, p.c2s.keepalives);
        assertEquals(90_000_000, p.times.get(Category.IDLE), 1_000, mode.key());
        assertEquals(60_000, p.times.get(Category.PROPAGATION), 1_000, mode.key() + ": handshake, request, response and the last probe's round trip");
    }

    @Test
    void sensorClocksSecondsApartGiveTheSameProfile() {
        ConnectionResult synced = SCREEN.apply(ANALYZER.analyze(HandTrace.smallTransfer(30, 30).bothSensors()));
        HandTrace offset = HandTrace.smallTransfer(30, 30).serverClockOffsetMs(1500);
        ConnectionResult shifted = SCREEN.apply(ANALYZER.analyze(offset.bothSensors()));
        assertEquals(1_500_000, shifted.profile().timing.clockOffsetUs());
        assertEquals(30_000, shifted.profile().timing.clockOffsetUncertaintyUs(), "half the minimum RTT");
        for (Category c : Category.values()) {
            assertEquals(synced.profile().times.get(c), shifted.profile().times.get(c), c.key());
        }
        HandTrace behind = HandTrace.smallTransfer(30, 30).serverClockOffsetMs(-7_250.5);
        assertEquals(-7_250_500, ANALYZER.analyze(behind.bothSensors()).profile().timing.clockOffsetUs());
    }

    @Test
    void aDriftingSensorClockIsFollowedAcrossALongConnection() {
        // a keep-alive connection over two minutes, the server sensor's clock 300 ppm fast: 36 ms by the end
        HandTrace h = new HandTrace(20, 20).serverClockOffsetMs(2_000).serverClockDriftPpm(300);
        double t = h.handshakeAndRequest(20);
        int exchanges = 24;
        for (int i = 0; i < exchanges; i++) {
            h.s(t + 10).data(1000);
            double back = t + 10 + 20;
            h.c(back + 5_000).data(100);
            t = back + 5_000 + 20;
        }
        h.s(t + 10).data(1000).fin();
        h.c(t + 30.1).fin();
        h.s(t + 50.2);
        ConnectionResult r = SCREEN.apply(ANALYZER.analyze(h.bothSensors()));
        ConnectionProfile p = r.profile();
        assertSumsToDuration(r, h.clientObservedDurationUs());
        assertTrue(Math.abs(p.timing.clockDriftPpm() - 300) < 5, "drift estimated " + p.timing.clockDriftPpm() + " ppm");
        long crossings = r.arcs().stream().filter(a -> a.kind() == PathArc.Kind.NETWORK).count();
        assertEquals(crossings * 20_000, p.times.get(Category.PROPAGATION), crossings * 20, "propagation stays the configured 20 ms per crossing");
        assertTrue(p.times.get(Category.QUEUING) < 1_000, "drift must not show up as queuing: " + p.times);
        assertEquals((exchanges + 1) * 10_000, p.times.get(Category.SERVER), 200, "server think time per exchange stays 10 ms");
    }

    @Test
    void asymmetricPathKeepsRoundTripTotalsWithUnsynchronisedClocks() {
        // 10 ms out, 40 ms back: without synchronised clocks only the sum per round trip is knowable
        HandTrace h = HandTrace.smallTransfer(10, 40).serverClockOffsetMs(800);
        ConnectionResult r = SCREEN.apply(ANALYZER.analyze(h.bothSensors()));
        assertSumsToDuration(r, h.clientObservedDurationUs());
        assertEquals(3 * 10_000 + 3 * 40_000, r.profile().times.get(Category.PROPAGATION));
        assertEquals(800_000 - 15_000, r.profile().timing.clockOffsetUs(), "symmetric assumption: off by half the asymmetry");
        assertEquals(20_000, r.profile().times.get(Category.SERVER));
    }

    @Test
    void serverSideCaptureAloneMergesTheClientsArcsIntoRoundTrips() {
        HandTrace h = HandTrace.smallTransfer(30, 30);
        ConnectionResult r = SCREEN.apply(ANALYZER.analyze(h.serverSensorOnly()));
        ConnectionProfile p = r.profile();
        assertEquals(CaptureMode.SERVER_SIDE, p.mode);
        assertSumsToDuration(r, 200_300);
        assertEquals(20_000, p.times.get(Category.SERVER), "the local host's time stays exact");
        assertEquals(3 * 60_000, p.times.get(Category.PROPAGATION), "one minimum round trip per round");
        assertEquals(300, p.times.get(Category.CLIENT_OR_QUEUING), "the client's time cannot be told from queuing");
        assertEquals(0, p.times.get(Category.CLIENT));
        assertEquals(0, p.times.get(Category.QUEUING));
        assertEquals(20_000, p.path.serverThinkUs());
    }

    @Test
    void clientSideCaptureAloneEstimatesServerThinkTime() {
        HandTrace h = HandTrace.smallTransfer(30, 30);
        ConnectionResult r = SCREEN.apply(ANALYZER.analyze(h.clientSensorOnly()));
        ConnectionProfile p = r.profile();
        assertEquals(CaptureMode.CLIENT_SIDE, p.mode);
        assertSumsToDuration(r, 200_300);
        assertEquals(300, p.times.get(Category.CLIENT));
        assertEquals(20_000, p.times.get(Category.SERVER_OR_QUEUING));
        assertEquals(3 * 60_000, p.times.get(Category.PROPAGATION));
        assertEquals(20_000, p.path.serverThinkUs());
        assertTrue(p.path.serverThinkEstimated());
    }

    @Test
    void slowStartRoundsFollowTheSimulatedWindowNotTheLatestAck() {
        // IW 2 as in tcpeval's figure 3; a slow server sends seg4 late, after ack2 already arrived
        Analyzer iw2 = new Analyzer(AnalysisConfig.builder().initialWindow(2).build());
        HandTrace h = new HandTrace(30, 30);
        double r = h.handshakeAndRequest(30);
        h.s(r).data(1000);                 // seg1
        h.s(r).data(1000);                 // seg2
        h.c(r + 30.1).ack(1001);           // ack1: cwnd 3, releases seg3, seg4
        h.c(r + 30.2).ack(2001);           // ack2: cwnd 4, releases seg5, seg6
        h.s(r + 60.1).data(1000);          // seg3, right after ack1
        h.s(r + 65).data(1000);            // seg4: liberated by ack1, sent 4.9 ms late
        h.s(r + 65).data(1000);            // seg5: liberated by ack2
        h.s(r + 65).data(1000).fin();      // seg6 + FIN
        double end = r + 65 + 30;
        h.c(end + 0.1).fin();
        h.s(end + 30.1);
        ConnectionTrace t = h.bothSensors();
        ConnectionResult res = SCREEN.apply(iw2.analyze(t));
        assertSumsToDuration(res, h.clientObservedDurationUs());

        Steps.Forward forward = Steps.forwardPass(t, iw2.config(), 1000);
        Timeline tl = forward.timeline();
        List<Tx> data = tl.txs.stream().filter(x -> !x.c2s() && x.p.len > 0).toList();
        assertEquals(6, data.size());
        Tx ack1 = tl.txs.stream().filter(x -> x.c2s() && x.p.ack == 1001).findFirst().orElseThrow();
        Tx ack2 = tl.txs.stream().filter(x -> x.c2s() && x.p.ack == 2001).findFirst().orElseThrow();
        assertEquals(ack1.idx(), forward.marks().liberator(data.get(2)), "seg3 released by ack1");
        assertEquals(ack1.idx(), forward.marks().liberator(data.get(3)), "seg4 released by ack1 although ack2 arrived before it left");
        assertEquals(ack2.idx(), forward.marks().liberator(data.get(4)), "seg5 released by ack2");
        assertEquals(ack2.idx(), forward.marks().liberator(data.get(5)), "seg6 released by ack2");
        // the path ends through seg6, released by ack2: the server's lateness is 4.8 ms on it
        PathArc hostArc = res.arcs().stream().filter(a -> a.kind() == PathArc.Kind.HOST && a.seq() == 5001).findFirst().orElseThrow();
        assertEquals(4_800, hostArc.durationUs());
        assertEquals(Category.SERVER, hostArc.category());
    }

    @Test
    void fastRetransmitIsToldApartByDuplicateAcks() {
        HandTrace h = new HandTrace(30, 30);
        double r = h.handshakeAndRequest(30);
        h.responseAckedEach(r, 10, 3);
        double rtx = r + 0.06 + 60.001 + 0.05; // right after the third duplicate ACK (sent when seg6 arrived)
        h.s(rtx).resend(2001, 1000);
        h.c(rtx + 30.001);
        h.s(rtx + 60.1).fin();
        h.c(rtx + 90.2).fin();
        h.s(rtx + 120.3);
        ConnectionResult res = SCREEN.apply(ANALYZER.analyze(h.bothSensors()));
        ConnectionProfile p = res.profile();
        assertSumsToDuration(res, h.clientObservedDurationUs());
        assertEquals(1, p.fastRetransmits());
        assertEquals(0, p.timeouts());
        assertEquals(1, p.retransmissions());
        assertEquals(7, p.c2s.dupAcksReceived + p.s2c.dupAcksReceived);
        assertEquals(Math.round((rtx - (r + 0.03)) * 1000), p.times.get(Category.LOSS_FAST_RETRANSMIT),
                "the loss arc runs from the lost copy's departure to its re-send");
        assertEquals(0, p.times.get(Category.LOSS_TIMEOUT));
        assertFalse(res.verdict().boring());
        assertTrue(res.verdict().failedRules().contains("no_retransmission"));
        assertFalse(res.verdict().failedRules().contains("no_timeout"));
    }

    @Test
    void tailDropIsRecoveredByTheTimer() {
        HandTrace h = new HandTrace(30, 30);
        double r = h.handshakeAndRequest(30);
        h.responseAckedEach(r, 10, 10);
        double rtx = r + 0.1 + 260;
        h.s(rtx).resend(9001, 1000);
        h.c(rtx + 30.001);
        h.s(rtx + 60.1).fin();
        h.c(rtx + 90.2).fin();
        h.s(rtx + 120.3);
        ConnectionResult res = SCREEN.apply(ANALYZER.analyze(h.bothSensors()));
        ConnectionProfile p = res.profile();
        assertSumsToDuration(res, h.clientObservedDurationUs());
        assertEquals(1, p.timeouts());
        assertEquals(0, p.fastRetransmits());
        assertEquals(260_000, p.times.get(Category.LOSS_TIMEOUT));
        assertTrue(res.verdict().failedRules().contains("no_timeout"), res.verdict().explanation());
    }

    @Test
    void theSameSegmentLostTwiceBacksOff() {
        HandTrace h = new HandTrace(30, 30);
        double r = h.handshakeAndRequest(30);
        h.responseAckedEach(r, 10, 10);
        double rtx1 = r + 0.1 + 260;
        double rtx2 = rtx1 + 520;
        h.s(rtx1).resend(9001, 1000).lost();
        h.s(rtx2).resend(9001, 1000);
        h.c(rtx2 + 30.001);
        h.s(rtx2 + 60.1).fin();
        h.c(rtx2 + 90.2).fin();
        h.s(rtx2 + 120.3);
        assertATimeoutThenABackoff(h, 260_000, 520_000);
    }

    /** Both sensors: one timeout and one backoff, each waiting this long on the path. */
    private static void assertATimeoutThenABackoff(HandTrace h, long timeoutUs, long backoffUs) {
        ConnectionResult res = SCREEN.apply(ANALYZER.analyze(h.bothSensors()));
        ConnectionProfile p = res.profile();
        assertSumsToDuration(res, h.clientObservedDurationUs());
        assertEquals(1, p.timeouts());
        assertEquals(1, p.backoffs());
        assertEquals(timeoutUs, p.times.get(Category.LOSS_TIMEOUT));
        assertEquals(backoffUs, p.times.get(Category.LOSS_BACKOFF));
    }

    /**
     * zeek's http/206_example_b.pcap: the client falls silent and the server re-sends two segments
     * on each timer expiry. The second of each pair left on that expiry, not on the client's last
     * ACK long before: the wait is the timers' (loss), not the server's, and one expiry counts once.
     */
    @ParameterizedTest
    @EnumSource(value = CaptureMode.class, names = {"TWO_POINT", "SERVER_SIDE"}) // the client's capture sees none of the lost copies
    void segmentsReSentTogetherOnOneTimerExpiryWaitedOnTheTimer(CaptureMode mode) {
        HandTrace h = new HandTrace(30, 30);
        double r = h.handshakeAndRequest(30);
        h.s(r + 0.1).data(1000).lost();
        h.s(r + 0.11).data(1000).lost();
        double rtx1 = r + 0.1 + 300;
        double rtx2 = rtx1 + 600;
        h.s(rtx1).resend(1, 1000).lost();
        h.s(rtx1 + 0.01).resend(1001, 1000).lost();
        h.s(rtx2).resend(1, 1000);
        h.s(rtx2 + 0.01).resend(1001, 1000);
        h.c(rtx2 + 30.02);
        ConnectionResult res = SCREEN.apply(ANALYZER.analyze(h.trace(mode)));
        ConnectionProfile p = res.profile();
        assertSumsToDuration(res, h.clientObservedDurationUs());
        assertEquals(1, p.timeouts());
        assertEquals(1, p.backoffs());
        long loss = p.times.get(Category.LOSS_TIMEOUT) + p.times.get(Category.LOSS_BACKOFF);
        assertTrue(loss >= 899_000, "the timers' 900 ms on the path: " + p.times);
        assertTrue(p.times.get(Category.SERVER) + p.times.get(Category.SERVER_OR_QUEUING) < 1_000, "no server stall: " + p.times);
    }

    /**
     * After a timeout the one-segment window is the timer's re-send's: the next new data, 5 ms
     * after the ACK that came back (beyond the ACK clock's slack), left on that ACK, not on the
     * request long before (that was a 365 ms server stall).
     */
    @ParameterizedTest
    @EnumSource(value = CaptureMode.class, names = {"TWO_POINT", "SERVER_SIDE"}) // the client's capture sees no lost copy
    void newDataAfterATimeoutLeavesOnTheAckOfItsReSend(CaptureMode mode) {
        HandTrace h = new HandTrace(30, 30);
        double r = h.handshakeAndRequest(30);
        h.s(r + 0.1).data(1000).lost();
        double rtx = r + 300.1;
        h.s(rtx).resend(1, 1000);
        h.c(rtx + 30.05);
        h.s(rtx + 65.1).data(1000);
        h.c(rtx + 95.2);
        assertOneTimeoutOnThePathAndNoStall(h.trace(mode), h, 300_000, 6_000);
    }

    /** One timeout whose wait is on the path, and of the server's time no more than its own reaction: no stall. */
    private static void assertOneTimeoutOnThePathAndNoStall(ConnectionTrace trace, HandTrace h, long timerUs, long serverUs) {
        ConnectionResult res = SCREEN.apply(ANALYZER.analyze(trace));
        ConnectionProfile p = res.profile();
        assertSumsToDuration(res, h.clientObservedDurationUs());
        assertEquals(1, p.timeouts(), p.toString());
        assertTrue(p.times.get(Category.LOSS_TIMEOUT) >= timerUs - 1_000, "the timer's wait on the path: " + p.times);
        long server = p.times.get(Category.SERVER) + p.times.get(Category.SERVER_OR_QUEUING);
        assertTrue(server < serverUs, "the server's own reaction, no stall: " + p.times + "\n" + res.arcs());
    }

    /**
     * The same seen from either capture alone when the response's tail is lost: ten segments, the
     * last lost, its timer's copy an RTO (60 ms and 200) after the ACK of the nine; new data after
     * that copy's ACK left on that ACK. The client's capture never sees the lost copy: the
     * server's IP ids count it.
     */
    @ParameterizedTest
    @EnumSource(CaptureMode.class)
    void newDataAfterATimeoutOfAnUnseenCopyLeavesOnTheAckOfItsReSend(CaptureMode mode) {
        HandTrace h = new HandTrace(30, 30);
        double r = h.handshakeAndRequest(30);
        for (int i = 0; i < 9; i++) {
            h.s(r + 0.1 * (i + 1)).data(1000);
        }
        h.s(r + 1).data(1000).lost();
        h.c(r + 31);
        double rtx = r + 61 + 260;
        h.s(rtx).resend(9001, 1000);
        h.c(rtx + 30.05);
        h.s(rtx + 65.1).data(1000);
        h.c(rtx + 95.2);
        assertOneTimeoutOnThePathAndNoStall(h.trace(mode), h, 260_000, 7_000); // the server's 5 ms and its burst
    }

    /**
     * A server whose timer re-sent into silence (300 ms, then 600 ms) and then resets: within its
     * next expiry (twice 600 ms, with room) it gave up on that timer, loss; seconds later it is
     * the application's close after quiet (Linux resets nothing when it gives up), idle.
     */
    @ParameterizedTest
    @CsvSource({"1200, LOSS_BACKOFF", "5000, IDLE"})
    void aResetAfterATimersReSendIsTheTimerRunningOutOnlyWithinItsNextExpiry(double waitMs, Category expected) {
        HandTrace h = new HandTrace(30, 30);
        double r = h.firstSegmentLostTwice(1000);
        h.s(r + 900.1).resend(1, 1000).lost();
        h.s(r + 900.1 + waitMs).rst();
        ConnectionResult res = SCREEN.apply(ANALYZER.analyze(h.bothSensors()));
        assertSumsToDuration(res, h.clientObservedDurationUs());
        PathArc last = res.arcs().stream().filter(a -> a.kind() == PathArc.Kind.HOST && a.flags().contains("R")).findFirst().orElseThrow();
        assertEquals(expected, last.category(), res.arcs().toString());
        assertEquals((long) (waitMs * 1000), last.durationUs(), 1);
    }

    /** The client's own data arriving just before the server's backed-off re-send released nothing: the timer sent it. */
    @Test
    void thePeersDataJustBeforeABackedOffReSendDoesNotReleaseIt() {
        HandTrace h = new HandTrace(30, 30);
        double r = h.firstSegmentLostTwice(1000);
        h.c(r + 900.1 - 30 - 0.6).data(100);
        h.s(r + 900.1).resend(1, 1000);
        h.c(r + 930.2);
        assertATimeoutThenABackoff(h, 300_000, 600_000);
    }

    @Test
    void aLostAckCostsATimeoutAndASpuriousResend() {
        HandTrace h = new HandTrace(30, 30);
        double r = h.handshakeAndRequest(30);
        h.s(r).data(1000).fin();
        h.c(r + 30.05).lost();                 // the client's ACK of data+FIN never arrives
        h.c(r + 30.1).fin();                   // the client closes too (its FIN acks again)
        h.s(r + 60.1).ack(102);                // server ACKs the client's FIN (its own FIN still unacked)
        double rtx = r + 230;
        h.s(rtx).resend(1, 1000).fin();        // the timer re-sends data+FIN
        h.c(rtx + 30.05);                      // the client answers the duplicate
        ConnectionResult res = SCREEN.apply(ANALYZER.analyze(h.bothSensors()));
        ConnectionProfile p = res.profile();
        assertSumsToDuration(res, h.clientObservedDurationUs());
        assertEquals(1, p.timeouts());
        assertEquals(1, p.s2c.spuriousRetransmissions, "the data had arrived; the ACK was lost");
        assertEquals(230_000, p.times.get(Category.LOSS_TIMEOUT));
    }

    @Test
    void zeroWindowTimeIsTheSlowReadersAndFlagged() {
        HandTrace h = new HandTrace(10, 10);
        double r = h.handshakeAndRequest(10);
        h.s(r).data(1000);
        h.s(r).data(1000);
        h.c(r + 10.1).window(0);               // buffer full: window closes
        h.c(r + 160.1).window(1000);           // the application read 150 ms later
        h.s(r + 170.15).data(1000).fin();
        h.c(r + 180.3).fin();
        h.s(r + 190.4);
        ConnectionResult res = SCREEN.apply(ANALYZER.analyze(h.bothSensors()));
        ConnectionProfile p = res.profile();
        assertSumsToDuration(res, h.clientObservedDurationUs());
        assertEquals(150_000, p.s2c.zeroWindowUs);
        assertEquals(1, p.s2c.zeroWindowEpisodes);
        PathArc read = res.arcs().stream().filter(a -> a.kind() == PathArc.Kind.HOST && a.endpoint() == Endpoint.CLIENT
                && a.durationUs() > 100_000).findFirst().orElseThrow();
        assertEquals(150_100, read.durationUs(), "the reader's delay (data arrival to window update) is client time on the path");
        assertTrue(res.verdict().failedRules().contains("never_rwnd_limited"), res.verdict().explanation());
    }

    @Test
    void aPacketTheCaptureFilterDroppedIsNotALoss() {
        HandTrace h = new HandTrace(30, 30);
        double r = h.handshakeAndRequest(30);
        for (int i = 1; i <= 6; i++) {
            HandTrace.P p = h.s(r + 0.01 * i).data(1000);
            if (i == 4) {
                p.notCapturedAtSender();
            }
        }
        h.c(r + 30.2);
        h.s(r + 60.3).fin();
        h.c(r + 90.4).fin();
        h.s(r + 120.5);
        ConnectionResult res = SCREEN.apply(ANALYZER.analyze(h.bothSensors()));
        ConnectionProfile p = res.profile();
        assertSumsToDuration(res, h.clientObservedDurationUs());
        assertEquals(0, p.retransmissions());
        assertEquals(1, p.quality.captureGaps());
        assertEquals(0, p.quality.lostBetweenSensors());
        assertEquals(6000, p.s2c.bytes + 1000 - 1000, "all six segments counted once");
        assertTrue(res.verdict().boring(), res.verdict().explanation());
    }

    @Test
    void keepAliveGivesOneProfilePerExchange() {
        HandTrace h = new HandTrace(25, 25);
        double t = h.handshakeAndRequest(25);
        double[] think = {20, 80, 150};
        for (int i = 0; i < 3; i++) {
            h.s(t + think[i]).data(5000);
            double arrive = t + think[i] + 25;
            if (i < 2) {
                h.c(arrive + 30).data(100);    // 30 ms client pause, then the next request
                t = arrive + 30 + 25;
            } else {
                h.c(arrive + 0.1).fin();
                h.s(arrive + 25.2).fin();
                h.c(arrive + 50.3);
            }
        }
        ConnectionResult res = SCREEN.apply(ANALYZER.analyze(h.bothSensors()));
        assertSumsToDuration(res, h.clientObservedDurationUs());
        assertEquals(3, res.exchanges().size());
        for (int i = 0; i < 3; i++) {
            ExchangeProfile x = res.exchanges().get(i);
            assertEquals(Math.round(think[i] * 1000), x.serverThinkUs(), "exchange " + i);
            assertEquals(100, x.requestBytes());
            assertEquals(5000, x.responseBytes());
            assertEquals(Math.round(think[i] * 1000), x.times().get(Category.SERVER), "exchange " + i + " server time");
            assertEquals(50_000, x.times().get(Category.PROPAGATION));
        }
        assertEquals(2 * 30_000 + 100 + 100, res.profile().times.get(Category.CLIENT), "the pauses between requests, closing, the last ACK");
    }

    @Test
    void duplicatesInTheCaptureAreDroppedNotCountedAsRetransmissions() {
        HandTrace h = HandTrace.smallTransfer(30, 30);
        ConnectionTrace t = h.bothSensors();
        var client = new java.util.ArrayList<>(t.captures().get(0).packets());
        var copy = client.get(4).withTsUs(client.get(4).tsUs() + 3_000); // same IP id, 3 ms later
        client.add(5, copy);
        ConnectionTrace dup = new ConnectionTrace(t.communityId(), t.clientAddr(), t.clientPort(), t.serverAddr(), t.serverPort(),
                List.of(new dev.critpath.core.trace.SensorCapture("client-side", t.captures().get(0).roleHint(), client), t.captures().get(1)));
        ConnectionResult res = SCREEN.apply(ANALYZER.analyze(dup));
        assertEquals(1, res.profile().quality.duplicatesRemoved());
        assertEquals(0, res.profile().retransmissions());
        assertEquals(200_300, res.profile().durationUs());
    }
}
