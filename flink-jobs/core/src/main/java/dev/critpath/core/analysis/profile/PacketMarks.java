package dev.critpath.core.analysis.profile;

import dev.critpath.core.analysis.LossCause;
import dev.critpath.core.analysis.PacketKind;
import dev.critpath.core.analysis.PacketSighting;
import dev.critpath.core.analysis.align.Timeline;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.analysis.clean.Packet;
import dev.critpath.core.analysis.clean.SequenceSpace;
import dev.critpath.core.analysis.sender.SenderMarks;
import dev.critpath.core.analysis.sender.TxKind;
import dev.critpath.core.event.TcpFlags;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;

/** Each transmission's sightings (leaving the sender's sensor, reaching the receiver's) with the forward pass's marks on them. */
final class PacketMarks {
    private final Timeline tl;
    private final SenderMarks marks;
    private final SequenceSpace bases;
    /** The transmissions the critical path passes through. */
    private final BitSet onPath;

    PacketMarks(Timeline tl, SenderMarks marks, SequenceSpace bases, BitSet onPath) {
        this.tl = tl;
        this.marks = marks;
        this.bases = bases;
        this.onPath = onPath;
    }

    /** Sightings at or after {@code fromUs}, in time order; only what a sensor captured, never an estimated time. */
    List<PacketSighting> from(long fromUs) {
        List<PacketSighting> out = new ArrayList<>();
        for (Tx t : tl.txs) {
            PacketKind kind = kind(t);
            if (t.dep() != Tx.NONE && !t.depEstimated() && t.dep() >= fromUs) {
                out.add(sighting(t, t.p, true, t.dep(), kind));
            }
            if (t.seenArriving() != null && t.arr() >= fromUs) {
                out.add(sighting(t, t.seenArriving(), false, t.arr(), kind));
            }
        }
        out.sort(Comparator.comparingLong(PacketSighting::timeUs).thenComparingInt(PacketSighting::txIndex));
        return out;
    }

    private PacketSighting sighting(Tx t, Packet seen, boolean sent, long timeUs, PacketKind kind) {
        boolean atClient = sent == t.c2s();
        String sensor = atClient ? tl.clientView.sensor : tl.serverView.sensor;
        LossCause cause = marks.lossCause(t);
        return new PacketSighting(t.idx(), sensor, t.direction(), sent, timeUs, seen.ts, seen.seq, seen.ack, seen.len,
                TcpFlags.letters(seen.flags), seen.win, windowEdge(seen), seen.sack, kind, cause, marks.rtxOf(t),
                onPath.get(t.idx()));
    }

    private PacketKind kind(Tx t) {
        TxKind k = marks.kind(t);
        if (k == TxKind.RETRANSMISSION) {
            if (marks.spurious(t)) {
                return PacketKind.SPURIOUS;
            }
            if (marks.lossCause(t) == null) { // an answer to the peer's packet that repeats what it carried
                return t.has(TcpFlags.SYN) ? PacketKind.SYN_ACK_AGAIN : PacketKind.FIN_AGAIN;
            }
            return PacketKind.resend(marks.lossCause(t));
        }
        if (k == TxKind.WINDOW_PROBE) {
            return PacketKind.WINDOW_PROBE;
        }
        if (k == TxKind.KEEPALIVE) {
            return PacketKind.KEEPALIVE;
        }
        if (t.has(TcpFlags.SYN)) {
            return PacketKind.SYN;
        }
        if (t.has(TcpFlags.RST)) {
            return PacketKind.RST;
        }
        if (t.isData()) {
            return PacketKind.DATA;
        }
        if (t.has(TcpFlags.FIN)) {
            return PacketKind.FIN;
        }
        if (marks.duplicateAck(t)) {
            return PacketKind.DUP_ACK;
        }
        return t.p.win == 0 ? PacketKind.ZERO_WINDOW : PacketKind.ACK;
    }

    /** The receive window's right edge this packet advertises: SYNs are never scaled (RFC 7323), a reset's window means nothing. */
    private Long windowEdge(Packet p) {
        if (!p.has(TcpFlags.ACK) || p.has(TcpFlags.RST)) {
            return null;
        }
        if (p.has(TcpFlags.SYN)) {
            return p.ack + p.win;
        }
        int scale = p.c2s ? bases.wscaleClient : bases.wscaleServer;
        if (scale < 0) {
            return p.win == 0 ? p.ack : null;
        }
        return p.ack + ((long) p.win << scale);
    }
}
