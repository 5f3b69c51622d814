package dev.critpath.core.analysis.sender;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.analysis.AnalysisConfig;
import dev.critpath.core.analysis.DirectionStats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CongestionControlTest {
    /**
     * Events from a window of 10 segments in congestion avoidance, 10 in flight, 100 sent
     * (ack:UNA:ACKED, reno-ack the same without SACK, dup, fr = fast retransmit, rto, backoff), then the state and the window.
     */
    @Test
    void congestionAvoidanceAddsOneSegmentPerWindowAcknowledged() {
        AnalysisConfig cfg = AnalysisConfig.builder().initialWindow(10).initialSsthresh(10).build();
        CongestionControl cc = new CongestionControl(cfg, new DirectionStats());
        cc.validate(10, 1, 100);
        for (int una = 2; una <= 26; una++) { // 25 segments acknowledged one by one
            cc.cumulativeAck(una, 1, 1, 10, false);
        }
        assertEquals(12, cc.cwnd(), "10 acknowledged at 10 make 11, 11 more at 11 make 12, 4 left over");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
        "an ACK in avoidance;                         ack:11:1;                         OPEN;     10",
        "a duplicate ACK: Disorder;                   dup;                              DISORDER; 10",
        "a new ACK ends Disorder;                     dup ack:11:1;                     OPEN;     10",
        "a fast retransmit halves into Recovery;      dup dup dup fr;                   RECOVERY; 10",
        "a partial ACK stays in Recovery;             dup fr ack:50:5;                  RECOVERY; 6",
        "the recovery point ends it, from ssthresh;   dup fr ack:100:9;                 OPEN;     6",
        "without SACK that ACK grows nothing;         dup fr reno-ack:100:9;            OPEN;     5",
        "no second Recovery inside one;               fr fr;                            RECOVERY; 10",
        "a timeout: Loss with one segment;            rto;                              LOSS;     1",
        "Loss ends at the point it began;             rto ack:100:9;                    OPEN;     6",
        "but not before;                              rto ack:50:5;                     LOSS;     5",
        "a timeout ends Recovery too;                 fr rto;                           LOSS;     1",
        "no fast retransmit in Loss;                  rto fr;                           LOSS;     1",
        "duplicate ACKs leave Loss alone;             rto dup dup;                      LOSS;     1",
    })
    void transitionsAsLinuxNamesThem(String what, String events, CongestionControl.State state, long cwnd) {
        AnalysisConfig cfg = AnalysisConfig.builder().initialWindow(10).initialSsthresh(10).build();
        CongestionControl cc = new CongestionControl(cfg, new DirectionStats());
        cc.validate(10, 1, 100); // the window is in use: it may grow
        long pipe = 10;
        for (String e : events.trim().split(" ")) {
            String[] p = e.split(":");
            switch (p[0]) {
                case "ack", "reno-ack" -> {
                    pipe = Math.max(0, pipe - Long.parseLong(p[2]));
                    cc.cumulativeAck(Long.parseLong(p[1]), Long.parseLong(p[2]), Long.parseLong(p[2]), pipe, p[0].equals("reno-ack"));
                }
                case "dup" -> cc.duplicateAck(1, pipe);
                case "fr" -> cc.fastRetransmit(100, 1);
                case "rto" -> cc.timeout(100, 1_000, false);
                default -> throw new IllegalArgumentException(e);
            }
        }
        assertEquals(state, cc.state());
        assertEquals(cwnd, cc.cwnd(), "cwnd");
    }

    /**
     * Linux's tcp_cwnd_reduction below ssthresh: the ACK that starts a recovery is its first
     * delivery; a duplicate ACK then lets out what was delivered and not yet sent, one segment
     * more only for an ACK that moves the cumulative point.
     */
    @Test
    void proportionalRateReductionCountsAsLinuxDoes() {
        CongestionControl cc = recoveringFromTwenty();
        cc.duplicateAck(1, 8);
        assertEquals(9, cc.cwnd(), "delivered 2, sent 1: one more");
        cc.duplicateAck(1, 8);
        assertEquals(10, cc.cwnd(), "delivered 3, sent 1: two more");
        cc.cumulativeAck(50, 3, 3, 5, false);
        assertEquals(10, cc.cwnd(), "delivered 6, sent 1: five, and one for the cumulative point, limited to ssthresh less pipe (5)");
    }

    /** Without SACK a partial ACK marks the next hole lost (tcp_newreno_mark_lost): out of flight until re-sent, and no segment more. */
    @Test
    void aPartialAckWithoutSackLetsOutWhatItDelivered() {
        CongestionControl cc = recoveringFromTwenty();
        assertTrue(cc.cumulativeAck(50, 3, 1, 6, true), "partial");
        assertEquals(6, cc.cwnd(), "5 in flight besides the lost hole, and the one segment delivered beyond what was sent");
    }

    /** A window of 20 in fast recovery (ssthresh 10) from the third duplicate ACK, its re-send sent. */
    private static CongestionControl recoveringFromTwenty() {
        AnalysisConfig cfg = AnalysisConfig.builder().initialWindow(20).initialSsthresh(100).build();
        CongestionControl cc = new CongestionControl(cfg, new DirectionStats());
        cc.duplicateAck(1, 10);
        cc.fastRetransmit(100, 1);
        cc.sent(1);
        return cc;
    }
}
