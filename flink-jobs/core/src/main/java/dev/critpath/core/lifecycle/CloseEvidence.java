package dev.critpath.core.lifecycle;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.TcpFlags;

/**
 * What a flow's FINs, RSTs and ACKs so far say about whether it is closed, taken one event at a
 * time in buffer order: a buffer that keeps one up to date as events come answers
 * {@link #stillOpen} without reading them back.
 */
final class CloseEvidence {
    private static final long NONE = Long.MIN_VALUE;

    private long origFinEnd = NONE;
    private long respFinEnd = NONE;
    private long origHighestAck = NONE;
    private long respHighestAck = NONE;
    private boolean reset;

    void add(PacketEvent e) {
        reset |= e.hasFlag(TcpFlags.RST);
        if (e.hasFlag(TcpFlags.FIN)) {
            long end = (e.seq() + e.len() + 1) & 0xffff_ffffL;
            if (e.isOrig()) {
                origFinEnd = end;
            } else {
                respFinEnd = end;
            }
        }
        if (e.hasFlag(TcpFlags.ACK)) {
            if (e.isOrig()) {
                origHighestAck = highestSeq(origHighestAck, e.ack());
            } else {
                respHighestAck = highestSeq(respHighestAck, e.ack());
            }
        }
    }

    /**
     * Not closed yet, though a FIN came: no RST, and some side's FIN is missing or was not seen
     * acknowledged (a half-close, after which the other side may go on sending; a FIN whose ACK
     * was lost, which its sender will re-send).
     */
    boolean stillOpen() {
        return !reset && !(covers(respHighestAck, origFinEnd) && covers(origHighestAck, respFinEnd));
    }

    /** The later of two sequence numbers in 32-bit sequence space; NONE is before all. */
    private static long highestSeq(long highest, long seq) {
        return highest == NONE || (int) (seq - highest) > 0 ? seq : highest;
    }

    /** An ACK this high acknowledges the FIN ending there; NONE for either: no. */
    private static boolean covers(long ack, long finEnd) {
        return ack != NONE && finEnd != NONE && (int) (ack - finEnd) >= 0;
    }
}
