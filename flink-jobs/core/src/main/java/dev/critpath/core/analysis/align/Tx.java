package dev.critpath.core.analysis.align;

import dev.critpath.core.analysis.LossCause;
import dev.critpath.core.analysis.clean.Packet;
import dev.critpath.core.event.TcpFlags;

/**
 * One transmission of a packet, seen leaving its sender and/or arriving at its receiver, on the
 * client's timeline. Times that no sensor saw are estimated (and flagged) so the dependence
 * graph stays connected.
 */
public final class Tx {
    public static final long NONE = Long.MIN_VALUE;

    public int idx;
    public final Packet p;
    /** Departure from the sender and arrival at the receiver, µs on the client timeline, or NONE. */
    public long dep = NONE;
    public long arr = NONE;
    public boolean depEstimated;
    public boolean arrEstimated;

    // filled by the sender simulation
    public Kind kind = Kind.CONTROL;
    /** Earlier transmission of the same bytes (for loss arcs), or -1. */
    public int rtxOf = -1;
    public LossCause lossCause;
    /**
     * True when this re-send is where the sender recognised the loss (the timer fired, or the
     * fast retransmit itself): tcpeval's loss arc from the lost copy. Later re-sends of the same
     * recovery are clocked by ACKs and depend on those instead.
     */
    public boolean lossArc;
    /** ACK (a Tx of the other direction) whose arrival let this data leave, or -1. */
    public int liberator = -1;
    /** True when the sender sent it beyond the simulated window and the simulation re-synchronised. */
    public boolean outOfWindow;
    /** First arrival of these bytes at the receiver (as opposed to a duplicate). */
    public boolean newAtReceiver;

    Tx(int idx, Packet p) {
        this.idx = idx;
        this.p = p;
    }

    public boolean c2s() {
        return p.c2s;
    }

    public long seq() {
        return p.seq;
    }

    public long end() {
        return p.end();
    }

    public boolean has(int bit) {
        return p.has(bit);
    }

    public boolean isData() {
        return p.len > 0;
    }

    public boolean isPureAck() {
        return p.len == 0 && (p.flags & (TcpFlags.SYN | TcpFlags.FIN | TcpFlags.RST)) == 0;
    }

    /** What a transmission is, for window simulation and arc rules. */
    public enum Kind {
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
