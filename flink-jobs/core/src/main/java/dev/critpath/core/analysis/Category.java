package dev.critpath.core.analysis;

import java.util.Locale;

/**
 * Where time on the critical path went. The first seven are tcpeval's and the wide-area study's
 * categories; the rest keep the books exact when a cause cannot be split or was not seen.
 */
public enum Category {
    /** Server host time: data or ACK generation at the server (incl. think time). */
    SERVER,
    /** Client host time: request generation, ACK generation, reading slowly. */
    CLIENT,
    /** The minimum one-way delay of each network crossing. */
    PROPAGATION,
    /** Network delay above the minimum: queuing, route changes, serialisation at bottlenecks. */
    QUEUING,
    /** Time lost to losses recognised by the retransmission timer (incl. tail loss probes). */
    LOSS_TIMEOUT,
    /** Time lost to losses recognised without a timer: by duplicate ACKs / SACK, or the network's "packet too big". */
    LOSS_FAST_RETRANSMIT,
    /** Extra timer rounds for the same segment (exponential backoff). */
    LOSS_BACKOFF,
    /** A quiet connection held open before being closed (keep-alive timeouts). */
    IDLE,
    /** Client-side capture only: the server's host time and queuing cannot be told apart. */
    SERVER_OR_QUEUING,
    /** Server-side capture only: the client's host time and queuing cannot be told apart. */
    CLIENT_OR_QUEUING,
    /** Before the first packet a capture explains (connections caught mid-stream). */
    UNKNOWN;

    /** Made once: keys are written per arc, packet and connection. */
    private final String key = name().toLowerCase(Locale.ROOT);

    /** Every category in order; values() copies its array on each call, and arcs are many. */
    public static final java.util.List<Category> ALL = java.util.List.of(values());

    /** Column-style name, e.g. loss_fast_retransmit. */
    public String key() {
        return key;
    }
}
