package dev.critpath.core.analysis.sender;

import dev.critpath.core.analysis.Direction;
import dev.critpath.core.analysis.align.RemoteStamps;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.analysis.clean.Packet;
import dev.critpath.core.event.TcpFlags;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
    /** The peer's ACKs in capture order, and by TSval the positions (in acks) carrying it. */
    private final List<Tx> acks = new ArrayList<>();
    private final Map<Long, List<Integer>> acksByTsval = new HashMap<>();
    /** By TSval of the peer, the sender's first transmission echoing it. */
    private final Map<Long, Tx> firstEcho = new HashMap<>();
    /** The sender's transmissions carrying sequence space, in capture order, and the highest end up to each. */
    private final List<Tx> data = new ArrayList<>();
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

    /** Indexes the peer's ACKs, the sender's echoes and data, and finds the sender's fastest turn; false when nothing is echoed. */
    private boolean index() {
        for (Tx t : txs) {
            if (t.direction() != dir && t.has(TcpFlags.ACK) && t.p.tsval >= 0 && t.dep() != Tx.NONE) {
                acksByTsval.computeIfAbsent(t.p.tsval, k -> new ArrayList<>()).add(acks.size());
                acks.add(t);
            } else if (stamped(t, dir)) {
                firstEcho.putIfAbsent(t.p.tsecr, t);
                if (t.p.carriesSeqSpace()) {
                    data.add(t);
                }
            }
        }
        endUpTo = new long[data.size()];
        for (int i = 0; i < data.size(); i++) {
            endUpTo[i] = Math.max(data.get(i).end(), i == 0 ? Long.MIN_VALUE : endUpTo[i - 1]);
        }
        for (Map.Entry<Long, Tx> e : firstEcho.entrySet()) {
            List<Integer> echoed = acksByTsval.get(e.getKey());
            if (echoed != null) {
                turnUs = Math.min(turnUs, sentAt(e.getValue()) - acks.get(echoed.get(0)).dep());
            }
        }
        return turnUs != Long.MAX_VALUE;
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
        Tx ack = acks.get(x);
        long sent = sentAt(r);
        boolean afterTimeout = prev != null && lastTimerAt >= sentAt(prev);
        boolean progress = x > 0 && ack.p.ack > acks.get(x - 1).p.ack;
        boolean loss = !progress && (ack.p.sack != null || ack.isPureAck() && x > 0 && ack.p.ack == acks.get(x - 1).p.ack);
        boolean evidence = !prevResent ? progress || loss
                : progress && afterTimeout || (progress || loss) && reportedSentAt(ack, r) >= sentAt(prev);
        Tx answer = firstEcho.get(ack.p.tsval);
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
        List<Integer> echoed = acksByTsval.get(r.p.tsecr);
        int best = -1;
        if (echoed != null) {
            for (int i : echoed) {
                if (r.arr() == Tx.NONE || acks.get(i).dep() < r.arr()) {
                    best = i;
                }
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
        while (u > 0 && acks.get(u).p.ack <= acks.get(u - 1).p.ack) {
            u--;
        }
        long at = tookIn(acks.get(u));
        int next = firstSentFrom(at);
        boolean allAcked = next == 0 || acks.get(u).p.ack >= endUpTo[next - 1];
        return allAcked && next < data.size() ? sentAt(data.get(next)) : at;
    }

    /** The first of the sender's data sent at or after {@code at} (capture order is send order, ticks never go back). */
    private int firstSentFrom(long at) {
        int lo = 0;
        int hi = data.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (sentAt(data.get(mid)) < at) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
