package dev.critpath.core.analysis.profile;

import dev.critpath.core.analysis.CaptureMode;
import dev.critpath.core.analysis.Category;
import dev.critpath.core.analysis.CategoryTimes;
import dev.critpath.core.analysis.Direction;
import dev.critpath.core.analysis.Endpoint;
import dev.critpath.core.analysis.LossCause;
import dev.critpath.core.analysis.PathArc;
import dev.critpath.core.analysis.align.Timeline;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.analysis.path.CriticalPath;
import dev.critpath.core.analysis.rounds.Rounds;
import dev.critpath.core.analysis.sender.SenderMarks;
import dev.critpath.core.analysis.sender.TxKind;
import dev.critpath.core.event.TcpFlags;
import java.util.List;

/**
 * Delay categories of the critical path's arcs (docs/method.md, section 6): a network arc is
 * propagation up to the direction's minimum one-way delay and queuing beyond; a host arc is the
 * time of the end where it happens, idle before a keep-alive and when a close follows a long pause (backoff when the
 * close is a reset on a timer's next expiry after its re-send: the sender gave up), or "or queuing" when that end is
 * the one no sensor watched; a loss arc is named by how the loss was recognised.
 */
public final class ArcCategories {
    /** Category.ALL as an array: looped over for every arc, where a list's iterator is garbage each time. */
    private static final Category[] CATEGORIES = Category.ALL.toArray(Category[]::new);
    private final long idleThresholdUs;
    private final CriticalPath cp;
    private final Timeline tl;
    private final SenderMarks marks;
    private final long owdC2s;
    private final long owdS2c;

    /** @param owdC2s propagation per direction: the connection's minimum one-way delays, or the path's if smaller */
    ArcCategories(long idleThresholdUs, CriticalPath cp, Timeline tl, SenderMarks marks, long owdC2s, long owdS2c) {
        this.idleThresholdUs = idleThresholdUs;
        this.cp = cp;
        this.tl = tl;
        this.marks = marks;
        this.owdC2s = owdC2s;
        this.owdS2c = owdS2c;
    }

    /** The times of the path's arc {@code i}. */
    private CategoryTimes arcTimes(int i) {
        CategoryTimes ct = new CategoryTimes();
        long w = cp.arcToUs(i) - cp.arcFromUs(i);
        Tx child = cp.tx(cp.arcTo(i));
        switch (cp.arcKind(i)) {
            case NETWORK -> {
                long base = Math.max(0, child.c2s() ? owdC2s : owdS2c);
                long prop = Math.min(w, base);
                ct.add(Category.PROPAGATION, prop);
                // with one sensor, delay above the minimum cannot be told from the remote end's own
                ct.add(tl.mode == CaptureMode.TWO_POINT ? Category.QUEUING : unsplit(tl.mode.unwatched()), w - prop);
            }
            case HOST -> {
                Endpoint at = cp.endpointOf(cp.arcTo(i));
                // a FIN that carries the response is the response, not a close after quiet
                boolean closeAfterQuiet = (child.has(TcpFlags.FIN) || child.has(TcpFlags.RST)) && child.p.len == 0 && w >= idleThresholdUs;
                if (closeAfterQuiet && child.has(TcpFlags.RST) && timerRanOut(cp.arcFrom(i), w)) {
                    ct.add(Category.LOSS_BACKOFF, w); // its last backed-off timer expired: the sender gave up, it was not idle
                } else if (marks.kind(child) == TxKind.KEEPALIVE || closeAfterQuiet) {
                    ct.add(Category.IDLE, w); // keep-alive timers and idle closes fire on connections nobody uses, at either end
                } else if (at == tl.mode.unwatched()) {
                    ct.add(unsplit(at), w);
                } else {
                    ct.add(at == Endpoint.CLIENT ? Category.CLIENT : Category.SERVER, w);
                }
            }
            case LOSS -> ct.add(switch (marks.lossCause(child)) {
                case FAST_RETRANSMIT, PATH_MTU -> Category.LOSS_FAST_RETRANSMIT;
                case BACKOFF -> Category.LOSS_BACKOFF;
                default -> Category.LOSS_TIMEOUT;
            }, w);
            default -> ct.add(Category.UNKNOWN, w);
        }
        return ct;
    }

    /**
     * Whether a wait of {@code w} from this node is a retransmission timer's next expiry: the node
     * is the departure of a timer's re-send, and the wait at most what a backed-off timer (double
     * the re-send's own wait after its earlier copy) takes, with room for the RTO's own growth.
     * A longer wait is the application's (Linux sends no reset when it gives up).
     */
    private boolean timerRanOut(int node, long w) {
        if (Rounds.isArrival(node)) {
            return false;
        }
        Tx t = cp.tx(node);
        int earlier = marks.rtxOf(t);
        return marks.kind(t) == TxKind.RETRANSMISSION && LossCause.byRetransmissionTimer(marks.lossCause(t))
                && earlier >= 0 && w <= 3 * (t.dep() - cp.transmissions()[earlier].dep());
    }

    /** With one sensor, the remote end's time cannot be told from queuing on the way to it. */
    private static Category unsplit(Endpoint remote) {
        return remote == Endpoint.CLIENT ? Category.CLIENT_OR_QUEUING : Category.SERVER_OR_QUEUING;
    }

    /** The path's arc {@code i}, numbered {@code index}. */
    PathArc categorise(int index, int i) {
        CategoryTimes ct = arcTimes(i);
        int to = cp.arcTo(i);
        Tx child = cp.tx(to);
        Direction direction = Direction.of(child.c2s());
        PathArc.Kind kind = cp.arcKind(i);
        Endpoint endpoint = kind == PathArc.Kind.NETWORK ? direction.receiver() : cp.endpointOf(to);
        return new PathArc(index, cp.arcFromUs(i), cp.arcToUs(i), kind, largest(ct), ct, endpoint, direction, TcpFlags.letters(child.p.flags),
                child.seq(), child.p.len, child.p.ack, child.idx(), cp.estimated(cp.arcFrom(i)) || cp.estimated(to));
    }

    private static Category largest(CategoryTimes ct) {
        Category main = Category.UNKNOWN;
        long best = -1;
        for (Category c : CATEGORIES) {
            if (ct.get(c) > best) {
                best = ct.get(c);
                main = c;
            }
        }
        return main;
    }

    /** The part of an arc from {@code fromUs} on: a segment starts inside the wait before its first packet. */
    static PathArc clippedFrom(PathArc a, long fromUs) {
        CategoryTimes ct = clip(List.of(a), fromUs, a.toUs());
        return new PathArc(a.index(), fromUs, a.toUs(), a.kind(), largest(ct), ct, a.endpoint(), a.direction(), a.flags(), a.seq(), a.len(), a.ack(),
                a.txIndex(), a.estimated());
    }

    /**
     * The categories of the part of the path inside [from, to]. Within a network arc propagation
     * comes first, then queuing, so clipping stays in whole microseconds.
     */
    public static CategoryTimes clip(List<PathArc> arcs, long from, long to) {
        CategoryTimes out = new CategoryTimes();
        for (PathArc a : arcs) {
            long lo = Math.max(a.fromUs(), from);
            long hi = Math.min(a.toUs(), to);
            if (hi <= lo) {
                continue;
            }
            long offset = lo - a.fromUs();
            long span = hi - lo;
            for (Category c : CATEGORIES) {
                long part = a.times().get(c);
                if (part == 0) {
                    continue;
                }
                long take = Math.max(0, Math.min(part - offset, span));
                offset = Math.max(0, offset - part);
                out.add(c, take);
                span -= take;
            }
        }
        return out;
    }
}
