package dev.critpath.core.analysis.sender;

import dev.critpath.core.analysis.DirectionStats;
import java.util.ArrayList;
import java.util.List;

/**
 * Time the sender waited on the receiver: receive-window-limited time (closed at each ACK) and
 * zero-window episodes, into the direction's counts.
 */
final class WindowAccounting {
    private static final long NONE = Long.MIN_VALUE;

    private final DirectionStats stats;
    private final int mss;
    private boolean rwndBound;
    private long rwndBoundSince = NONE;
    private boolean rwndLimitReached;
    private long zeroWindowSince = NONE;
    private long zeroWindowNxt;
    /** {from, to, the sender's next sequence number when it closed}. */
    private final List<long[]> zeroWindows = new ArrayList<>();

    WindowAccounting(DirectionStats stats, int mss) {
        this.stats = stats;
        this.mss = mss;
    }

    /**
     * An ACK arrived: the stretch since the last one counts as receive-window-limited if the
     * receiver's window, not the congestion window, bound the sender and it sent up to it.
     *
     * @param rwnd   the receiver's window in bytes, -1 unknown
     * @param byCwnd the highest sequence number the congestion window allows
     */
    void ack(long t, long una, long nxt, long rwnd, long byCwnd) {
        if (rwndBoundSince != NONE && rwndBound && rwndLimitReached) {
            stats.rwndLimitedUs += t - rwndBoundSince;
        }
        rwndBound = rwnd >= 0 && una + rwnd < byCwnd;
        rwndLimitReached = rwndBound && nxt + mss > una + rwnd;
        rwndBoundSince = t;
        if (rwnd == 0 && zeroWindowSince == NONE) {
            zeroWindowSince = t;
            zeroWindowNxt = nxt;
        } else if (rwnd > 0 && zeroWindowSince != NONE) {
            zeroWindows.add(new long[] {zeroWindowSince, t, zeroWindowNxt});
            zeroWindowSince = NONE;
        }
    }

    /** New data sent up to {@code end}: did it reach the receiver's window? */
    void sent(long end, long una, long rwnd) {
        if (rwndBound && rwnd >= 0 && end + mss > una + rwnd) {
            rwndLimitReached = true;
        }
    }

    /** The trace ended at {@code end}; a zero window only cost time when the sender had data to send behind it. */
    void finish(long end, long una, long nxt, boolean outstanding) {
        if (zeroWindowSince != NONE && end != NONE) {
            zeroWindows.add(new long[] {zeroWindowSince, end, zeroWindowNxt});
        }
        for (long[] z : zeroWindows) {
            if (nxt > z[2] || z[2] > una || outstanding) {
                stats.zeroWindowUs += z[1] - z[0];
                stats.zeroWindowEpisodes++;
            }
        }
    }
}
