package dev.critpath.core.analysis.sender;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.critpath.core.analysis.DirectionStats;
import org.junit.jupiter.api.Test;

class WindowAccountingTest {
    private static final int MSS = 1000;

    @Test
    void timeBoundByAFullReceiveWindowCountsUntilTheNextAck() {
        DirectionStats stats = new DirectionStats();
        WindowAccounting w = new WindowAccounting(stats, MSS);
        w.ack(0, 1, 1, 4000, 100_000);          // rwnd 4000 < cwnd: bound by the receiver
        w.sent(4001, 1, 4000);                  // and the sender filled it
        w.ack(30_000, 4001, 4001, 4000, 100_000);
        assertEquals(30_000, stats.rwndLimitedUs);
        w.sent(8001, 4001, 4000);               // filled again
        w.ack(50_000, 8001, 8001, 4000, 5_000); // cwnd the smaller now: not the receiver's doing
        w.ack(90_000, 8001, 8001, 4000, 5_000);
        assertEquals(30_000 + 20_000, stats.rwndLimitedUs, "the stretch before is still the receiver's");
    }

    @Test
    void aWindowNotFilledIsNotTheReceiversDoing() {
        DirectionStats stats = new DirectionStats();
        WindowAccounting w = new WindowAccounting(stats, MSS);
        w.ack(0, 1, 1, 40_000, 100_000);
        w.sent(2001, 1, 40_000);
        w.ack(30_000, 2001, 2001, 40_000, 100_000);
        assertEquals(0, stats.rwndLimitedUs);
    }

    @Test
    void aZeroWindowCountsOnlyWithDataWaitingBehindIt() {
        DirectionStats waiting = new DirectionStats();
        WindowAccounting w = new WindowAccounting(waiting, MSS);
        w.ack(0, 1, 5001, 0, 100_000);
        w.ack(200_000, 5001, 5001, 8000, 100_000);
        w.finish(300_000, 5001, 9001, false);
        assertEquals(200_000, waiting.zeroWindowUs);
        assertEquals(1, waiting.zeroWindowEpisodes);

        DirectionStats idle = new DirectionStats();
        WindowAccounting quiet = new WindowAccounting(idle, MSS);
        quiet.ack(0, 5001, 5001, 0, 100_000);
        quiet.finish(300_000, 5001, 5001, false); // closed to the end, but nothing was ever to be sent
        assertEquals(0, idle.zeroWindowUs);
        assertEquals(0, idle.zeroWindowEpisodes);
    }
}
