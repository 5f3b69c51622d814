package dev.critpath.core.analysis.align;

import dev.critpath.core.analysis.AnalysisConfig;
import dev.critpath.core.analysis.Direction;
import dev.critpath.core.analysis.LongSet;
import dev.critpath.core.analysis.clean.Packet;
import dev.critpath.core.analysis.clean.SensorView;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.event.TcpFlags;
import java.util.Arrays;

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
        return packetsSay(v) == SensorRole.CLIENT;
    }

    /** Where a sensor sits by its packets alone ({@link #evidence}, else turnaround timing), whatever side it was given; UNKNOWN when neither tells. */
    static SensorRole packetsSay(SensorView v) {
        SensorRole seen = evidence(v);
        if (seen != SensorRole.UNKNOWN) {
            return seen;
        }
        double score = nearClientScore(v);
        return score < 0 ? SensorRole.CLIENT : score > 0 ? SensorRole.SERVER : SensorRole.UNKNOWN;
    }

    /** Whether the side this sensor was given (configured or hinted) is where its packets put it. */
    static boolean givenSideHolds(SensorView v, AnalysisConfig cfg) {
        SensorRole stated = hint(v, cfg);
        return stated != SensorRole.UNKNOWN && stated == packetsSay(v);
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
        SensorRole byTtl = byTtl(v.pieceArray());
        SensorRole byHandshake = byHandshake(v.pieceArray());
        if (byTtl == SensorRole.UNKNOWN) {
            return byHandshake;
        }
        return byHandshake == SensorRole.UNKNOWN || byHandshake == byTtl ? byTtl : SensorRole.UNKNOWN;
    }

    /** The direction whose every packet (with a TTL, one at least) carries an initial TTL, if only one does. */
    private static SensorRole byTtl(Packet[] pkts) {
        boolean[] any = new boolean[2]; // by direction: client to server first
        boolean[] notInitial = new boolean[2];
        for (Packet p : pkts) {
            if (p.ttl > 0) {
                int dir = p.c2s ? 0 : 1;
                any[dir] = true;
                notInitial[dir] |= !isInitialTtl(p.ttl);
            }
        }
        boolean clientInitial = any[0] && !notInitial[0];
        boolean serverInitial = any[1] && !notInitial[1];
        if (clientInitial == serverInitial) {
            return SensorRole.UNKNOWN; // both next to the sensor (one LAN), or neither: TTL cannot tell
        }
        return clientInitial ? SensorRole.CLIENT : SensorRole.SERVER;
    }

    private static boolean isInitialTtl(int ttl) {
        for (int t : INITIAL_TTLS) {
            if (ttl == t) {
                return true;
            }
        }
        return false;
    }

    private static SensorRole byHandshake(Packet[] pkts) {
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
        Workspace ws = Workspace.forPackets(v.pieceArray().length);
        long clientTurn = minTurnaround(v.pieceArray(), Direction.S2C, ws);
        long serverTurn = minTurnaround(v.pieceArray(), Direction.C2S, ws);
        if (clientTurn == Long.MAX_VALUE || serverTurn == Long.MAX_VALUE) {
            return 0;
        }
        return clientTurn - (double) serverTurn;
    }

    /**
     * Minimum time from a packet of one direction to the first reply acknowledging it. Karn's
     * rule: a segment sent more than once times nothing, its ACK may answer either copy; so does
     * a re-send cut to other boundaries that ends where an earlier copy ended. A
     * keep-alive (one old byte or none, just below what the peer acknowledged) draws an
     * immediate ACK: on an idle connection it is the only round trip there is.
     */
    static long minTurnaround(Packet[] pkts, Direction from, Workspace ws) {
        boolean fromC2s = from == Direction.C2S;
        int[] pending = ws.pending(pkts.length); // a queue of capture indices
        int head = 0;
        int tail = 0;
        // a segment starting at or above all sent before is sent for the first time: those ascend,
        // so they are kept in order and looked up by halving; only the others go to a set
        long[] firstSeqs = ws.firstSeqs(pkts.length);
        int firsts = 0;
        long sentTo = Long.MIN_VALUE;
        LongSet otherSeqs = null;
        LongSet sentTwice = null;
        long best = Long.MAX_VALUE;
        long peerAck = Long.MIN_VALUE;
        Packet keepalive = null;
        for (int i = 0; i < pkts.length; i++) {
            Packet p = pkts[i];
            if (p.c2s == fromC2s) {
                keepalive = p.len <= 1 && p.seq == peerAck - 1 && !p.has(TcpFlags.SYN) && !p.has(TcpFlags.FIN) && !p.has(TcpFlags.RST) ? p : null;
                if (keepalive == null && p.carriesSeqSpace()) {
                    pending[tail++] = i;
                    if (p.seq >= sentTo) {
                        firstSeqs[firsts++] = p.seq;
                    } else if (Arrays.binarySearch(firstSeqs, 0, firsts, p.seq) >= 0 || otherSeqs != null && otherSeqs.contains(p.seq)
                            // or cut to other boundaries (a path MTU's), yet ending where a first copy ended
                            || p.end() == sentTo || Arrays.binarySearch(firstSeqs, 0, firsts, p.end()) >= 0) {
                        sentTwice = sentTwice == null ? new LongSet() : sentTwice;
                        sentTwice.add(p.seq);
                    } else {
                        otherSeqs = otherSeqs == null ? new LongSet() : otherSeqs;
                        otherSeqs.add(p.seq);
                    }
                    sentTo = Math.max(sentTo, p.end());
                }
            } else if (p.has(TcpFlags.ACK)) {
                peerAck = Math.max(peerAck, p.ack);
                if (keepalive != null && !p.carriesSeqSpace()) { // its answer is a bare ACK; data the peer sends anyway answers nothing
                    best = Math.min(best, p.ts - keepalive.ts);
                }
                keepalive = null;
                Packet latest = null;
                while (head < tail && pkts[pending[head]].end() <= p.ack) {
                    latest = pkts[pending[head++]];
                }
                if (latest != null && (sentTwice == null || !sentTwice.contains(latest.seq))) {
                    best = Math.min(best, p.ts - latest.ts);
                }
            }
        }
        return best;
    }
}
