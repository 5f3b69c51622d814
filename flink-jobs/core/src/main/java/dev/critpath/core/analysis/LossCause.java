package dev.critpath.core.analysis;

/** How the sender recognised the loss that a retransmission repairs. */
public enum LossCause {
    /** Duplicate ACKs or SACK information (RFC 5681 fast retransmit, SACK/RACK recovery). */
    FAST_RETRANSMIT,
    /** The retransmission timer (RTO). */
    TIMEOUT,
    /** The timer again for the same segment, with no progress since: exponential backoff. */
    BACKOFF,
    /** Linux tail loss probe: a timer shorter than the RTO re-sends the last segment. */
    TAIL_LOSS_PROBE,
    /**
     * The network's "packet too big" (ICMP fragmentation needed): the sender re-sends at once, in
     * smaller segments (Linux's tcp_simple_retransmit, which counts no timeout).
     */
    PATH_MTU;

    /** Whether the retransmission timer sent the re-send: a timeout or a backoff (null: no re-send). */
    public static boolean byRetransmissionTimer(LossCause cause) {
        return cause == TIMEOUT || cause == BACKOFF;
    }
}
