package dev.critpath.core.analysis.path;

import dev.critpath.core.analysis.Endpoint;
import dev.critpath.core.analysis.PathArc;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.analysis.rounds.Rounds;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;

/**
 * tcpeval's backward pass: from the client's last event, each event's dependency (see
 * {@link Rounds}) back to the connection's root, the client's SYN. Arc weights are differences
 * of event times, so the path's arcs add up to its span exactly.
 */
public final class CriticalPath {
    private static final int NO_NODE = Rounds.NO_NODE;

    private final Rounds rounds;
    /** From the client's first event to its last. */
    private final Arc[] arcs;
    private final List<Arc> arcList;
    /** The client's first and last events: the connection as the client saw it. */
    public final long startUs;
    public final long endUs;

    /** A raw arc between two nodes, before categories are assigned. */
    public record Arc(int from, int to, long fromUs, long toUs, PathArc.Kind kind) {
    }

    private CriticalPath(Rounds rounds) {
        this.rounds = rounds;
        int first = rounds.firstClientEvent();
        int last = rounds.lastClientEvent();
        startUs = first == NO_NODE ? 0 : rounds.time(first);
        endUs = last == NO_NODE ? 0 : rounds.time(last);
        arcs = last == NO_NODE ? new Arc[0] : walk(last);
        arcList = Collections.unmodifiableList(Arrays.asList(arcs));
    }

    /** The path back from the client's last event. */
    public static CriticalPath of(Rounds rounds) {
        return new CriticalPath(rounds);
    }

    /** The path's arcs from the client's first event to its last. */
    public List<Arc> arcs() {
        return arcList;
    }

    public int arcCount() {
        return arcs.length;
    }

    /** The i-th arc from the client's first event: {@code arcs().get(i)} without going through the list. */
    public Arc arc(int i) {
        return arcs[i];
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

    /** The arcs back to the root, counted first so they fill an array in path order. */
    private Arc[] walk(int end) {
        int steps = 0;
        int node = end;
        BitSet seen = new BitSet();
        while (rounds.parent(node) != NO_NODE && !seen.get(node)) {
            seen.set(node); // network arcs take at least 1 µs, so a cycle cannot form; stay safe anyway
            node = rounds.parent(node);
            steps++;
        }
        int root = node;
        long rootUs = rounds.time(root);
        boolean midStream = rootUs > startUs; // nothing explains the start
        Arc[] path = new Arc[steps + (midStream ? 1 : 0)];
        if (midStream) {
            path[0] = new Arc(NO_NODE, root, startUs, rootUs, PathArc.Kind.UNKNOWN);
        }
        node = end;
        for (int i = path.length - 1; i >= path.length - steps; i--) {
            int p = rounds.parent(node);
            path[i] = new Arc(p, node, rounds.time(p), rounds.time(node), rounds.arcKind(node));
            node = p;
        }
        int kept = 0;
        for (Arc a : path) {
            if (a.toUs() <= startUs && a.kind() != PathArc.Kind.UNKNOWN) {
                continue; // before the client's first event (server packets caught mid-stream)
            }
            path[kept++] = a.fromUs() < startUs ? new Arc(a.from(), a.to(), startUs, a.toUs(), a.kind()) : a;
        }
        return kept == path.length ? path : Arrays.copyOf(path, kept);
    }
}
