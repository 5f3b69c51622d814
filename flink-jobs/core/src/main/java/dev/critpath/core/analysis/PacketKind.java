package dev.critpath.core.analysis;

import java.util.Locale;

/** What the analysis made of a packet: the `packets` table's `kind`, one colour or symbol each on the time-sequence plot. */
public enum PacketKind {
    SYN, FIN, RST,
    /** New payload. */
    DATA,
    /** An acknowledgement only. */
    ACK,
    /** An ACK the sender's replay counted as a duplicate (the profile's dup_acks). */
    DUP_ACK,
    /** An acknowledgement closing the receiver's window (advertised window 0). */
    ZERO_WINDOW,
    WINDOW_PROBE,
    KEEPALIVE,
    /** Re-sends, by how the sender recognised the loss (the profile's counts of each). */
    FAST_RETRANSMIT, TIMEOUT, BACKOFF, TAIL_LOSS_PROBE, PATH_MTU,
    /** A SYN-ACK sent again in answer to the peer's repeated SYN: a re-send, but no loss its sender recognised (Linux counts no timeout). */
    SYN_ACK_AGAIN,
    /** A FIN sent again with the acknowledgement of the peer's packet that just arrived (BSD-derived stacks): a re-send, but no loss its sender recognised. */
    FIN_AGAIN,
    /** A re-send that repaired nothing, on evidence (a D-SACK, its earlier copy seen arriving, an ACK that left before it could arrive): the profile's spurious_retransmissions. */
    SPURIOUS;

    /** Made once: keys are written per arc, packet and connection. */
    private final String key = name().toLowerCase(Locale.ROOT);

    public String key() {
        return key;
    }

    /** The kind of a re-send the sender recognised this way. */
    public static PacketKind resend(LossCause cause) {
        return switch (cause) {
            case FAST_RETRANSMIT -> FAST_RETRANSMIT;
            case TIMEOUT -> TIMEOUT;
            case BACKOFF -> BACKOFF;
            case TAIL_LOSS_PROBE -> TAIL_LOSS_PROBE;
            case PATH_MTU -> PATH_MTU;
        };
    }
}
