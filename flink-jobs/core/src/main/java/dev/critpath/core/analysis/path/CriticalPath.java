package dev.critpath.core.analysis.path;

import dev.critpath.core.analysis.Endpoint;
import dev.critpath.core.analysis.PathArc;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.analysis.rounds.Rounds;
import java.util.ArrayList;
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
    private final List<Arc> arcs = new ArrayList<>();
    /** The client's first and last events: the connection as the client saw it. */
    public final long startUs;
    public final long endUs;

    /** A raw arc between two nodes, before categories are assigned. */
    public record Arc(int from, int to, long fromUs, long toUs, PathArc.Kind kind) {
    }

    private CriticalPath(Rounds rounds) {
        this.rounds = rounds;
        int[] clientEvents = rounds.clientEvents();
        startUs = clientEvents.length == 0 ? 0 : rounds.time(clientEvents[0]);
        endUs = clientEvents.length == 0 ? 0 : rounds.time(clientEvents[clientEvents.length - 1]);
        if (clientEvents.length > 0) {
            walk(clientEvents[clientEvents.length - 1]);
        }
    }

    /** The path back from the client's last event. */
    public static CriticalPath of(Rounds rounds) {
        return new CriticalPath(rounds);
    }

    /** The path's arcs from the client's first event to its last. */
    public List<Arc> arcs() {
        return Collections.unmodifiableList(arcs);
    }

    public Tx tx(int node) {
        return rounds.tx(node);
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

    private void walk(int end) {
        List<Arc> rev = new ArrayList<>();
        int node = end;
        BitSet seen = new BitSet();
        while (rounds.parent(node) != NO_NODE && !seen.get(node)) {
            seen.set(node); // network arcs take at least 1 µs, so a cycle cannot form; stay safe anyway
            int p = rounds.parent(node);
            rev.add(new Arc(p, node, rounds.time(p), rounds.time(node), rounds.arcKind(node)));
            node = p;
        }
        long rootUs = rounds.time(node);
        if (rootUs > startUs) {
            rev.add(new Arc(NO_NODE, node, startUs, rootUs, PathArc.Kind.UNKNOWN)); // mid-stream: nothing explains the start
        }
        Collections.reverse(rev);
        for (Arc a : rev) {
            if (a.toUs() <= startUs && a.kind() != PathArc.Kind.UNKNOWN) {
                continue; // before the client's first event (server packets caught mid-stream)
            }
            arcs.add(a.fromUs() < startUs ? new Arc(a.from(), a.to(), startUs, a.toUs(), a.kind()) : a);
        }
    }
}
