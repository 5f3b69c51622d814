package dev.critpath.core.analysis.sender;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.critpath.core.analysis.AnalysisConfig;
import dev.critpath.core.analysis.LossCause;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LossClassifierTest {
    private static final long NONE = LossClassifier.NONE;

    /**
     * A re-send of bytes 1001-2001 at t = 1,000,000 µs, the original sent at 0, 10,001 sent in all,
     * min RTT 40 ms: what the sender had seen (evidence and last ACK in µs before the re-send,
     * -1: none), its state, SACK, and the segment's last timer (none, timeout at the same una, at
     * an earlier una), and whether the minimum RTO had passed since the timer was last started
     * (started 250 ms before, or 60 ms). SRTT 40 ms, the probe timer started 120 ms before.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
        "dup ACKs just before: fast retransmit;            100;  100;  DISORDER; false; none; true;         FAST_RETRANSMIT",
        "a partial ACK in Recovery: fast retransmit;       100;  100;  RECOVERY; false; none; true;         FAST_RETRANSMIT",
        "SACK evidence in Open: fast retransmit;           100;  100;  OPEN;     true;  none; true;         FAST_RETRANSMIT",
        "RACK's reordering window (min RTT / 4) with SACK; 9000; 9000; OPEN;     true;  none; true;         FAST_RETRANSMIT",
        "but not without SACK;                             9000; 9000; DISORDER; false; none; true;         TIMEOUT",
        "no loss evidence: a timer;                        -1;   100;  DISORDER; false; none; true;         TIMEOUT",
        "never in Loss;                                    100;  100;  LOSS;     false; none; true;         TIMEOUT",
        "the same segment's timer again, no progress;      -1;   -1;   LOSS;     false; same-una; true;     BACKOFF",
        "a timer after progress is a new timeout;          -1;   -1;   LOSS;     false; earlier-una; true;  TIMEOUT",
        "the highest segment with SACK in Open: TLP;       -1;   -1;   OPEN;     true;  none; true;         TAIL_LOSS_PROBE",
        "evidence beyond the slack, too soon for a timer;  9000; 9000; DISORDER; false; none; false;        FAST_RETRANSMIT",
    })
    void tellsHowTheSenderRecognisedTheLoss(String what, long evidenceAgoUs, long lastAckAgoUs, CongestionControl.State state,
            boolean sack, String segmentTimer, boolean timerCouldFire, LossCause expected) {
        long t = 1_000_000;
        AnalysisConfig cfg = AnalysisConfig.defaults();
        Scoreboard.Segment segment = new Scoreboard.Segment(1001, 2001, 1, 0, 0);
        long una = 1001;
        if (!segmentTimer.equals("none")) {
            segment.lastCause = LossCause.TIMEOUT;
            segment.unaAtLastTimer = segmentTimer.equals("same-una") ? una : una - 1000;
        }
        // the TLP case re-sends the highest segment
        long nxt = expected == LossCause.TAIL_LOSS_PROBE ? 2001 : 10_001;
        LossClassifier.Seen seen = new LossClassifier.Seen(evidenceAgoUs < 0 ? NONE : t - evidenceAgoUs,
                lastAckAgoUs < 0 ? NONE : t - lastAckAgoUs, 40_000, 40_000, state, una, nxt, t - (timerCouldFire ? 250_000 : 60_000), t - 120_000);
        assertEquals(expected, new LossClassifier(cfg, sack).classify(t, 2001, 0, segment, seen));
    }

    /**
     * The highest segment re-sent by a timer with SACK on in Open, SRTT 100 ms: Linux's probe fires
     * at 2 SRTT (1.5 SRTT + 200 ms with one segment out, here 350 ms), its RTO at SRTT + 200 ms at
     * the earliest. Re-sent this many ms after the timers started.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
        "before any RTO could fire: a probe;                 250; TAIL_LOSS_PROBE; false",
        "both timers fit: probe or timeout;                  320; TAIL_LOSS_PROBE; true",
        "long after the probe would have gone: the RTO;      1000; TIMEOUT;        false",
    })
    void aProbeIsTimedAgainstTheProbeAndRetransmissionTimers(String what, long afterMs, LossCause expected, boolean couldBeTimeout) {
        long t = 10_000_000;
        LossClassifier c = new LossClassifier(AnalysisConfig.defaults(), true);
        long started = t - afterMs * 1000;
        LossClassifier.Seen seen = new LossClassifier.Seen(NONE, started, 40_000, 100_000, CongestionControl.State.OPEN, 1001, 2001,
                started, started);
        assertEquals(expected, c.classify(t, 2001, started, new Scoreboard.Segment(1001, 2001, 1, 0, started), seen));
        assertEquals(couldBeTimeout, expected == LossCause.TAIL_LOSS_PROBE && c.probeCouldBeTimeout(t, seen));
    }
}
