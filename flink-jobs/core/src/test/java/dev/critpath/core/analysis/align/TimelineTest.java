package dev.critpath.core.analysis.align;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.analysis.CaptureMode;
import dev.critpath.core.analysis.ClockHint;
import dev.critpath.core.analysis.PathPrior;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.testing.HandTrace;
import dev.critpath.core.testing.LabFixtures;
import dev.critpath.core.testing.Steps;
import dev.critpath.core.trace.ConnectionTrace;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.params.ParameterizedTest;

/** The align step alone: roles, matching, the sensors' clock, estimates for what a sensor missed. */
class TimelineTest {
    private static Timeline align(ConnectionTrace t, PathPrior prior) {
        return Steps.aligned(t, prior);
    }

    @Test
    void twoSensorsEveryPacketOnceWithBothEndsOnTheClientsClock() {
        Timeline tl = align(HandTrace.smallTransfer(30, 30).serverClockOffsetMs(1500).bothSensors(), PathPrior.NONE);
        assertEquals(CaptureMode.TWO_POINT, tl.mode);
        assertEquals(7, tl.txs.size(), "each packet once, matched across the sensors");
        for (Tx t : tl.txs) {
            assertEquals(30_000, t.arr() - t.dep(), "the offset taken out: " + t);
            assertFalse(t.depEstimated() || t.arrEstimated());
        }
        assertEquals(1_500_000, tl.clock.offsetUs());
        assertEquals(30_000, tl.clock.uncertaintyUs(), "half the minimum round trip");
        assertEquals(60_000, tl.minRttUs);
        for (int i = 1; i < tl.txs.size(); i++) {
            assertEquals(i, tl.txs.get(i).idx());
            assertTrue(tl.txs.get(i).dep() >= tl.txs.get(i - 1).dep(), "in time order");
        }
    }

    @Test
    void anAsymmetricPathMovesTheOffsetByHalfTheAsymmetryWithinItsUncertainty() {
        Timeline tl = align(HandTrace.smallTransfer(10, 40).serverClockOffsetMs(800).bothSensors(), PathPrior.NONE);
        assertEquals(800_000 - 15_000, tl.clock.offsetUs());
        assertTrue(Math.abs(tl.clock.offsetUs() - 800_000) <= tl.clock.uncertaintyUs());
    }

    /** Karn's rule: an ACK of a segment sent twice does not say which copy it answers (issue 18, item 4). */
    @ParameterizedTest(name = "server sensor only: {0}")
    @ValueSource(booleans = {true, false})
    void noRoundTripIsTimedFromASegmentSentTwice(boolean serverSensorOnly) {
        HandTrace h = new HandTrace(50, 50);
        h.c(0).syn();
        h.s(50).syn();
        h.c(100).ack(1).lost();           // the handshake's ACK is lost
        h.s(1050).syn();                  // so the server's timer re-sends its SYN/ACK
        h.c(1020).data(100);              // the request, acknowledging the first SYN/ACK, reaches the server 20 ms after the re-send
        h.s(1100).data(1000);
        h.c(1150).ack(1001);
        Timeline tl = align(serverSensorOnly ? h.serverSensorOnly() : h.clientSensorOnly(), PathPrior.NONE);
        assertEquals(100_000, tl.minRttUs);
    }

    /**
     * A byte sent again just below what the peer acknowledged looks like a keep-alive, whose bare
     * ACK times a round trip on an idle connection; the peer's own data 10 ms later answers
     * nothing (pymptcpanalyzer's client_1_tcp_only.pcap port 59428 made a 100 ms path 59 ms so).
     */
    @Test
    void aPeersDataAfterAKeepAliveTimesNoRoundTrip() {
        HandTrace h = new HandTrace(30, 30);
        double r = h.handshakeAndRequest(30);
        h.s(r + 0.1).data(1);
        h.c(r + 30.2);
        double again = r + 500;
        h.c(again).resend(100, 1);                // the request's last byte once more
        h.s(again + 30 - 20).data(1);             // the server's next message, sent before that byte reached it
        h.c(again + 20 + 30.1);
        Timeline tl = align(h.clientSensorOnly(), PathPrior.NONE);
        assertEquals(60_000, tl.minRttUs, 1_000);
    }

    @Test
    void oneSensorPutsTheRemoteEndHalfAMinimumRoundTripAway() {
        Timeline tl = align(HandTrace.smallTransfer(30, 30).serverSensorOnly(), PathPrior.NONE);
        assertEquals(CaptureMode.SERVER_SIDE, tl.mode);
        assertEquals(60_000, tl.minRttUs);
        assertEquals(30_000, tl.minOwdC2s);
        for (Tx t : tl.txs) {
            assertEquals(t.c2s(), t.depEstimated(), "the client's departures are the estimates: " + t);
            assertEquals(!t.c2s(), t.arrEstimated(), "and so are its arrivals: " + t);
        }
    }

    /**
     * A packet the path held 8 ms longer arrives 8 ms later than its TSval says it left: from one
     * capture its departure is placed by that stamp (within the stamps' rounding: two ticks), not
     * half a round trip before its arrival. Without timestamps, with stamps that are no clock
     * (randomised), or with a clock whose steps (10 ms, a 100 Hz timer counting milliseconds) are
     * coarser than the queue, half a round trip it stays.
     */
    @ParameterizedTest(name = "server stamps: {0}")
    @ValueSource(strings = {"a 1 ms clock", "none", "random", "ms stepping by 10"})
    void oneSensorPlacesAQueuedRemotePacketByItsTimestamp(String stamps) {
        HandTrace h = new HandTrace(20, 20);
        long serverClockMs = 7_000; // the server's stamps start anywhere
        java.util.Random random = new java.util.Random(1);
        h.c(0).syn();
        h.s(20).syn();
        h.c(40).data(100);
        for (int i = 0; i < 100; i++) { // 100 ms of the server's stamps, one a millisecond, so their clock shows
            HandTrace.P p = h.s(60 + i).data(1000);
            if (i == 50) {
                p.queued(8);
            }
            switch (stamps) {
                case "a 1 ms clock" -> p.tsval(serverClockMs + 60 + i);
                case "ms stepping by 10" -> p.tsval(serverClockMs + (60 + i) / 10 * 10);
                case "random" -> p.tsval(i == 0 || i == 99 ? serverClockMs + 60 + i : random.nextInt() & 0xffff_ffffL); // the ends fit a clock
                default -> { }
            }
        }
        h.c(200).ack(100_001);
        Timeline tl = align(h.clientSensorOnly(), PathPrior.NONE);
        assertEquals(40_000, tl.minRttUs);
        long start = tl.txs.get(0).dep();
        Tx queued = tl.txs.stream().filter(t -> !t.c2s() && t.arr() - start == (60 + 50 + 20 + 8) * 1000L).findFirst().orElseThrow();
        assertEquals(stamps.equals("a 1 ms clock") ? 60 + 50 + 2 : 60 + 50 + 8, (queued.dep() - start) / 1000, "left at 110 ms: " + queued);
        for (Tx t : tl.txs) {
            if (!t.c2s() && t != queued && t.p.len > 0) {
                assertEquals(20_000, t.arr() - t.dep(), "the others took the shortest delay: " + t);
            }
        }
    }

    /**
     * A jittery 20 ms path where no round trip is quick both ways: each request or its reply is
     * held 6 ms. From the client's capture alone, the server's stamps (a 1 ms clock) time each way
     * apart: a reply stamped just after the request it answers arrived bounds the way up, a reply
     * stamped just before it left the way down. Their least add up to 40 ms and a little rounding,
     * never less; without stamps, with stamps that are no clock, or with the two quick ways more
     * than a second apart (the clocks' rates are not trusted over longer), it is the least round
     * trip of 46 ms.
     */
    @ParameterizedTest(name = "server stamps: {0}")
    @ValueSource(strings = {"a 1 ms clock", "none", "random", "a 1 ms clock, quick ways 3 s apart"})
    void oneSensorAddsUpEachWaysLeastDelayByTheFarEndsStamps(String stamps) {
        boolean apart = stamps.endsWith("apart");
        HandTrace h = new HandTrace(20, 20);
        java.util.Random random = new java.util.Random(1);
        h.c(0).syn().tsval(0);
        h.s(20).syn().tsval(1020).tsecr(0).queued(6);
        double sent = 0;
        int exchanges = apart ? 40 : 10;
        for (int i = 0; i < exchanges; i++) {
            // the quick way up on the first exchange, the quick way down on the last; 0.9 ms into a
            // client millisecond the request reaches the server just before its clock ticks
            boolean upQuick = i == 0;
            boolean downQuick = i == exchanges - 1;
            sent = i == 0 ? 50.9 : sent + 100;
            double request = upQuick ? sent : sent + 0.1; // the slow ones reach it just after a tick
            HandTrace.P req = h.c(request).data(100).tsval((long) request).tsecr(1020);
            req.queued(upQuick ? 0 : 6);
            double replied = request + 20 + (upQuick ? 0 : 6) + 0.05;
            long stamp = 1000 + (long) replied;
            HandTrace.P reply = h.s(replied).data(1000).tsecr((long) request).queued(downQuick ? 0 : 6);
            switch (stamps) {
                case "none" -> { }
                case "random" -> reply.tsval(i == 0 || i == exchanges - 1 ? stamp : random.nextInt() & 0xffff_ffffL);
                default -> reply.tsval(stamp);
            }
        }
        Timeline tl = align(h.clientSensorOnly(), PathPrior.NONE);
        if (stamps.equals("a 1 ms clock")) {
            assertTrue(tl.minRttUs >= 40_000 && tl.minRttUs <= 40_200, "each way's least, 20 ms, added up: " + tl.minRttUs);
        } else {
            assertEquals(46_000, tl.minRttUs);
        }
    }

    /**
     * A far end whose timestamp clock loses 1 % against the capture's (a host missing timer
     * ticks): over 10 s its stamps fall 100 ms behind, which, read as a way back ever longer,
     * placed its replies before the requests they answer had reached it. The local end's stamps,
     * echoed, show the way there shortening as much: the drift is taken out and each reply placed
     * where it left. A queue that builds on the way back alone is no drift, nor is one that moves
     * from the way back to the way there at once (the ways' sum holds, but in a step): the queued
     * replies are placed by their stamps.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"the server's clock losing 1 %", "replies queued ever longer", "a queue moving from the way back to the way there"})
    void oneSensorTakesOutTheDriftOfAFarClockThatBothWaysShow(String story) {
        double rate = story.startsWith("the server") ? 0.99 : 1;
        boolean moving = story.startsWith("a queue moving");
        HandTrace h = new HandTrace(20, 20);
        h.c(0).syn().tsval(0);
        h.s(20).syn().tsval(1000 + (long) (20 * rate)).tsecr(0).queued(moving ? 30 : 0);
        h.c(70).ack(1).tsval(70).tsecr(1000 + (long) (20 * rate));
        for (int i = 0; i < 100; i++) {
            double request = 80 + 100.3 * i; // stamps a millisecond apart at times, so their steps show a 1 ms clock
            double up = moving && i >= 33 ? 30 : 0; // the first third of the stamps' span ends at the 33rd request
            double down = moving ? 30 - up : story.startsWith("replies") ? 0.5 * i : 0;
            double replied = request + 20 + up + 5;
            h.c(request).data(100).tsval((long) request).tsecr(1000 + (long) ((replied - 100) * rate)).queued(up);
            h.s(replied).data(1000).tsval(1000 + (long) (replied * rate)).tsecr((long) request).queued(down);
        }
        Timeline tl = align(h.clientSensorOnly(), PathPrior.NONE);
        for (Tx t : tl.txs) {
            if (!t.c2s() && t.p.len > 0) {
                long left = h.scripted(t).departedUs();
                assertTrue(Math.abs(t.dep() - left) <= 3_000, "placed where it left, " + left + ": " + t);
            }
        }
    }

    /**
     * Issue 18, item 1: from the client's capture, ACKs queued on a slow uplink reach the server
     * later than half the least round trip puts them. The server's timestamp echoes show which it
     * had not taken in when each segment left: every ACK is estimated to arrive after each server
     * departure it truly came after, and (the downlink has no queue) no later than it did.
     */
    @Test
    void oneClientSensorPutsQueuedAcksAfterTheServerDeparturesThatLeftBeforeThem() {
        HandTrace h = HandTrace.queuedAcks(4, Double.MAX_VALUE);
        Timeline tl = align(h.clientSensorOnly(), PathPrior.NONE);
        List<Tx> acks = tl.txs.stream().filter(t -> t.c2s() && t.isPureAck()).toList();
        List<Tx> data = tl.txs.stream().filter(t -> !t.c2s() && t.isData()).toList();
        int queued = 0;
        for (Tx ack : acks) {
            long arrived = h.scripted(ack).arrivedUs();
            assertTrue(ack.arr() <= arrived, "no later than it arrived: " + ack + ", truly at " + arrived);
            queued += arrived - ack.dep() > tl.minOwdC2s + 1_000 ? 1 : 0;
            for (Tx d : data) {
                if (h.scripted(d).departedUs() < arrived) {
                    assertTrue(ack.arr() > d.dep(), ack + " truly reached the server after " + d + " left");
                }
            }
        }
        assertTrue(queued >= 10, queued + " ACKs queued by more than 1 ms: the case this checks");
    }

    @Test
    void whatOneSensorMissedIsEstimatedAndWhatTheNetworkLostIsCounted() {
        HandTrace h = new HandTrace(20, 20);
        h.c(0).syn();
        h.s(20).syn();
        h.c(40).ack(1);
        h.c(40.1).data(100).notCapturedAtSender();
        h.s(60.1 + 5).data(500);
        h.s(65.2).data(500).lost();
        h.c(85.2);
        Timeline tl = align(h.bothSensors(), PathPrior.NONE);
        Tx missed = tl.txs.stream().filter(t -> t.c2s() && t.p.len == 100).findFirst().orElseThrow();
        assertTrue(missed.depEstimated(), "seen only where it arrived");
        assertEquals(20_000, missed.arr() - missed.dep(), "one minimum delay before its arrival");
        assertEquals(1, tl.captureGaps);
        assertEquals(1, tl.lostBetweenSensors, "left the server's sensor, never reached the client's");
    }

    /** Issue 18, item 10: nobody re-sends a lost ACK, so only the two sensors can tell it was lost. */
    @Test
    void aPureAckLostBetweenTheSensorsIsCountedApartButNotOneTheReceiversSensorMissed() {
        HandTrace h = new HandTrace(20, 20);
        h.c(0).syn();
        h.s(20).syn();
        h.c(40).ack(1);
        h.c(40.1).data(100);
        h.s(60.2).data(1000);
        h.s(60.3).data(1000);
        h.c(80.2).tsval(7).lost();                      // lost between the sensors
        h.c(80.3).tsval(8).notCapturedAtReceiver();     // reached the server, whose sensor dropped it
        h.s(100.3).data(1000).tsecr(8);                 // the server echoes the ACK only it saw
        h.c(120.3).tsval(9);
        h.c(121).fin().tsval(9);
        h.s(141).ack(102).fin().tsecr(9);
        h.c(161).tsval(10).notCapturedAtReceiver();     // the server's sensor stopped: nobody can tell
        Timeline tl = align(h.bothSensors(), PathPrior.NONE);
        assertEquals(1, tl.lostBetweenSensors, "the lost ACK");
        assertEquals(1, tl.acksLostBetweenSensors);
        assertEquals(1, tl.captureGaps, "the ACK the server's sensor dropped, its arrival estimated");
        Tx echoed = tl.txs.stream().filter(t -> t.c2s() && t.p.tsval == 8).findFirst().orElseThrow();
        assertTrue(echoed.arrEstimated());
        assertEquals(20_000, echoed.arr() - echoed.dep());
    }

    @Test
    void aConnectionSeenOneWayTakesThePathsClockAndDelays() {
        HandTrace h = HandTrace.smallTransfer(30, 30).serverClockOffsetMs(1500);
        List<PacketEvent> clientsPacketsAtTheServer = h.serverCapture().stream().filter(PacketEvent::isOrig).toList();
        ConnectionTrace oneWay = LabFixtures.oneConnection(h.clientCapture(), clientsPacketsAtTheServer);
        Timeline guessed = align(oneWay, PathPrior.NONE);
        assertFalse(guessed.clock.reliable());
        Timeline hinted = align(oneWay, new PathPrior(30_000, 30_000, new ClockHint(1_500_000, 30_000)));
        assertTrue(hinted.clock.fromPair());
        assertEquals(1_500_000, hinted.clock.offsetUs());
        assertEquals(30_000, hinted.minOwdS2c, "a direction no packet of which both sensors saw: the path's");
    }
}
