package dev.critpath.core.analysis.sender;

import dev.critpath.core.analysis.AnalysisConfig;
import dev.critpath.core.analysis.LossCause;

/**
 * How the sender recognised a loss, told apart as tcpeval does, from what the sender had seen: a
 * re-send right after an ACK carrying loss evidence (duplicate ACKs, SACK, a partial ACK in
 * recovery) is a fast retransmit; otherwise a timer fired: again for the same segment without
 * progress is backoff, the first re-send of the highest segment with SACK on in the open state is
 * a tail loss probe (Linux sends TLPs only with SACK) unless it came too late for the probe timer,
 * anything else a coarse timeout.
 */
final class LossClassifier {
    static final long NONE = Long.MIN_VALUE;
    /** Linux's TCP_DELACK_MAX, which its probe timeout allows for when one segment is out. */
    private static final long DELAYED_ACK_ALLOWANCE_US = 200_000;

    private final AnalysisConfig cfg;
    private final boolean sack;

    LossClassifier(AnalysisConfig cfg, boolean sack) {
        this.cfg = cfg;
        this.sack = sack;
    }

    /**
     * What the sender had seen when it re-sent.
     *
     * @param lastLossEvidence when the last ACK carrying loss evidence arrived, or NONE
     * @param lastAckTime      when the last ACK arrived, or NONE
     * @param minRtt           the smallest round trip seen, or -1
     * @param srtt             the smoothed round trip, or -1
     * @param timerArmedAt     when the retransmission timer was last started, or NONE
     * @param probeArmedAt     when the probe timer was last started (new data sent or an ACK), or NONE
     */
    record Seen(long lastLossEvidence, long lastAckTime, long minRtt, long srtt, CongestionControl.State state, long una, long nxt,
                long timerArmedAt, long probeArmedAt) {
    }

    /** The minimum RTO has passed since the retransmission timer was started at armedAt (NONE: unknown, so it could). */
    boolean timerCouldFire(long t, long armedAt) {
        return armedAt == NONE || t - armedAt >= cfg.rtoMinUs;
    }

    /**
     * @param t         when the re-send left
     * @param end       the sequence number after its bytes
     * @param prevDep   when the copy it repeats left, or NONE
     * @param segment   the scoreboard's segment it re-sends, or null
     */
    LossCause classify(long t, long end, long prevDep, Scoreboard.Segment segment, Seen seen) {
        long reorderWindow = sack && seen.minRtt() > 0 ? seen.minRtt() / 4 : 0; // RACK may wait min_rtt/4
        boolean evidenceSincePrev = seen.lastLossEvidence() != NONE && (prevDep == NONE || seen.lastLossEvidence() >= prevDep);
        boolean ackTriggered = evidenceSincePrev && seen.lastAckTime() != NONE
                && t - seen.lastLossEvidence() <= cfg.ackTriggerSlackUs + reorderWindow;
        CongestionControl.State state = seen.state();
        boolean evidenceCounts = state != CongestionControl.State.LOSS && (state != CongestionControl.State.OPEN || sack);
        // too soon for the timer: the loss evidence released it, later than the slack (RACK's reordering wait, estimated times)
        if (evidenceCounts && (ackTriggered || evidenceSincePrev && !timerCouldFire(t, seen.timerArmedAt()))) {
            return LossCause.FAST_RETRANSMIT;
        }
        return timerCause(t, end, segment, seen);
    }

    /** Which timer sent a re-send no ACK released: backoff, a tail loss probe, or a coarse timeout. */
    LossCause timerCause(long t, long end, Scoreboard.Segment segment, Seen seen) {
        CongestionControl.State state = seen.state();
        if (segment != null && LossCause.byRetransmissionTimer(segment.lastCause)
                && segment.unaAtLastTimer == seen.una()) {
            return LossCause.BACKOFF;
        }
        boolean open = state == CongestionControl.State.OPEN || state == CongestionControl.State.DISORDER;
        if (sack && open && end >= seen.nxt() && (segment == null || segment.lastCause == null) && !probeTooLate(t, seen)) {
            return LossCause.TAIL_LOSS_PROBE;
        }
        return LossCause.TIMEOUT;
    }

    /**
     * Linux's probe timeout is max(2 SRTT, 10 ms), at least 1.5 SRTT + 200 ms (its delayed-ACK
     * allowance) with one segment out; a timer re-send a quarter later than that was the RTO,
     * since the probe would have gone first.
     */
    private boolean probeTooLate(long t, Seen seen) {
        if (seen.srtt() <= 0 || seen.probeArmedAt() == NONE) {
            return false;
        }
        long latest = Math.max(2 * seen.srtt(), seen.srtt() + seen.srtt() / 2 + DELAYED_ACK_ALLOWANCE_US);
        return t - seen.probeArmedAt() > latest + latest / 4;
    }

    /**
     * A tail loss probe whose timing an RTO also fits (Linux: RTO at least SRTT + 200 ms after the
     * timer started; a quarter of SRTT allowed for the estimate's error): "probe or timeout", the
     * timing cannot tell.
     */
    boolean probeCouldBeTimeout(long t, Seen seen) {
        long srtt = Math.max(seen.srtt(), 0);
        return seen.timerArmedAt() == NONE || t - seen.timerArmedAt() >= srtt - srtt / 4 + cfg.rtoMinUs;
    }
}
