package dev.critpath.core.analysis.align;

import dev.critpath.core.analysis.AnalysisConfig;
import dev.critpath.core.analysis.Direction;
import dev.critpath.core.analysis.LongSet;
import dev.critpath.core.analysis.clean.Packet;
import dev.critpath.core.analysis.clean.SensorView;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.event.TcpFlags;
import java.util.ArrayDeque;
import java.util.List;

/** Which of a connection's sensors sits at the client's side and which at the server's. */
final class SensorRoles {
    private SensorRoles() {
    }

    /** Initial TTLs stacks use: a packet captured next to its sender still carries one. */
    private static final int[] INITIAL_TTLS = {32, 64, 128, 255};
    /** How much longer one handshake gap must be than the other to tell where the sensor sits. */
    private static final int HANDSHAKE_RATIO = 4;

    /**
     * Whether a connection's only sensor sits at the client's side: configured or hinted; else
     * as its packets say (see {@link #evidence}); else told from turnaround timing.
     */
    static boolean isClientSide(SensorView v, AnalysisConfig cfg) {
        SensorRole hint = hint(v, cfg);
        if (hint != SensorRole.UNKNOWN) {
            return hint == SensorRole.CLIENT;
        }
        SensorRole seen = evidence(v);
        return seen != SensorRole.UNKNOWN ? seen == SensorRole.CLIENT : nearClientScore(v) < 0;
    }

    /** The side configured or hinted for this sensor is not where its packets say it sits. */
    static boolean contradicted(SensorView v, AnalysisConfig cfg) {
        SensorRole stated = hint(v, cfg);
        if (stated == SensorRole.UNKNOWN) {
            return false; // nothing stated: no need to read the packets for evidence here
        }
        SensorRole seen = evidence(v);
        return seen != SensorRole.UNKNOWN && stated != seen;
    }

    /**
     * Where a sensor sits by what its packets say, UNKNOWN when they say nothing or disagree:
     * <ul>
     * <li>TTL: packets from the host next to the sensor still carry an initial TTL (32, 64, 128,
     * 255); the other end's have crossed routers;</li>
     * <li>the handshake: next to the client, SYN to SYN/ACK is a round trip and SYN/ACK to ACK the
     * client's own reaction; next to the server, the other way round.</li>
     * </ul>
     */
    static SensorRole evidence(SensorView v) {
        SensorRole byTtl = byTtl(v.pkts);
        SensorRole byHandshake = byHandshake(v.pkts);
        if (byTtl == SensorRole.UNKNOWN) {
            return byHandshake;
        }
        return byHandshake == SensorRole.UNKNOWN || byHandshake == byTtl ? byTtl : SensorRole.UNKNOWN;
    }

    private static SensorRole byTtl(List<Packet> pkts) {
        boolean clientInitial = allInitialTtl(pkts, true);
        boolean serverInitial = allInitialTtl(pkts, false);
        if (clientInitial == serverInitial) {
            return SensorRole.UNKNOWN; // both next to the sensor (one LAN), or neither: TTL cannot tell
        }
        return clientInitial ? SensorRole.CLIENT : SensorRole.SERVER;
    }

    /** Every packet of the direction carries an initial TTL (false when none has a TTL). */
    private static boolean allInitialTtl(List<Packet> pkts, boolean c2s) {
        boolean any = false;
        for (Packet p : pkts) {
            if (p.c2s == c2s && p.ttl > 0) {
                any = true;
                boolean initial = false;
                for (int t : INITIAL_TTLS) {
                    initial |= p.ttl == t;
                }
                if (!initial) {
                    return false;
                }
            }
        }
        return any;
    }

    private static SensorRole byHandshake(List<Packet> pkts) {
        Packet syn = null;
        Packet synAck = null;
        for (Packet p : pkts) {
            if (p.has(TcpFlags.SYN) && !p.has(TcpFlags.ACK) && p.c2s) {
                if (syn != null) {
                    return SensorRole.UNKNOWN; // a re-sent SYN: which one the SYN/ACK answers is unclear
                }
                syn = p;
            } else if (p.has(TcpFlags.SYN) && p.has(TcpFlags.ACK) && !p.c2s) {
                if (synAck != null || syn == null) {
                    return SensorRole.UNKNOWN;
                }
                synAck = p;
            } else if (synAck != null && p.c2s && p.has(TcpFlags.ACK)) {
                long synToSynAck = synAck.ts - syn.ts;
                long synAckToAck = p.ts - synAck.ts;
                if (synToSynAck > HANDSHAKE_RATIO * synAckToAck) {
                    return SensorRole.CLIENT;
                }
                return synAckToAck > HANDSHAKE_RATIO * synToSynAck ? SensorRole.SERVER : SensorRole.UNKNOWN;
            }
        }
        return SensorRole.UNKNOWN;
    }

    /** Whether the first of a connection's two sensors is the client-side one. */
    static boolean firstIsClientSide(SensorView a, SensorView b, AnalysisConfig cfg) {
        SensorRole hintA = hint(a, cfg);
        SensorRole hintB = hint(b, cfg);
        if (hintA != SensorRole.UNKNOWN && hintA != hintB) {
            return hintA == SensorRole.CLIENT;
        }
        if (hintB != SensorRole.UNKNOWN && hintA == SensorRole.UNKNOWN) {
            return hintB == SensorRole.SERVER;
        }
        return nearClientScore(a) <= nearClientScore(b);
    }

    private static SensorRole hint(SensorView v, AnalysisConfig cfg) {
        SensorRole h = cfg.sensorRoles.getOrDefault(v.sensor, v.hint);
        return h == null ? SensorRole.UNKNOWN : h;
    }

    /**
     * Negative near the client: the client's turnaround (server packet -> client packet acking it)
     * is short there and the server's long, and the other way round near the server.
     */
    private static double nearClientScore(SensorView v) {
        long clientTurn = minTurnaround(v.pkts, Direction.S2C);
        long serverTurn = minTurnaround(v.pkts, Direction.C2S);
        if (clientTurn == Long.MAX_VALUE || serverTurn == Long.MAX_VALUE) {
            return 0;
        }
        return clientTurn - (double) serverTurn;
    }

    /**
     * Minimum time from a packet of one direction to the first reply acknowledging it. Karn's
     * rule: a segment sent more than once times nothing, its ACK may answer either copy. A
     * keep-alive (one old byte or none, just below what the peer acknowledged) draws an
     * immediate ACK: on an idle connection it is the only round trip there is.
     */
    static long minTurnaround(List<Packet> pkts, Direction from) {
        boolean fromC2s = from == Direction.C2S;
        ArrayDeque<Packet> pending = new ArrayDeque<>();
        LongSet sent = new LongSet();
        LongSet sentTwice = new LongSet();
        long best = Long.MAX_VALUE;
        long peerAck = Long.MIN_VALUE;
        Packet keepalive = null;
        for (Packet p : pkts) {
            if (p.c2s == fromC2s) {
                keepalive = p.len <= 1 && p.seq == peerAck - 1 && !p.has(TcpFlags.SYN) && !p.has(TcpFlags.FIN) && !p.has(TcpFlags.RST) ? p : null;
                if (keepalive == null && p.carriesSeqSpace()) {
                    pending.addLast(p);
                    if (!sent.add(p.seq)) {
                        sentTwice.add(p.seq);
                    }
                }
            } else if (p.has(TcpFlags.ACK)) {
                peerAck = Math.max(peerAck, p.ack);
                if (keepalive != null) {
                    best = Math.min(best, p.ts - keepalive.ts);
                    keepalive = null;
                }
                Packet latest = null;
                while (!pending.isEmpty() && pending.peekFirst().end() <= p.ack) {
                    latest = pending.pollFirst();
                }
                if (latest != null && !sentTwice.contains(latest.seq)) {
                    best = Math.min(best, p.ts - latest.ts);
                }
            }
        }
        return best;
    }
}
