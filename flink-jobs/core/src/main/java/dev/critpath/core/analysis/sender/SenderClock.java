package dev.critpath.core.analysis.sender;

import dev.critpath.core.analysis.Direction;
import dev.critpath.core.analysis.align.RemoteStamps;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.analysis.clean.Packet;
import dev.critpath.core.event.TcpFlags;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The unwatched sender's own clock, from its TCP timestamps (RFC 7323): its TSval ticks when it
 * sends, its TSecr echoes the last ACK it took in. A capture that does not watch the sender
 * estimates its departures as arrival minus the minimum one-way delay, late by whatever queue a
 * packet met (a shared or bloated uplink: 0.2-0.3 s on loss-window-approximation.trace), so a
 * re-send released at once by a duplicate ACK seems to follow it by more than the minimum RTO.
 * The ticks carry no queue: on them this tells a re-send an ACK released from a timer's.
 * <p>
 * The tick is the one the timeline placed the sender's departures by ({@link RemoteStamps}); an
 * ACK reached the sender at its departure plus the shortest turn the sender's echoes show (the
 * fastest answer to an ACK). Null where either end sends no timestamps or their tick is unknown.
 */
final class SenderClock {
    /**
     * What the clock says of a re-send: an ACK released it (fast recovery), or released it after a
     * timer fired since its bytes' previous copy left (that timeout's go-back-N recovery), or a
     * timer sent it, or the clock cannot tell.
     */
    enum Verdict { RELEASED, TIMEOUT_RECOVERY, TIMER, UNKNOWN }

    private final List<Tx> txs;
    private final Direction dir;
    private final long base;
    private final long tickUs;
    /** Sender clock minus the ACK's departure, at the sender's fastest answer. */
    private long turnUs = Long.MAX_VALUE;
    /** The peer's ACKs in capture order. */
    private Tx[] acks;
    /**
     * The TSvals the peer's ACKs carry, sorted, each once; for the k-th, the positions (in acks)
     * of the ACKs carrying it, in capture order, are {@code acksByTsval[tsvalStart[k]..tsvalStart[k + 1])}.
     */
    private long[] tsvals;
    private int[] tsvalStart;
    private int[] acksByTsval;
    /** For the k-th TSval, the sender's first transmission echoing it, or null. */
    private Tx[] firstEcho;
    /** The sender's transmissions carrying sequence space, in capture order, and the highest end up to each. */
    private Tx[] data;
    private long[] endUpTo;

    private SenderClock(List<Tx> txs, Direction dir, long base, long tickUs) {
        this.txs = txs;
        this.dir = dir;
        this.base = base;
        this.tickUs = tickUs;
    }

    /** The clock of {@code dir}'s sender, or null where its timestamps cannot serve as one. */
    static SenderClock of(List<Tx> txs, Direction dir) {
        List<Packet> stamped = new ArrayList<>();
        for (Tx t : txs) {
            if (stamped(t, dir)) {
                stamped.add(t.p);
            }
        }
        long tick = RemoteStamps.tickUs(stamped);
        if (tick == 0) {
            return null;
        }
        SenderClock c = new SenderClock(txs, dir, stamped.get(0).tsval, tick);
        return c.index() ? c : null;
    }

    private static boolean stamped(Tx t, Direction dir) {
        return t.direction() == dir && t.p.tsval >= 0;
    }

    private boolean stampedAck(Tx t) {
        return t.direction() != dir && t.has(TcpFlags.ACK) && t.p.tsval >= 0 && t.dep() != Tx.NONE;
    }

    /** Indexes the peer's ACKs, the sender's echoes and data, and finds the sender's fastest turn; false when nothing is echoed. */
    private boolean index() {
        int ackCount = 0;
        int dataCount = 0;
        for (Tx t : txs) {
            if (stampedAck(t)) {
                ackCount++;
            } else if (stamped(t, dir) && t.p.carriesSeqSpace()) {
                dataCount++;
            }
        }
        acks = new Tx[ackCount];
        data = new Tx[dataCount];
        ackCount = 0;
        dataCount = 0;
        for (Tx t : txs) {
            if (stampedAck(t)) {
                acks[ackCount++] = t;
            } else if (stamped(t, dir) && t.p.carriesSeqSpace()) {
                data[dataCount++] = t;
            }
        }
        indexTsvals();
        firstEcho = new Tx[tsvals.length];
        for (Tx t : txs) {
            int k = stamped(t, dir) ? Arrays.binarySearch(tsvals, t.p.tsecr) : -1;
            if (k >= 0 && firstEcho[k] == null) {
                firstEcho[k] = t;
            }
        }
        endUpTo = new long[data.length];
        for (int i = 0; i < data.length; i++) {
            endUpTo[i] = Math.max(data[i].end(), i == 0 ? Long.MIN_VALUE : endUpTo[i - 1]);
        }
        for (int k = 0; k < tsvals.length; k++) {
            if (firstEcho[k] != null) {
                turnUs = Math.min(turnUs, sentAt(firstEcho[k]) - acks[acksByTsval[tsvalStart[k]]].dep());
            }
        }
        return turnUs != Long.MAX_VALUE;
    }

    /** The ACKs' positions grouped by TSval: the TSvals sorted, then a counting sort of the positions by theirs (stable). */
    private void indexTsvals() {
        long[] sorted = new long[acks.length];
        for (int i = 0; i < acks.length; i++) {
            sorted[i] = acks[i].p.tsval;
        }
        Arrays.sort(sorted);
        int distinct = 0;
        for (int i = 0; i < sorted.length; i++) {
            if (i == 0 || sorted[i] != sorted[i - 1]) {
                sorted[distinct++] = sorted[i];
            }
        }
        tsvals = Arrays.copyOf(sorted, distinct);
        int[] ofAck = new int[acks.length];
        tsvalStart = new int[distinct + 1];
        for (int i = 0; i < acks.length; i++) {
            ofAck[i] = Arrays.binarySearch(tsvals, acks[i].p.tsval);
            tsvalStart[ofAck[i] + 1]++;
        }
        for (int k = 0; k < distinct; k++) {
            tsvalStart[k + 1] += tsvalStart[k];
        }
        int[] filled = Arrays.copyOf(tsvalStart, distinct);
        acksByTsval = new int[acks.length];
        for (int i = 0; i < acks.length; i++) {
            acksByTsval[filled[ofAck[i]]++] = i;
        }
    }

    /** When the sender sent t, µs on its own clock. */
    long sentAt(Tx t) {
        return RemoteStamps.relative(t.p.tsval, base) * tickUs;
    }

    /** When ACK a reached the sender, on the same clock. */
    private long tookIn(Tx a) {
        return a.dep() + turnUs;
    }

    /**
     * Whether an ACK released re-send r or a timer sent it. An ACK releases a re-send when it
     * reports progress or loss (a duplicate, or SACK blocks) and r left in the sender's first
     * burst after taking it in, within the minimum RTO of its arrival. A re-send of bytes already
     * re-sent is released only by an ACK reporting data sent after that re-send (RFC 6675 re-sends
     * a hole once per recovery; RACK, RFC 8985, declares a re-send lost only when data sent after
     * it is delivered), or by progress when a timer fired since that re-send (everything
     * outstanding is lost again after a timeout). A re-send no ACK released is the timer's when it
     * repeats a re-send (nothing else sends a hole twice) or when the minimum RTO has passed on the
     * sender's clock since the timer was last armed (the last ACK advancing snd.una it took in,
     * data sent with nothing outstanding, or {@code lastTimerAt}).
     *
     * @param prev        the copy r repeats, or the first packet above its bytes when none was captured; null if neither
     * @param prevResent  prev is itself a re-send
     * @param lastTimerAt when the sender's timer last fired, on this clock, or Long.MIN_VALUE
     */
    Verdict judge(Tx r, Tx prev, boolean prevResent, long lastTimerAt, long rtoMinUs) {
        int x = r.p.tsval < 0 || prev != null && prev.p.tsval < 0 ? -1 : lastTakenIn(r);
        if (x < 0) {
            return Verdict.UNKNOWN;
        }
        Tx ack = acks[x];
        long sent = sentAt(r);
        boolean afterTimeout = prev != null && lastTimerAt >= sentAt(prev);
        boolean progress = x > 0 && ack.p.ack > acks[x - 1].p.ack;
        boolean loss = !progress && (ack.p.sack != null || ack.isPureAck() && x > 0 && ack.p.ack == acks[x - 1].p.ack);
        boolean evidence = !prevResent ? progress || loss
                : progress && afterTimeout || (progress || loss) && reportedSentAt(ack, r) >= sentAt(prev);
        Tx answer = firstEcho[Arrays.binarySearch(tsvals, ack.p.tsval)];
        boolean answered = answer != null && answer.p.tsval == r.p.tsval && sent - tookIn(ack) < rtoMinUs;
        if (evidence && answered) {
            return afterTimeout ? Verdict.TIMEOUT_RECOVERY : Verdict.RELEASED;
        }
        if (prevResent || sent - Math.max(armedAt(x), lastTimerAt) >= rtoMinUs) {
            return Verdict.TIMER;
        }
        return Verdict.UNKNOWN;
    }

    /** The latest of the peer's ACKs carrying the TSval r echoes that left before r arrived, or -1. */
    private int lastTakenIn(Tx r) {
        int k = Arrays.binarySearch(tsvals, r.p.tsecr);
        if (k < 0) {
            return -1;
        }
        int best = -1;
        for (int j = tsvalStart[k]; j < tsvalStart[k + 1]; j++) {
            int i = acksByTsval[j];
            if (r.arr() == Tx.NONE || acks[i].dep() < r.arr()) {
                best = i;
            }
        }
        return best;
    }

    /** When the sender sent the highest byte ack reports (cumulatively or by SACK): its latest copy captured before r, or MIN_VALUE. */
    private long reportedSentAt(Tx ack, Tx r) {
        long top = ack.p.ack;
        if (ack.p.sack != null) {
            for (int i = 1; i < ack.p.sack.length; i += 2) {
                top = Math.max(top, ack.p.sack[i]);
            }
        }
        for (int i = r.idx() - 1; i >= 0; i--) {
            Tx t = txs.get(i);
            if (stamped(t, dir) && t.seq() < top && top <= t.end()) {
                return sentAt(t);
            }
        }
        return Long.MIN_VALUE;
    }

    /**
     * When the retransmission timer was last armed before the sender took in acks[x]: the last ACK
     * advancing snd.una, or, when that acknowledged everything sent before it arrived, the
     * sender's next data (RFC 6298 5.1-5.3).
     */
    private long armedAt(int x) {
        int u = x;
        while (u > 0 && acks[u].p.ack <= acks[u - 1].p.ack) {
            u--;
        }
        long at = tookIn(acks[u]);
        int next = firstSentFrom(at);
        boolean allAcked = next == 0 || acks[u].p.ack >= endUpTo[next - 1];
        return allAcked && next < data.length ? sentAt(data[next]) : at;
    }

    /** The first of the sender's data sent at or after {@code at} (capture order is send order, ticks never go back). */
    private int firstSentFrom(long at) {
        int lo = 0;
        int hi = data.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (sentAt(data[mid]) < at) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
