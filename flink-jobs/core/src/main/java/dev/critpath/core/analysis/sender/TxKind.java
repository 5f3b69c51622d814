package dev.critpath.core.analysis.sender;

/** What a transmission is, for window simulation and arc rules. */
public enum TxKind {
    /** SYN, SYN/ACK, pure ACK, window update, RST, FIN without data. */
    CONTROL,
    /** Data beyond everything sent before. */
    NEW_DATA,
    /** Bytes (or SYN/FIN) sent before. */
    RETRANSMISSION,
    /** Zero-window probe. */
    WINDOW_PROBE,
    /** Keep-alive (one old byte or none, after idle). */
    KEEPALIVE
}
