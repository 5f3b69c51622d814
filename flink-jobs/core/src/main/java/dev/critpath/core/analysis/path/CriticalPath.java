package dev.critpath.core.analysis.path;

import dev.critpath.core.analysis.Endpoint;
import dev.critpath.core.analysis.PathArc;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.analysis.rounds.Rounds;
import java.util.BitSet;

/**
 * tcpeval's backward pass: from the client's last event, each event's dependency (see
 * {@link Rounds}) back to the connection's root, the client's SYN. Arc weights are differences
 * of event times, so the path's arcs add up to its span exactly.
 */
public final class CriticalPath {
    private static final int NO_NODE = Rounds.NO_NODE;

    private final Rounds rounds;
    /** The arcs from the client's first event to its last, as columns: the nodes each joins, their times, its kind. */
    private int arcCount;
    private int[] from;
    private int[] to;
    private long[] fromUs;
    private long[] toUs;
    private PathArc.Kind[] kind;
    /** The client's first and last events: the connection as the client saw it. */
    public final long startUs;
    public final long endUs;

    private CriticalPath(Rounds rounds) {
        this.rounds = rounds;
        int first = rounds.firstClientEvent();
        int last = rounds.lastClientEvent();
        startUs = first == NO_NODE ? 0 : rounds.time(first);
        endUs = last == NO_NODE ? 0 : rounds.time(last);
        walk(last);
    }

    /** The path back from the client's last event. */
    public static CriticalPath of(Rounds rounds) {
        return new CriticalPath(rounds);
    }

    public int arcCount() {
        return arcCount;
    }

    /** The node the i-th arc from the client's first event starts at. */
    public int arcFrom(int i) {
        return from[i];
    }

    public int arcTo(int i) {
        return to[i];
    }

    public long arcFromUs(int i) {
        return fromUs[i];
    }

    public long arcToUs(int i) {
        return toUs[i];
    }

    public PathArc.Kind arcKind(int i) {
        return kind[i];
    }

    public Tx tx(int node) {
        return rounds.tx(node);
    }

    /** See {@link Rounds#transmissions}. */
    public Tx[] transmissions() {
        return rounds.transmissions();
    }

    public Endpoint endpointOf(int node) {
        return rounds.endpointOf(node);
    }

    public boolean estimated(int node) {
        return rounds.estimated(node);
    }

    /** See {@link Rounds#deliveredAt}. */
    public long deliveredAt(Tx t) {
        return rounds.deliveredAt(t);
    }

    /** The arcs back to the root from the client's last event (NO_NODE: none), counted first so they fill the columns in path order. */
    private void walk(int end) {
        int steps = 0;
        int node = end;
        BitSet seen = new BitSet();
        while (node != NO_NODE && rounds.parent(node) != NO_NODE && !seen.get(node)) {
            seen.set(node); // network arcs take at least 1 µs, so a cycle cannot form; stay safe anyway
            node = rounds.parent(node);
            steps++;
        }
        int root = node;
        boolean midStream = root != NO_NODE && rounds.time(root) > startUs; // nothing explains the start
        arcCount = steps + (midStream ? 1 : 0);
        from = new int[arcCount];
        to = new int[arcCount];
        fromUs = new long[arcCount];
        toUs = new long[arcCount];
        kind = new PathArc.Kind[arcCount];
        if (midStream) {
            set(0, NO_NODE, root, startUs, rounds.time(root), PathArc.Kind.UNKNOWN);
        }
        node = end;
        for (int i = arcCount - 1; i >= arcCount - steps; i--) {
            int p = rounds.parent(node);
            set(i, p, node, rounds.time(p), rounds.time(node), rounds.arcKind(node));
            node = p;
        }
        int kept = 0;
        for (int i = 0; i < arcCount; i++) {
            if (toUs[i] <= startUs && kind[i] != PathArc.Kind.UNKNOWN) {
                continue; // before the client's first event (server packets caught mid-stream)
            }
            set(kept++, from[i], to[i], Math.max(fromUs[i], startUs), toUs[i], kind[i]);
        }
        arcCount = kept;
    }

    private void set(int i, int fromNode, int toNode, long fromTime, long toTime, PathArc.Kind arcKind) {
        from[i] = fromNode;
        to[i] = toNode;
        fromUs[i] = fromTime;
        toUs[i] = toTime;
        kind[i] = arcKind;
    }
}
