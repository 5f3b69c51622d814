package dev.critpath.core.analysis.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.critpath.core.analysis.AnalysisConfig;
import dev.critpath.core.analysis.Category;
import dev.critpath.core.analysis.ConnectionAnalysis;
import dev.critpath.core.analysis.ConnectionProfile;
import dev.critpath.core.analysis.ExchangeProfile;
import dev.critpath.core.analysis.PathPrior;
import dev.critpath.core.analysis.SegmentStart;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.analysis.sender.TxKind;
import dev.critpath.core.testing.HandTrace;
import dev.critpath.core.testing.Steps;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The profile step alone, on the earlier steps' values for a hand-built keep-alive connection. */
class ProfilerTest {
    private static ConnectionAnalysis profile(HandTrace h) {
        Steps s = Steps.run(h.bothSensors());
        return new Profiler(AnalysisConfig.defaults(), PathPrior.NONE)
                .profile(s.trace(), s.space(), s.timeline(), s.senders(), s.path(), SegmentStart.WHOLE);
    }

    /** Two requests on one connection, 30 ms each way: 20 ms then 10 ms of think time, 5 ms of the client's between them. */
    private static HandTrace twoExchanges() {
        HandTrace h = new HandTrace(30, 30);
        double request = h.handshakeAndRequest(30);   // the first request reaches the server at 90 ms
        h.s(request + 20).data(1000);                  // answered 20 ms later, arrives at 140 ms
        h.c(145).data(200);                            // the second request, 5 ms after; arrives at 175 ms
        h.s(185).data(2000).fin();                     // answered 10 ms later, arrives at 215 ms
        h.c(215.2).fin();
        h.s(245.2);
        return h;
    }

    @Test
    void everyMicrosecondOfThePathLandsInOneCategory() {
        ConnectionProfile p = profile(twoExchanges()).profile();
        assertEquals(275_200, p.durationUs());
        assertEquals(8 * 30_000, p.times.get(Category.PROPAGATION), "eight crossings on the path");
        assertEquals(20_000 + 10_000, p.times.get(Category.SERVER));
        assertEquals(5_000 + 200, p.times.get(Category.CLIENT));
        assertEquals(p.durationUs(), p.times.total());
        assertEquals(4, p.path.rounds(), "SYN, two requests, FIN: one round trip each");
    }

    @Test
    void eachExchangeHasItsOwnShareAndThinkTime() {
        ConnectionAnalysis a = profile(twoExchanges());
        assertEquals(2, a.exchanges().size());
        ExchangeProfile first = a.exchanges().get(0);
        ExchangeProfile second = a.exchanges().get(1);
        assertEquals(100, first.requestBytes());
        assertEquals(1000, first.responseBytes());
        assertEquals(20_000, first.serverThinkUs());
        assertEquals(200, second.requestBytes());
        assertEquals(2000, second.responseBytes());
        assertEquals(10_000, second.serverThinkUs());
        assertEquals(10_000, second.times().get(Category.SERVER), "the exchange's part of the path");
    }

    /** The request's first copy is lost and its timer re-sends it: the server answers the copy that arrived (issue 18, item 11). */
    @Test
    void serverThinkTimeIsFromTheRequestCopyThatArrived() {
        HandTrace h = new HandTrace(30, 30);
        h.c(0).syn();
        h.s(30).syn();
        h.c(60).ack(1);
        h.c(60).data(100).lost();
        h.c(310).resend(1, 100);          // re-sent by the timer, arrives at 340 ms
        h.s(340.3).data(1000).fin();      // answered 0.3 ms later
        h.c(370.3).fin();
        h.s(400.3);
        ExchangeProfile x = profile(h).exchanges().get(0);
        assertEquals(300, x.serverThinkUs());
    }

    /** From both captures and from the server's alone (where the lost copy's arrival is only an estimate). */
    @ParameterizedTest(name = "server sensor only: {0}")
    @ValueSource(booleans = {false, true})
    void anExchangeEndsWhenTheLastHoleIsFilledAndItsLossIsOnThePath(boolean serverSensorOnly) {
        HandTrace h = new HandTrace(30, 30);
        h.holeFilledThenNextRequest(h.handshakeAndRequest(30));
        Steps s = Steps.run(serverSensorOnly ? h.serverSensorOnly() : h.bothSensors());
        ConnectionAnalysis a = new Profiler(AnalysisConfig.defaults(), PathPrior.NONE)
                .profile(s.trace(), s.space(), s.timeline(), s.senders(), s.path(), SegmentStart.WHOLE);
        Tx holeFill = s.timeline().txs.stream().filter(t -> s.senders().marks().kind(t) == TxKind.RETRANSMISSION).findFirst().orElseThrow();
        ExchangeProfile first = a.exchanges().get(0);
        assertEquals(holeFill.arr(), first.endUs(), "the response is whole when the re-send fills its hole, not when its highest byte arrives");
        assertEquals(60_131, first.times().get(Category.LOSS_FAST_RETRANSMIT), "the lost segment's departure to its fast retransmit");
        assertEquals(60_131, a.profile().times.get(Category.LOSS_FAST_RETRANSMIT));
    }
}
