package dev.critpath.core.analysis.sender;

import dev.critpath.core.analysis.AnalysisConfig;
import dev.critpath.core.analysis.DirectionStats;

/**
 * A sender's congestion window played on from a moment of the replay as if nothing had been lost
 * from then on: every ACK acknowledges new data, so it only grows (slow start, then congestion
 * avoidance, as the replay's {@link CongestionControl} grows it), and never enters recovery.
 */
public final class LossFreeWindow {
    private final CongestionControl cc;
    private final int mss;

    LossFreeWindow(AnalysisConfig cfg, long cwnd, long ssthresh, int mss) {
        this.cc = new CongestionControl(cfg, new DirectionStats(), Math.max(cwnd, 1), ssthresh);
        this.mss = Math.max(mss, 1);
    }

    /** Segments a payload of this many bytes counts as. */
    public int segments(int len) {
        return Math.max(1, (len + mss - 1) / mss);
    }

    /** Whether the window lets {@code segs} more segments leave with {@code pipe} segments in flight. */
    public boolean allows(long pipe, int segs) {
        return cc.allowed(pipe) >= segs;
    }

    /** Data left: {@code pipe} segments now in flight, sequence space [una, nxt) outstanding. */
    public void sent(long pipe, long una, long nxt) {
        cc.validate(pipe, una, nxt);
    }

    /** An ACK moved the cumulative point to {@code una}, acknowledging {@code segs} segments; {@code pipe} were in flight before it. */
    public void acked(long una, long segs, long pipe) {
        cc.cumulativeAck(una, segs, segs, pipe, false);
    }
}
