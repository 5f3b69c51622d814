package dev.critpath.core.analysis.profile;

import dev.critpath.core.analysis.AnalysisConfig;
import dev.critpath.core.analysis.Direction;
import dev.critpath.core.analysis.MinHeap;
import dev.critpath.core.analysis.PathArc;
import dev.critpath.core.analysis.align.Timeline;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.analysis.path.CriticalPath;
import dev.critpath.core.analysis.sender.LossFreeWindow;
import dev.critpath.core.analysis.sender.SenderMarks;
import dev.critpath.core.event.TcpFlags;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What loss cost a connection, the rounds it took from the window included. The loss arcs on the
 * critical path hold only the waits for re-sends; a halved window costs rounds later that the
 * path books as propagation. So each turn of data (one sender's run of new data between the
 * peer's) in which a copy was lost is played again from that copy's departure as if no copy had
 * been lost: the sender's window as the replay had it then grows with every ACK; data the
 * application had ready leaves as soon as window and link allow; each packet arrives a minimum
 * one-way delay later (no sooner than the path's bottleneck delivers it after the one before);
 * the receiver acknowledges every k-th packet as it did before the loss, its ACKs arriving a
 * minimum one-way delay later. The turn's cost is when the receiver really held all of its data
 * minus when it would have. Loss outside such turns (handshake, FIN, spurious timer waits)
 * costs what its loss arcs on the path do.
 */
final class LossCost {
    private final Timeline tl;
    private final Tx[] txs;
    private final SenderMarks marks;
    private final CriticalPath cp;
    private final AnalysisConfig cfg;
    /** Per direction of the data (C2S first), the ACKs that reached its sender in arrival order, and the path's delivery rate: made once, read per lossy turn. */
    private final Tx[][] acksToSender = new Tx[2][];
    private final double[] deliveryRate = {Double.NaN, Double.NaN};

    private LossCost(Timeline tl, Tx[] txs, SenderMarks marks, CriticalPath cp, AnalysisConfig cfg) {
        this.tl = tl;
        this.txs = txs;
        this.marks = marks;
        this.cp = cp;
        this.cfg = cfg;
    }

    /**
     * What loss cost, into {@code charges}: each turn with a lost copy at its real completion (of
     * those completed after {@code fromUs}), each other loss arc of the path given at its end.
     *
     * @param dataByDep  every data transmission with a departure, in departure order
     * @param clientLink the client's own link, which paces its loss-free departures (serverLink: the server's)
     */
    static void of(Timeline tl, Tx[] txs, Tx[] dataByDep, SenderMarks marks, CriticalPath cp, AnalysisConfig cfg, List<PathArc> arcs,
            long fromUs, HostLink clientLink, HostLink serverLink, Charges charges) {
        LossCost lc = new LossCost(tl, txs, marks, cp, cfg);
        List<long[]> played = new ArrayList<>();
        for (Tx[] turn : lc.lossyTurns(dataByDep)) {
            int lost = lc.firstLost(turn);
            Direction dir = turn[0].direction();
            HostLink sender = dir == Direction.C2S ? clientLink : serverLink;
            long lossFree = lc.lossFreeCompletion(turn, lost, sender.rate, lc.deliveryRate(dir));
            long observed = lc.completion(turn);
            if (lossFree == Tx.NONE || observed == Tx.NONE || observed <= fromUs) {
                continue;
            }
            charges.add(observed, Math.max(0, observed - lossFree));
            played.add(new long[] {turn[0].dep(), observed});
        }
        for (PathArc a : arcs) {
            if (a.kind() == PathArc.Kind.LOSS && !within(played, a.toUs())) {
                charges.add(a.toUs(), a.durationUs());
            }
        }
    }

    private static boolean within(List<long[]> spans, long us) {
        for (long[] s : spans) {
            if (us >= s[0] && us <= s[1]) {
                return true;
            }
        }
        return false;
    }

    private double deliveryRate(Direction dir) {
        int d = dir.ordinal();
        if (Double.isNaN(deliveryRate[d])) {
            deliveryRate[d] = PacketPairs.deliveryRate(txs, dir, acksToSender(dir), marks);
        }
        return deliveryRate[d];
    }

    /** The ACKs that reached the sender of {@code dir}'s data, in arrival order. */
    private Tx[] acksToSender(Direction dir) {
        int d = dir.ordinal();
        if (acksToSender[d] == null) {
            boolean c2s = dir == Direction.C2S;
            acksToSender[d] = Tx.picked(txs, a -> reachesSender(a, c2s), Tx::arr);
        }
        return acksToSender[d];
    }

    /** An ACK that reached the sender of data going {@code c2s} (or not). */
    private static boolean reachesSender(Tx a, boolean c2s) {
        return a.c2s() != c2s && a.has(TcpFlags.ACK) && a.arr() != Tx.NONE;
    }

    /**
     * The turns in which a copy was lost: new data with payload in departure order, cut where the
     * other end sent new data in between. Most connections lose none, and make no turns.
     */
    private List<Tx[]> lossyTurns(Tx[] dataByDep) {
        List<Tx[]> turns = new ArrayList<>();
        int n = 0;
        for (Tx t : dataByDep) {
            if (marks.isNewData(t) && marks.lost(t)) {
                n++;
            }
        }
        if (n == 0) {
            return turns;
        }
        Tx[] data = Tx.picked(dataByDep, marks::isNewData, Tx::dep); // in departure order already: only picked
        n = data.length;
        for (int from = 0, to; from < n; from = to) {
            to = from + 1;
            while (to < n && data[to].c2s() == data[from].c2s()) {
                to++;
            }
            Tx[] turn = Arrays.copyOfRange(data, from, to);
            if (firstLost(turn) >= 0) {
                turns.add(turn);
            }
        }
        return turns;
    }

    private int firstLost(Tx[] turn) {
        for (int i = 0; i < turn.length; i++) {
            if (marks.lost(turn[i])) {
                return i;
            }
        }
        return -1;
    }

    /** When the receiver held the whole turn's data in order: the last delivery of any copy of its bytes, or NONE. */
    private long completion(Tx[] turn) {
        boolean c2s = turn[0].c2s();
        long from = turn[0].seq();
        long to = turn[turn.length - 1].end();
        long done = Tx.NONE;
        for (Tx t : txs) {
            if (t.c2s() == c2s && t.isData() && t.seq() >= from && t.seq() < to && !marks.lost(t)) {
                long delivered = cp.deliveredAt(t);
                done = Math.max(done, delivered != Tx.NONE ? delivered : t.arr());
            }
        }
        return done;
    }

    /**
     * When the receiver would have held the turn's data had the copy {@code lost} and every later
     * one arrived, or NONE when the one-way delays are unknown.
     *
     * @param linkRate  the sender's own link, payload bytes per µs (unknown: no pacing)
     * @param pathRate  the path's bottleneck, payload bytes per µs (unknown: no spacing)
     */
    private long lossFreeCompletion(Tx[] turn, int lost, double linkRate, double pathRate) {
        boolean c2s = turn[0].c2s();
        long owd = c2s ? tl.minOwdC2s : tl.minOwdS2c;
        long owdBack = c2s ? tl.minOwdS2c : tl.minOwdC2s;
        if (owd < 0 || owdBack < 0) {
            return Tx.NONE;
        }
        Tx first = turn[lost];
        long t0 = first.dep();
        LossFreeWindow window = marks.windowAtSend(first, cfg);
        ReadyTimes ready = new ReadyTimes(turn, lost);
        MinHeap acks = new MinHeap(); // on their way back: arrival µs, what they acknowledge
        long una = turn[0].seq();
        for (Tx a : txs) {
            // the data sent before the lost copy is acknowledged as it really was, duplicates aside
            if (reachesSender(a, c2s) && a.p.ack <= first.seq()) {
                if (a.arr() <= t0) {
                    una = Math.max(una, a.p.ack);
                } else {
                    acks.add(a.arr(), a.p.ack);
                }
            }
        }
        int ackEvery = ackEvery(turn, lost);
        long pipe = 0;
        for (int j = 0; j < lost; j++) {
            pipe += turn[j].end() > una ? window.segments(turn[j].p.len) : 0;
        }
        int oldest = 0; // the first packet not yet acknowledged
        long now = t0;
        long linkFree = t0;
        long lastArr = lost > 0 && turn[lost - 1].arr() != Tx.NONE ? turn[lost - 1].arr() : Long.MIN_VALUE;
        int unacked = 0;
        int next = lost;
        while (next < turn.length) {
            Tx x = turn[next];
            int segs = window.segments(x.p.len);
            long sendAt = Math.max(now, Math.max(ready.of(next), linkFree));
            if (window.allows(pipe, segs) && (acks.isEmpty() || sendAt < acks.firstKey())) {
                pipe += segs;
                window.sent(pipe, una, x.end());
                linkFree = sendAt + (linkRate > 0 ? (long) (x.p.len / linkRate) : 0);
                long arr = Math.max(sendAt + owd, lastArr + (pathRate > 0 ? (long) (x.p.len / pathRate) : 0));
                lastArr = arr;
                if (++unacked >= ackEvery || next == turn.length - 1) {
                    acks.add(arr + owdBack, x.end());
                    unacked = 0;
                }
                next++;
                continue;
            }
            if (acks.isEmpty()) {
                return Tx.NONE; // a window that cannot open: nothing to say
            }
            long ackAt = acks.firstKey();
            long ack = acks.firstValue();
            acks.removeFirst();
            now = Math.max(now, ackAt);
            if (ack > una) {
                long acked = 0;
                while (oldest < next && turn[oldest].end() <= ack) {
                    if (turn[oldest].end() > una) {
                        acked += window.segments(turn[oldest].p.len);
                    }
                    oldest++;
                }
                long before = pipe;
                pipe -= acked;
                una = ack;
                window.acked(una, acked, before);
            }
        }
        return lastArr;
    }

    /**
     * When the application had each packet from the lost copy on ready. A sender with all it had
     * sent acknowledged that sends nothing for longer than the ACK clock's slack had nothing to
     * send (a stall, the next part of a response): what it sends then was not ready before. Any
     * other packet was held by the network (window, recovery), so it was ready when the one before it was.
     * Asked for packet after packet, each from the one before.
     */
    private final class ReadyTimes {
        private final Tx[] turn;
        private final Tx[] acks;
        /** The packet asked for last, when it was ready, and the first ACK not yet passed. */
        private int j;
        private long ready;
        private int k;

        ReadyTimes(Tx[] turn, int lost) {
            this.turn = turn;
            this.acks = acksToSender(turn[0].direction());
            j = lost;
            ready = turn[lost].dep();
        }

        /** When packet {@code place} of the turn was ready; places never go back. */
        long of(int place) {
            while (j < place) {
                j++;
                Tx x = turn[j];
                long sentBefore = turn[j - 1].end();
                while (k < acks.length && acks[k].arr() <= x.dep() && acks[k].p.ack < sentBefore) {
                    k++;
                }
                boolean idle = k < acks.length && acks[k].p.ack >= sentBefore && x.dep() - acks[k].arr() > cfg.ackClockSlackUs;
                ready = idle ? x.dep() : ready;
            }
            return ready;
        }
    }

    /** Packets per ACK the receiver sent for the turn's data before the loss (1 when it sent none). */
    private int ackEvery(Tx[] turn, int lost) {
        long from = turn[0].seq();
        long upTo = turn[lost].seq();
        long acked = from;
        int acks = 0;
        for (Tx a : acksToSender(turn[0].direction())) {
            if (a.p.ack > acked && a.p.ack <= upTo) {
                acked = a.p.ack;
                acks++;
            }
        }
        int packets = 0;
        for (int j = 0; j < lost && turn[j].end() <= acked; j++) {
            packets++;
        }
        return acks == 0 ? 1 : Math.max(1, Math.round((float) packets / acks));
    }
}
