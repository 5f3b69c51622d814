package dev.critpath.core.analysis.clean;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.TcpFlags;
import dev.critpath.core.trace.ConnectionTrace;
import dev.critpath.core.trace.SensorCapture;
import java.util.ArrayList;
import java.util.List;

/**
 * Relative sequence spaces for both directions, shared by every sensor of the connection, and
 * what the handshake agreed: segment sizes, window scales, SACK.
 */
public final class SequenceSpace {
    public final long clientBase;
    public final long serverBase;
    public final boolean clientSynSeen;
    public final boolean serverSynSeen;
    /** Effective sender segment size per direction (MSS minus timestamp option), or -1. */
    public final int smssC2s;
    public final int smssS2c;
    public final int wscaleClient;
    public final int wscaleServer;
    public final boolean sackPermitted;

    public SequenceSpace(ConnectionTrace t) {
        PacketEvent syn = null;
        List<PacketEvent> synAcks = new ArrayList<>();
        PacketEvent firstC = null;
        PacketEvent firstS = null;
        long handshakeAck = -1; // the client's first plain ACK names the SYN/ACK it accepted
        for (SensorCapture c : t.captures()) {
            List<PacketEvent> events = c.packets();
            for (int i = 0, n = events.size(); i < n; i++) {
                PacketEvent e = events.get(i);
                boolean isSyn = e.hasFlag(TcpFlags.SYN);
                if (e.isOrig()) {
                    if (isSyn && !e.hasFlag(TcpFlags.ACK) && syn == null) {
                        syn = e;
                    } else if (!isSyn && e.hasFlag(TcpFlags.ACK) && handshakeAck < 0) {
                        handshakeAck = e.ack();
                    }
                    firstC = firstC == null ? e : firstC;
                } else {
                    if (isSyn && e.hasFlag(TcpFlags.ACK)) {
                        synAcks.add(e);
                    }
                    firstS = firstS == null ? e : firstS;
                }
            }
        }
        // a SYN/ACK retransmitted with another ISN must not confuse the sequence space
        PacketEvent synAck = synAcks.isEmpty() ? null : synAcks.get(0);
        for (PacketEvent sa : synAcks) {
            if (((sa.seq() + 1) & 0xffff_ffffL) == handshakeAck) {
                synAck = sa;
            }
        }
        clientSynSeen = syn != null;
        serverSynSeen = synAck != null;
        clientBase = synAck != null ? (synAck.ack() - 1) & 0xffff_ffffL : syn != null ? syn.seq() : baseFromMin(t, true, firstC);
        serverBase = synAck != null ? synAck.seq() : baseFromMin(t, false, firstS);
        boolean ts = syn != null && synAck != null && syn.tsval() >= 0 && synAck.tsval() >= 0;
        int tsOverhead = ts ? 12 : 0;
        smssC2s = synAck != null && synAck.mss() > 0 ? synAck.mss() - tsOverhead : -1;
        smssS2c = syn != null && syn.mss() > 0 ? syn.mss() - tsOverhead : -1;
        boolean scaling = syn != null && synAck != null && syn.wscale() >= 0 && synAck.wscale() >= 0;
        wscaleClient = scaling ? Math.min(14, syn.wscale()) : (syn == null || synAck == null ? -1 : 0);
        wscaleServer = scaling ? Math.min(14, synAck.wscale()) : (syn == null || synAck == null ? -1 : 0);
        sackPermitted = syn != null && synAck != null && Boolean.TRUE.equals(syn.sackOk()) && Boolean.TRUE.equals(synAck.sackOk());
    }

    /** Mid-stream: pick the base so the lowest sequence number seen becomes 1. */
    private static long baseFromMin(ConnectionTrace t, boolean client, PacketEvent anchor) {
        if (anchor == null) {
            return 0;
        }
        long minOffset = 0;
        for (SensorCapture c : t.captures()) {
            List<PacketEvent> events = c.packets();
            for (int i = 0, n = events.size(); i < n; i++) {
                PacketEvent e = events.get(i);
                if (e.isOrig() == client) {
                    minOffset = Math.min(minOffset, (int) (e.seq() - anchor.seq()));
                }
            }
        }
        return (anchor.seq() + minOffset - 1) & 0xffff_ffffL;
    }
}
