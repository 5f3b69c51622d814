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

    /** Whether a connection's only sensor sits at the client's side: configured, hinted, or told from timing. */
    static boolean isClientSide(SensorView v, AnalysisConfig cfg) {
        SensorRole hint = hint(v, cfg);
        return hint != SensorRole.UNKNOWN ? hint == SensorRole.CLIENT : nearClientScore(v) < 0;
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
     * rule: a segment sent more than once times nothing, its ACK may answer either copy.
     */
    static long minTurnaround(List<Packet> pkts, Direction from) {
        boolean fromC2s = from == Direction.C2S;
        ArrayDeque<Packet> pending = new ArrayDeque<>();
        LongSet sent = new LongSet();
        LongSet sentTwice = new LongSet();
        long best = Long.MAX_VALUE;
        for (Packet p : pkts) {
            if (p.c2s == fromC2s) {
                if (p.carriesSeqSpace()) {
                    pending.addLast(p);
                    if (!sent.add(p.seq)) {
                        sentTwice.add(p.seq);
                    }
                }
            } else if (p.has(TcpFlags.ACK)) {
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
