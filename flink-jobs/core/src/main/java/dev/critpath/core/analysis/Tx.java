package dev.critpath.core.analysis;

import dev.critpath.core.analysis.clean.Packet;
import dev.critpath.core.event.TcpFlags;

/**
 * One transmission of a packet, seen leaving its sender and/or arriving at its receiver, on the
 * client's timeline. Times that no sensor saw are estimated (and flagged) so the dependence
 * graph stays connected.
 */
final class Tx {
    static final long NONE = Long.MIN_VALUE;

    int idx;
    final Packet p;
    /** Departure from the sender and arrival at the receiver, µs on the client timeline, or NONE. */
    long dep = NONE;
    long arr = NONE;
    boolean depEstimated;
    boolean arrEstimated;

    // filled by the sender simulation
    Kind kind = Kind.CONTROL;
    /** Earlier transmission of the same bytes (for loss arcs), or -1. */
    int rtxOf = -1;
    LossCause lossCause;
    /**
     * True when this re-send is where the sender recognised the loss (the timer fired, or the
     * fast retransmit itself): tcpeval's loss arc from the lost copy. Later re-sends of the same
     * recovery are clocked by ACKs and depend on those instead.
     */
    boolean lossArc;
    /** ACK (a Tx of the other direction) whose arrival let this data leave, or -1. */
    int liberator = -1;
    /** True when the sender sent it beyond the simulated window and the simulation re-synchronised. */
    boolean outOfWindow;
    /** First arrival of these bytes at the receiver (as opposed to a duplicate). */
    boolean newAtReceiver;

    Tx(int idx, Packet p) {
        this.idx = idx;
        this.p = p;
    }

    boolean c2s() {
        return p.c2s;
    }

    long seq() {
        return p.seq;
    }

    long end() {
        return p.end();
    }

    boolean has(int bit) {
        return p.has(bit);
    }

    boolean isData() {
        return p.len > 0;
    }

    boolean isPureAck() {
        return p.len == 0 && (p.flags & (TcpFlags.SYN | TcpFlags.FIN | TcpFlags.RST)) == 0;
    }

    /** What a transmission is, for window simulation and arc rules. */
    enum Kind {
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

    @Override
    public String toString() {
        return "#" + idx + " " + (c2s() ? "C>S " : "S>C ") + TcpFlags.letters(p.flags) + " " + p.seq + ":" + end()
                + " ack " + p.ack + " len " + p.len + " dep " + (dep == NONE ? "-" : dep) + " arr " + (arr == NONE ? "-" : arr)
                + " " + kind + (rtxOf >= 0 ? " rtxOf #" + rtxOf + " " + lossCause : "") + (liberator >= 0 ? " lib #" + liberator : "");
    }
}
