package dev.critpath.core.analysis.rounds;

import dev.critpath.core.analysis.Endpoint;
import dev.critpath.core.analysis.PathArc;
import dev.critpath.core.analysis.align.Timeline;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.analysis.sender.SenderMarks;
import dev.critpath.core.analysis.sender.TxKind;
import dev.critpath.core.event.TcpFlags;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * tcpeval's tree of rounds (each ACK with the data it liberated and the packet that triggered
 * it), generalised from HTTP/1.0 to any request/response exchange as the packet dependence
 * graph: every packet event (a departure or an arrival at an endpoint) gets the one dependency
 * that released it last:
 * <ul>
 * <li>an arrival depends on the departure of the same packet (network arc);</li>
 * <li>a retransmission depends on the departure of the copy it repeats (loss arc);</li>
 * <li>new data depends on the later of the ACK that opened the window for it and the peer's last
 * data before this turn (the request it answers);</li>
 * <li>an ACK depends on the peer packet that triggered it (a probe's ACK on the probe); a FIN, RST or anything else on the
 * endpoint's previous event (host arcs).</li>
 * </ul>
 * Nodes are numbered {@code 2 * tx} for a departure and {@code 2 * tx + 1} for an arrival.
 */
public final class Rounds {
    public static final int NO_NODE = -1;

    private static final PathArc.Kind[] KINDS = PathArc.Kind.values();
    /** Bits of a link that hold the arc's kind (its ordinal), below the parent node. */
    private static final int KIND_BITS = 32 - Integer.numberOfLeadingZeros(KINDS.length - 1);

    private static final int MAX_TRANSMISSIONS = (Integer.MAX_VALUE >> KIND_BITS) / 2;

    private final Tx[] txs;
    private final SenderMarks marks;
    /**
     * Each departure's link: its parent node, shifted, with the arc's kind; NO_NODE when it has
     * none. An arrival's parent is always its own departure: no link is kept for it.
     */
    private final int[] links;
    private final int[] clientEvents;
    /** Per transmission, the one whose arrival made its bytes deliverable in order (itself, or the hole's fill), or -1. */
    private final int[] deliveredBy;

    private Rounds(Timeline tl, SenderMarks marks) {
        this.txs = tl.txs.toArray(new Tx[0]);
        if (txs.length > MAX_TRANSMISSIONS) { // a link packs a node (two per transmission) with its kind in an int
            throw new IllegalArgumentException("a connection of " + txs.length + " transmissions: rounds are made for at most " + MAX_TRANSMISSIONS);
        }
        this.marks = marks;
        Endpoint unwatched = tl.mode.unwatched();
        ByDirection sides = new ByDirection(txs, marks);
        clientEvents = eventsAt(Endpoint.CLIENT, sides);
        int[] serverEvents = eventsAt(Endpoint.SERVER, sides);
        links = new int[txs.length];
        Arrays.fill(links, NO_NODE);
        deliveredBy = new int[txs.length];
        Arrays.fill(deliveredBy, -1);
        // with one capture, what the unwatched end's replies answer is told by what they acknowledge
        linkEndpoint(clientEvents, unwatched == Endpoint.CLIENT ? new AckEvidence(txs, clientEvents, marks) : null);
        linkEndpoint(serverEvents, unwatched == Endpoint.SERVER ? new AckEvidence(txs, serverEvents, marks) : null);
    }

    /** Every event's dependency, from the timeline and what the senders' replay learned. */
    public static Rounds of(Timeline tl, SenderMarks marks) {
        return new Rounds(tl, marks);
    }

    public static int dep(int tx) {
        return 2 * tx;
    }

    public static int arr(int tx) {
        return 2 * tx + 1;
    }

    public static boolean isArrival(int node) {
        return (node & 1) == 1;
    }

    /** The event that released this one, or NO_NODE for the connection's root and events nothing explains. */
    public int parent(int node) {
        if (isArrival(node)) {
            return arrived(tx(node), marks) ? dep(node >> 1) : NO_NODE;
        }
        return links[node >> 1] >> KIND_BITS; // NO_NODE stays NO_NODE
    }

    /** What kind of wait the arc from {@link #parent} to this event is. */
    public PathArc.Kind arcKind(int node) {
        if (isArrival(node)) {
            return arrived(tx(node), marks) ? PathArc.Kind.NETWORK : null;
        }
        int link = links[node >> 1];
        return link == NO_NODE ? null : KINDS[link & ((1 << KIND_BITS) - 1)];
    }

    /** Whether t's arrival is an event: seen or estimated, and not a lost copy's. */
    private static boolean arrived(Tx t, SenderMarks marks) {
        return t.arr() != Tx.NONE && !marks.lost(t); // a lost copy never did
    }

    /** The client's first event in time order (the connection as the client saw it starts there), or NO_NODE. */
    public int firstClientEvent() {
        return clientEvents.length == 0 ? NO_NODE : clientEvents[0];
    }

    /** The client's last event in time order, or NO_NODE. */
    public int lastClientEvent() {
        return clientEvents.length == 0 ? NO_NODE : clientEvents[clientEvents.length - 1];
    }

    public Tx tx(int node) {
        return txs[node >> 1];
    }

    /** The timeline's transmissions in its order, indexed as nodes are (shared: read, never change). */
    public Tx[] transmissions() {
        return txs;
    }

    /**
     * When the receiver held every byte up to this arrival's last in order (its application could
     * read them): its own arrival, or the later arrival that filled the last hole below it; NONE
     * for a copy that delivered nothing new.
     */
    public long deliveredAt(Tx t) {
        int by = deliveredBy[t.idx()];
        return by < 0 ? Tx.NONE : txs[by].arr();
    }

    public long time(int node) {
        Tx t = tx(node);
        return isArrival(node) ? t.arr() : t.dep();
    }

    /** The endpoint where a node happens. */
    public Endpoint endpointOf(int node) {
        Tx t = tx(node);
        return t.c2s() != isArrival(node) ? Endpoint.CLIENT : Endpoint.SERVER;
    }

    /** True when no sensor saw the event (or there is none): its time is estimated. */
    public boolean estimated(int node) {
        if (node == NO_NODE) {
            return true;
        }
        Tx t = tx(node);
        return isArrival(node) ? t.arrEstimated() : t.depEstimated();
    }

    /**
     * The timeline's transmissions by direction, each in the timeline's order: the client's first,
     * the server's from {@code c2s} on; and how many events each end has.
     */
    private static final class ByDirection {
        final int[] txs;
        final int c2s;
        int clientEvents;
        int serverEvents;

        ByDirection(Tx[] all, SenderMarks marks) {
            txs = new int[all.length];
            int client = 0;
            int server = all.length; // the server's fill from the end, then turn round
            for (int i = 0; i < all.length; i++) {
                Tx t = all[i];
                boolean fromClient = t.c2s();
                txs[fromClient ? client++ : --server] = i;
                int departed = t.dep() != Tx.NONE ? 1 : 0;
                int arrived = arrived(t, marks) ? 1 : 0;
                clientEvents += fromClient ? departed : arrived;
                serverEvents += fromClient ? arrived : departed;
            }
            c2s = client;
            for (int i = c2s, j = all.length - 1; i < j; i++, j--) {
                int swap = txs[i];
                txs[i] = txs[j];
                txs[j] = swap;
            }
        }
    }

    /**
     * Events at one endpoint in time order; arrivals first on ties (they may cause the departure),
     * then by node. A lost copy's estimated arrival is no event: it never arrived. The endpoint's
     * departures and its arrivals are each nearly always in the timeline's order already, so
     * merged; otherwise sorted.
     */
    private int[] eventsAt(Endpoint endpoint, ByDirection sides) {
        boolean client = endpoint == Endpoint.CLIENT;
        int[] order = sides.txs;
        int ownEnd = client ? sides.c2s : order.length; // the endpoint's own packets leave
        int peerEnd = client ? order.length : sides.c2s; // the peer's arrive
        int d = nextDeparture(order, (client ? 0 : sides.c2s) - 1, ownEnd);
        int a = nextArrival(order, (client ? sides.c2s : 0) - 1, peerEnd);
        int[] out = new int[client ? sides.clientEvents : sides.serverEvents];
        int n = 0;
        long lastDep = Long.MIN_VALUE;
        long lastArr = Long.MIN_VALUE;
        while (d < ownEnd || a < peerEnd) {
            if (d == ownEnd || a < peerEnd && txs[order[a]].arr() <= txs[order[d]].dep()) {
                long at = txs[order[a]].arr();
                if (at < lastArr) {
                    return sorted(endpoint);
                }
                lastArr = at;
                out[n++] = arr(order[a]);
                a = nextArrival(order, a, peerEnd);
            } else {
                long at = txs[order[d]].dep();
                if (at < lastDep) {
                    return sorted(endpoint);
                }
                lastDep = at;
                out[n++] = dep(order[d]);
                d = nextDeparture(order, d, ownEnd);
            }
        }
        return out;
    }

    /** The next place after {@code i} in {@code order} whose transmission's departure is known, or {@code end}. */
    private int nextDeparture(int[] order, int i, int end) {
        do {
            i++;
        } while (i < end && txs[order[i]].dep() == Tx.NONE);
        return i;
    }

    /** The next place after {@code i} in {@code order} whose transmission arrived (a lost copy never did), or {@code end}. */
    private int nextArrival(int[] order, int i, int end) {
        do {
            i++;
        } while (i < end && !arrived(txs[order[i]], marks));
        return i;
    }

    /**
     * {@link #eventsAt} when the timeline's order is not time order: sorted as packed primitive
     * keys (time since the first event, arrival bit, node) where they fit, which is every
     * connection the job caps, or as triples.
     */
    private int[] sorted(Endpoint endpoint) {
        int n = 0;
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (Tx t : txs) {
            long at = at(t, endpoint);
            if (at != Tx.NONE) {
                n++;
                first = Math.min(first, at);
                last = Math.max(last, at);
            }
        }
        int nodeBits = 32 - Integer.numberOfLeadingZeros(Math.max(1, 2 * txs.length));
        int timeBits = 64 - Long.numberOfLeadingZeros(Math.max(1, last - first));
        if (timeBits + 1 + nodeBits > 63) {
            return eventsAtUnpacked(endpoint);
        }
        long[] keys = new long[n];
        int i = 0;
        for (Tx t : txs) {
            boolean sentHere = sentBy(t, endpoint);
            long at = at(t, endpoint);
            if (at != Tx.NONE) {
                int node = sentHere ? dep(t.idx()) : arr(t.idx());
                keys[i++] = ((at - first) << (nodeBits + 1)) | ((sentHere ? 1L : 0L) << nodeBits) | node;
            }
        }
        Arrays.sort(keys);
        int[] out = new int[n];
        long nodeMask = (1L << nodeBits) - 1;
        for (i = 0; i < n; i++) {
            out[i] = (int) (keys[i] & nodeMask);
        }
        return out;
    }

    private int[] eventsAtUnpacked(Endpoint endpoint) {
        List<long[]> ev = new ArrayList<>();
        for (Tx t : txs) {
            boolean sentHere = sentBy(t, endpoint);
            long at = at(t, endpoint);
            if (at != Tx.NONE) {
                ev.add(new long[] {at, sentHere ? 1 : 0, sentHere ? dep(t.idx()) : arr(t.idx())});
            }
        }
        ev.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : a[1] != b[1] ? Long.compare(a[1], b[1]) : Long.compare(a[2], b[2]));
        int[] out = new int[ev.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = (int) ev.get(i)[2];
        }
        return out;
    }

    /** When t's event at this endpoint happened (its departure or its arrival), or NONE: not seen, or a lost copy's arrival. */
    private long at(Tx t, Endpoint endpoint) {
        if (sentBy(t, endpoint)) {
            return t.dep();
        }
        return marks.lost(t) ? Tx.NONE : t.arr();
    }

    private static boolean sentBy(Tx t, Endpoint endpoint) {
        return t.c2s() == (endpoint == Endpoint.CLIENT);
    }

    /** @param answers for the unwatched end of a single capture, what its replies answer; null for an end a sensor watched */
    private void linkEndpoint(int[] events, AckEvidence answers) {
        int lastEvent = NO_NODE;
        int lastPeerSeqArr = NO_NODE;
        int lastPeerNewArr = NO_NODE;
        boolean peerSpokeSinceMyData = false;
        int turnTrigger = NO_NODE;
        Delivery delivery = new Delivery(txs, deliveredBy);
        for (int node : events) {
            Tx t = tx(node);
            int answersTo = answers == null ? NO_NODE : answers.next(node);
            int delivered = NO_NODE;
            if (isArrival(node)) {
                // the network arc from its own departure is implied: see parent()
                if (t.p.carriesSeqSpace()) {
                    lastPeerSeqArr = node;
                    delivered = delivery.arrived(node, t);
                } else if (marks.isProbe(t)) {
                    lastPeerSeqArr = node; // the ACK a keep-alive or window probe draws answers it, not the data before
                }
            } else if (t.has(TcpFlags.ACK)) {
                delivered = delivery.acknowledged(t.p.ack);
            }
            if (delivered != NO_NODE) {
                lastPeerNewArr = later(lastPeerNewArr, delivered); // what the peer said is readable from here on
                peerSpokeSinceMyData = true;
            }
            if (!isArrival(node)) {
                boolean newData = marks.isNewData(t);
                if (newData && peerSpokeSinceMyData) {
                    turnTrigger = answered(answersTo, lastPeerNewArr); // this turn answers what the peer said last
                    peerSpokeSinceMyData = false;
                }
                linkDeparture(node, t, lastEvent, answered(answersTo, lastPeerSeqArr), newData ? turnTrigger : NO_NODE);
            }
            lastEvent = node;
        }
    }

    private void linkDeparture(int node, Tx t, int lastEvent, int lastPeerSeqArr, int turnTrigger) {
        long at = t.dep();
        int rtxOf = marks.rtxOf(t);
        if (marks.lossArc(t) && rtxOf >= 0 && txs[rtxOf].dep() != Tx.NONE && txs[rtxOf].dep() <= at) {
            int from = marks.lossArcFrom(t);
            link(node, dep(from >= 0 ? from : rtxOf), PathArc.Kind.LOSS);
            return;
        }
        if (t.has(TcpFlags.SYN) && !t.has(TcpFlags.ACK)) {
            return; // the connection's root
        }
        int chosen;
        int liberator = marks.liberator(t);
        int window = liberator >= 0 && txs[liberator].arr() != Tx.NONE && txs[liberator].arr() <= at ? arr(liberator) : NO_NODE;
        if (marks.lossArc(t) && rtxOf < 0 && window != NO_NODE) {
            link(node, window, PathArc.Kind.LOSS); // no earlier copy captured: the timer ran from when the window let it go
            return;
        }
        if (marks.isNewData(t)) {
            int app = turnTrigger != NO_NODE && time(turnTrigger) <= at ? turnTrigger : NO_NODE;
            chosen = later(app, window);
        } else if (marks.kind(t) == TxKind.RETRANSMISSION && window != NO_NODE) {
            chosen = window; // a re-send clocked by an ACK during recovery
        } else if (t.has(TcpFlags.FIN) || t.has(TcpFlags.RST)) {
            chosen = NO_NODE; // closing is the application's own decision: host time since its last event
        } else {
            chosen = lastPeerSeqArr; // an ACK (or SYN/ACK) answers the peer's latest packet
        }
        link(node, chosen != NO_NODE ? chosen : lastEvent, PathArc.Kind.HOST);
    }

    /**
     * The arrival a departure answers: for the unwatched end of a single capture, the one its ACK
     * names ({@code answersTo}, a transmission; times there are estimates); otherwise {@code byTime},
     * the latest before it.
     */
    private static int answered(int answersTo, int byTime) {
        return answersTo == NO_NODE ? byTime : arr(answersTo);
    }

    /** The later of two candidate nodes; the first wins ties. */
    private int later(int a, int b) {
        if (a == NO_NODE) {
            return b;
        }
        if (b == NO_NODE) {
            return a;
        }
        return time(b) > time(a) ? b : a;
    }

    private void link(int node, int from, PathArc.Kind kind) {
        if (from == NO_NODE) {
            return;
        }
        links[node >> 1] = from << KIND_BITS | kind.ordinal();
    }
}
