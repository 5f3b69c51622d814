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

    /** Arc kinds by ordinal; a byte per node where a reference would take four. */
    private static final PathArc.Kind[] KINDS = PathArc.Kind.values();
    private static final byte NO_KIND = -1;

    private final Tx[] txs;
    private final SenderMarks marks;
    private final int[] parent;
    /** Each node's arc kind as its ordinal, or NO_KIND. */
    private final byte[] arcKind;
    private final int[] clientEvents;
    private final long[] deliveredAt;
    /** With one capture, what the unwatched end's replies answer; null with two. */
    private final AckEvidence answers;
    private final Endpoint unwatched;

    private Rounds(Timeline tl, SenderMarks marks) {
        this.txs = tl.txs.toArray(new Tx[0]);
        this.marks = marks;
        unwatched = tl.mode.unwatched();
        answers = unwatched == null ? null : AckEvidence.of(txs, unwatched, marks);
        parent = new int[2 * txs.length];
        arcKind = new byte[2 * txs.length];
        Arrays.fill(parent, NO_NODE);
        Arrays.fill(arcKind, NO_KIND);
        deliveredAt = new long[txs.length];
        Arrays.fill(deliveredAt, Tx.NONE);
        clientEvents = eventsAt(Endpoint.CLIENT);
        linkEndpoint(clientEvents);
        linkEndpoint(eventsAt(Endpoint.SERVER));
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
        return parent[node];
    }

    /** What kind of wait the arc from {@link #parent} to this event is. */
    public PathArc.Kind arcKind(int node) {
        return arcKind[node] == NO_KIND ? null : KINDS[arcKind[node]];
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

    /**
     * When the receiver held every byte up to this arrival's last in order (its application could
     * read them): its own arrival, or the later arrival that filled the last hole below it; NONE
     * for a copy that delivered nothing new.
     */
    public long deliveredAt(Tx t) {
        return deliveredAt[t.idx()];
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
     * Events at one endpoint in time order; arrivals first on ties (they may cause the departure),
     * then by node. A lost copy's estimated arrival is no event: it never arrived. Nearly always
     * the timeline's order already; otherwise sorted as packed primitive keys (time since the
     * first event, arrival bit, node) where they fit, which is every connection the job caps, or
     * as triples.
     */
    private int[] eventsAt(Endpoint endpoint) {
        int n = 0;
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        boolean inOrder = true;
        boolean lastSentHere = false;
        for (Tx t : txs) {
            long at = at(t, endpoint);
            if (at != Tx.NONE) {
                boolean sentHere = sentBy(t, endpoint);
                // nodes grow with the timeline's order: only time, then the arrival bit, can be out of order
                inOrder &= n == 0 || at > last || at == last && (sentHere || !lastSentHere);
                n++;
                first = Math.min(first, at);
                last = Math.max(last, at);
                lastSentHere = sentHere;
            }
        }
        int[] out = new int[n];
        if (inOrder) {
            int i = 0;
            for (Tx t : txs) {
                if (at(t, endpoint) != Tx.NONE) {
                    out[i++] = sentBy(t, endpoint) ? dep(t.idx()) : arr(t.idx());
                }
            }
            return out;
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

    private void linkEndpoint(int[] events) {
        int lastEvent = NO_NODE;
        int lastPeerSeqArr = NO_NODE;
        int lastPeerNewArr = NO_NODE;
        boolean peerSpokeSinceMyData = false;
        int turnTrigger = NO_NODE;
        Delivery delivery = new Delivery(deliveredAt);
        for (int node : events) {
            Tx t = tx(node);
            int delivered = NO_NODE;
            if (isArrival(node)) {
                link(node, dep(t.idx()), PathArc.Kind.NETWORK);
                if (t.p.carriesSeqSpace()) {
                    lastPeerSeqArr = node;
                    delivered = delivery.arrived(node, t, t.arr());
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
                    turnTrigger = answered(t, lastPeerNewArr); // this turn answers what the peer said last
                    peerSpokeSinceMyData = false;
                }
                linkDeparture(node, t, lastEvent, answered(t, lastPeerSeqArr), newData ? turnTrigger : NO_NODE);
            }
            lastEvent = node;
        }
    }

    private void linkDeparture(int node, Tx t, int lastEvent, int lastPeerSeqArr, int turnTrigger) {
        long at = t.dep();
        int rtxOf = marks.rtxOf(t);
        if (marks.lossArc(t) && rtxOf >= 0 && txs[rtxOf].dep() != Tx.NONE && txs[rtxOf].dep() <= at) {
            int lostWith = marks.lostWith(t);
            link(node, dep(lostWith >= 0 ? lostWith : rtxOf), PathArc.Kind.LOSS);
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
     * names (times there are estimates); otherwise {@code byTime}, the latest before it.
     */
    private int answered(Tx t, int byTime) {
        if (answers == null || !sentBy(t, unwatched)) {
            return byTime;
        }
        int trigger = answers.triggerOf(t);
        return trigger == NO_NODE ? byTime : arr(trigger);
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
        parent[node] = from;
        arcKind[node] = (byte) kind.ordinal();
    }
}
