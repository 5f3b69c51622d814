package dev.critpath.core.analysis.sender;

import dev.critpath.core.analysis.DirectionStats;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.event.TcpFlags;
import java.util.ArrayList;
import java.util.List;

/**
 * Which re-sends repaired nothing, decided on evidence once every ACK of the direction is known:
 * <ul>
 * <li>a D-SACK (RFC 2883) reporting the re-sent bytes as received twice;</li>
 * <li>the earlier copy seen arriving by the receiver's sensor and leaving by the sender's (two
 * captures: it reached the receiver);</li>
 * <li>an ACK covering the bytes that left the receiver before the re-send could arrive there.</li>
 * </ul>
 * A re-send without such evidence repaired a loss: the copy it repeats did not arrive unless a
 * sensor saw it arrive, and is marked lost. A single capture whose side was guessed wrong sees
 * every copy "arrive"; none of the three rules trusts that alone.
 */
final class SpuriousResends {
    /** A re-send and the earlier copy of the same bytes it repeats. */
    private record Resend(Tx copy, Tx earlier) {
    }

    /** ACKs examined per re-send at most: the evidence is in the first round trip's; a long hole's duplicates add nothing. */
    private static final int ACKS_SCANNED = 1024;

    private final List<Resend> resends = new ArrayList<>();

    /** A re-send of the bytes (or SYN) an earlier captured copy carried. */
    void add(Tx copy, Tx earlier) {
        resends.add(new Resend(copy, earlier));
    }

    /**
     * Judges every re-send: counts the spurious ones and marks the copies lost.
     *
     * @param peers the transmissions of the other direction
     */
    void decide(Tx[] peers, SenderMarks marks, DirectionStats stats) {
        if (resends.isEmpty()) {
            return;
        }
        Tx[] acks = Tx.picked(peers, SpuriousResends::acknowledges, TxTime.DEPARTURE::of);
        boolean[] spurious = new boolean[resends.size()];
        for (Tx a : acks) {
            int reported = dsack(a) != null ? latestReportedBy(a) : -1;
            if (reported >= 0) {
                spurious[reported] = true;
            }
        }
        for (int i = 0; i < resends.size(); i++) {
            Resend r = resends.get(i);
            spurious[i] |= seenArriving(r.earlier()) || ackedBeforeItCouldArrive(r, acks);
            if (spurious[i]) {
                stats.spuriousRetransmissions++;
                marks.countedSpurious(r.copy());
            } else if (r.earlier().arr() == Tx.NONE || r.earlier().arrEstimated()) {
                marks.markLost(r.earlier());
            }
        }
    }

    /** An ACK of the peer's that left it. */
    private static boolean acknowledges(Tx t) {
        return t.has(TcpFlags.ACK) && t.dep() != Tx.NONE;
    }

    /** The first SACK block when it reports a duplicate (below the cumulative ACK, or inside the second block), else null. */
    private static long[] dsack(Tx a) {
        long[] b = a.p.sack;
        if (b == null || b.length < 2) {
            return null;
        }
        boolean belowAck = b[1] <= a.p.ack;
        boolean insideSecond = b.length >= 4 && b[2] <= b[0] && b[1] <= b[3];
        return belowAck || insideSecond ? new long[] {b[0], b[1]} : null;
    }

    /** The latest re-send that left before the D-SACK reached the sender and whose first byte it reports; -1 if none. */
    private int latestReportedBy(Tx d) {
        long[] block = dsack(d);
        long reachedSender = d.arr() != Tx.NONE ? d.arr() : d.dep();
        int best = -1;
        for (int i = 0; i < resends.size(); i++) {
            Tx c = resends.get(i).copy();
            if (c.dep() < reachedSender && block[0] <= c.seq() && c.seq() < block[1]
                    && (best < 0 || c.dep() > resends.get(best).copy().dep())) {
                best = i;
            }
        }
        return best;
    }

    /** Seen leaving by one sensor and arriving by the other: it reached the receiver. */
    private static boolean seenArriving(Tx earlier) {
        return earlier.arr() != Tx.NONE && !earlier.arrEstimated() && earlier.dep() != Tx.NONE && !earlier.depEstimated();
    }

    /**
     * The receiver acknowledged the bytes (cumulatively or by SACK) in an ACK that left it after
     * the earlier copy left the sender and before the re-send arrived (or, lost, left): the re-send
     * cannot have caused it.
     */
    private static boolean ackedBeforeItCouldArrive(Resend r, Tx[] acks) {
        Tx c = r.copy();
        long after = r.earlier().dep();
        long before = c.arr() != Tx.NONE ? c.arr() : c.dep();
        long firstByte = c.seq();
        long end = c.end();
        int first = firstAfter(acks, after);
        for (int i = first; i < acks.length && i - first < ACKS_SCANNED && acks[i].dep() < before; i++) {
            Tx a = acks[i];
            if (a.p.ack >= end || sackHolds(a.p.sack, firstByte)) {
                return true;
            }
        }
        return false;
    }

    private static boolean sackHolds(long[] blocks, long seq) {
        if (blocks == null) {
            return false;
        }
        for (int k = 0; k + 1 < blocks.length; k += 2) {
            if (blocks[k] <= seq && seq < blocks[k + 1]) {
                return true;
            }
        }
        return false;
    }

    /** Index of the first ACK that left after {@code us} (acks sorted by departure). */
    private static int firstAfter(Tx[] acks, long us) {
        int lo = 0;
        int hi = acks.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (acks[mid].dep() <= us) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
