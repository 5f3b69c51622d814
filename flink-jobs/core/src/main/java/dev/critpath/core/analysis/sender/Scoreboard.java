package dev.critpath.core.analysis.sender;

import dev.critpath.core.analysis.LossCause;

/**
 * The sender's segments sent and not yet cumulatively acknowledged, with their SACK and loss
 * marks (RFC 6675's scoreboard); running totals keep {@link #pipe()} O(1). The segments are a
 * ring, oldest first, whose objects the segments sent later take over once acknowledged: a
 * connection makes as many as it ever has outstanding, not one per segment.
 */
final class Scoreboard {
    private static final long NONE = Long.MIN_VALUE;

    /** A sent segment, possibly retransmitted, not yet cumulatively acknowledged. */
    static final class Segment {
        long seq;
        long end;
        int segs;
        int lastTx;
        long lastDep;
        boolean sacked;
        boolean lost;
        boolean everRetransmitted;
        LossCause lastCause;
        long unaAtLastTimer;

        Segment(long seq, long end, int segs, int tx, long dep) {
            sent(seq, end, segs, tx, dep);
        }

        /** Newly sent: it holds these bytes, nothing else marked. */
        private void sent(long seq, long end, int segs, int tx, long dep) {
            this.seq = seq;
            this.end = end;
            this.segs = segs;
            this.lastTx = tx;
            this.lastDep = dep;
            sacked = false;
            lost = false;
            everRetransmitted = false;
            lastCause = null;
            unaAtLastTimer = NONE;
        }
    }

    /** The outstanding segments at ring positions first, first + 1, ... (modulo its length, a power of two). */
    private Segment[] ring = new Segment[16];
    private int first;
    private int outstanding;
    private long outSegs;
    private long sackedSegs;
    private long lostSegs;
    /** Without SACK, duplicate ACKs stand for segments that left the network (RFC 5681). */
    private int renoSacked;
    private Segment newestAcked;

    /** A segment sent: bytes [seq, end), {@code segs} segments, by transmission {@code tx} at {@code dep}. */
    void add(long seq, long end, int segs, int tx, long dep) {
        if (outstanding == ring.length) {
            Segment[] bigger = new Segment[ring.length * 2];
            for (int i = 0; i < outstanding; i++) {
                bigger[i] = nth(i);
            }
            ring = bigger;
            first = 0;
        }
        int slot = (first + outstanding) & (ring.length - 1);
        if (ring[slot] == null) {
            ring[slot] = new Segment(seq, end, segs, tx, dep);
        } else {
            ring[slot].sent(seq, end, segs, tx, dep);
        }
        outstanding++;
        outSegs += segs;
    }

    /** The i-th outstanding segment, oldest first. */
    private Segment nth(int i) {
        return ring[(first + i) & (ring.length - 1)];
    }

    /** Removes what a cumulative ACK covers; returns the segments it newly acknowledged (not SACKed before). */
    long acknowledge(long ack) {
        long acked = 0;
        newestAcked = null;
        while (outstanding > 0 && nth(0).end <= ack) {
            Segment s = nth(0);
            first = (first + 1) & (ring.length - 1);
            outstanding--;
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
        return acked;
    }

    /**
     * Without SACK, after a cumulative ACK of {@code acked} segments: one filled the hole, the rest
     * were those the duplicates stood for (Linux tcp_remove_reno_sacks); returns the segments it
     * delivered beyond them.
     */
    long renoAcknowledged(long acked) {
        long delivered = Math.max(acked - renoSacked, 1);
        renoSacked = (int) Math.max(0, renoSacked - (acked - 1));
        return delivered;
    }

    /** Duplicates stand for nothing once the recovery, or the disorder, is over. */
    void clearRenoSacked() {
        renoSacked = 0;
    }

    /** The highest segment the last {@link #acknowledge} removed, or null; its object is another's after the next {@link #add}. */
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
        for (int i = 0; i < outstanding; i++) {
            Segment s = nth(i);
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
        for (int i = 0; i < outstanding; i++) {
            Segment s = nth(i);
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
        return outstanding == 0;
    }

    /** The outstanding segment holding byte seq, or null. */
    Segment at(long seq) {
        for (int i = 0; i < outstanding; i++) {
            Segment s = nth(i);
            if (s.seq <= seq && seq < s.end) {
                return s;
            }
        }
        return null;
    }
}
