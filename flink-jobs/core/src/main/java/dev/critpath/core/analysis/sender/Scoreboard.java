package dev.critpath.core.analysis.sender;

import dev.critpath.core.analysis.LossCause;
import java.util.ArrayDeque;

/**
 * The sender's segments sent and not yet cumulatively acknowledged, with their SACK and loss
 * marks (RFC 6675's scoreboard); running totals keep {@link #pipe()} O(1).
 */
final class Scoreboard {
    private static final long NONE = Long.MIN_VALUE;

    /** A sent segment, possibly retransmitted, not yet cumulatively acknowledged. */
    static final class Segment {
        final long seq;
        final long end;
        final int segs;
        int lastTx;
        long lastDep;
        boolean sacked;
        boolean lost;
        boolean everRetransmitted;
        LossCause lastCause;
        long unaAtLastTimer = NONE;

        Segment(long seq, long end, int segs, int tx, long dep) {
            this.seq = seq;
            this.end = end;
            this.segs = segs;
            this.lastTx = tx;
            this.lastDep = dep;
        }
    }

    private final ArrayDeque<Segment> outstanding = new ArrayDeque<>();
    private long outSegs;
    private long sackedSegs;
    private long lostSegs;
    /** Without SACK, duplicate ACKs stand for segments that left the network (RFC 5681). */
    private int renoSacked;
    private Segment newestAcked;

    void add(Segment s) {
        outstanding.addLast(s);
        outSegs += s.segs;
    }

    /** Removes what a cumulative ACK covers; returns the segments it newly acknowledged (not SACKed before). */
    long acknowledge(long ack) {
        long acked = 0;
        newestAcked = null;
        while (!outstanding.isEmpty() && outstanding.peekFirst().end <= ack) {
            Segment s = outstanding.pollFirst();
            outSegs -= s.segs;
            if (s.sacked) {
                sackedSegs -= s.segs;
            } else {
                acked += s.segs;
            }
            if (s.lost) {
                lostSegs -= s.segs;
            }
            newestAcked = s;
        }
        renoSacked = 0;
        return acked;
    }

    /** The highest segment the last {@link #acknowledge} removed, or null. */
    Segment newestAcked() {
        return newestAcked;
    }

    /**
     * Marks the segments the SACK blocks report; returns how many were newly SACKed. A block
     * holding a segment's first byte reports it: Linux splits a partly SACKed segment, and
     * captures that overstate payload lengths (options cut off) never see whole segments SACKed.
     */
    int sack(long[] blocks) {
        long top = 0;
        for (int k = 1; k < blocks.length; k += 2) {
            top = Math.max(top, blocks[k]);
        }
        int newly = 0;
        for (Segment s : outstanding) {
            if (s.seq >= top) {
                break;
            }
            if (s.sacked) {
                continue;
            }
            for (int k = 0; k + 1 < blocks.length; k += 2) {
                if (blocks[k] <= s.seq && s.seq < blocks[k + 1]) {
                    s.sacked = true;
                    sackedSegs += s.segs;
                    if (s.lost) {
                        s.lost = false;
                        lostSegs -= s.segs;
                    }
                    newly += s.segs;
                    break;
                }
            }
        }
        return newly;
    }

    /** A duplicate ACK without SACK: one more segment has left the network, never more than are out. */
    void duplicateAck() {
        renoSacked = (int) Math.min(renoSacked + 1, Math.max(outSegs - 1, 0));
    }

    /** A retransmission timeout: everything not SACKed is lost. */
    void markAllLost() {
        for (Segment s : outstanding) {
            if (!s.sacked && !s.lost) {
                s.lost = true;
                lostSegs += s.segs;
            }
        }
    }

    /** A lost segment sent again is in flight once more. */
    void resent(Segment s) {
        if (s.lost) {
            s.lost = false;
            lostSegs -= s.segs;
        }
    }

    /** Segments counted as in flight (RFC 6675 pipe; without SACK, dup ACKs stand for SACKs). */
    long pipe() {
        return Math.max(0, outSegs - sackedSegs - lostSegs - renoSacked);
    }

    boolean isEmpty() {
        return outstanding.isEmpty();
    }

    /** The outstanding segment holding byte seq, or null. */
    Segment at(long seq) {
        for (Segment s : outstanding) {
            if (s.seq <= seq && seq < s.end) {
                return s;
            }
        }
        return null;
    }
}
