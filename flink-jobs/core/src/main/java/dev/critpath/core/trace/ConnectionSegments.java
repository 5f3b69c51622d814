package dev.critpath.core.trace;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.TcpFlags;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a long-lived connection can be cut, so that a streaming job writes out what is done and
 * forgets its packets: a point where an exchange is complete (the last payload was the server's),
 * everything either side sent has been acknowledged, and nothing closed. The next segment begins
 * with the handshake restarted there: each sensor's SYN and SYN/ACK moved in sequence space to
 * just before the next byte, so the sender simulation starts afresh with the negotiated options,
 * as Linux restarts slow start after an idle period.
 */
public final class ConnectionSegments {
    private ConnectionSegments() {
    }

    /**
     * True when every sensor's latest payload was the server's, every byte, SYN and FIN sent
     * either way has been acknowledged, and there was no FIN or RST.
     */
    public static boolean canCutAfter(Iterable<PacketEvent> events) {
        return Flow.of(events).cuttable();
    }

    /**
     * How many of the first events to cut off as a segment, 0 for none: the longest prefix that
     * {@linkplain #canCutAfter can be cut} and is followed by at least {@code quietUs} without an
     * event from any sensor, counting only gaps the stream can no longer fill (whose start plus
     * {@code quietUs} is at most {@code completeToUs}, the watermark).
     *
     * @param inTimeOrder every sensor's events of one connection, by timestamp
     */
    public static int cutPoint(List<PacketEvent> inTimeOrder, long quietUs, long completeToUs) {
        Flow f = new Flow();
        int cut = 0;
        for (int i = 0; i < inTimeOrder.size(); i++) {
            PacketEvent e = inTimeOrder.get(i);
            f.add(e);
            boolean quietAfter = i == inTimeOrder.size() - 1 || inTimeOrder.get(i + 1).tsUs() - e.tsUs() >= quietUs;
            if (quietAfter && e.tsUs() + quietUs <= completeToUs && f.cuttable()) {
                cut = i + 1;
            }
        }
        return cut;
    }

    /**
     * The handshake restarted at the current end of both sequence spaces, per sensor that saw it;
     * empty when no sensor saw the whole handshake (a connection caught mid-stream stays so).
     */
    public static List<PacketEvent> restartedHandshake(Iterable<PacketEvent> events) {
        Flow f = Flow.of(events);
        List<PacketEvent> out = new ArrayList<>();
        for (Map.Entry<String, PacketEvent> syn : f.synBySensor.entrySet()) {
            PacketEvent synAck = f.synAckBySensor.get(syn.getKey());
            if (synAck != null) {
                out.add(syn.getValue().withSeqAck(wrap(f.c2s.sentEnd - 1), syn.getValue().ack()));
                out.add(synAck.withSeqAck(wrap(f.s2c.sentEnd - 1), f.c2s.sentEnd));
            }
        }
        return out;
    }

    private static long wrap(long seq) {
        return seq & 0xffff_ffffL;
    }

    /** 32-bit sequence order: a is after b. */
    private static boolean after(long a, long b) {
        return (int) (a - b) > 0;
    }

    private static final class Direction {
        boolean seen;
        long sentEnd;
        boolean acking;
        long ackedTo;

        void sent(PacketEvent e) {
            long end = wrap(e.seq() + e.len() + (e.hasFlag(TcpFlags.SYN) ? 1 : 0) + (e.hasFlag(TcpFlags.FIN) ? 1 : 0));
            sentEnd = !seen || after(end, sentEnd) ? end : sentEnd;
            seen = true;
            if (e.hasFlag(TcpFlags.ACK)) {
                ackedTo = !acking || after(e.ack(), ackedTo) ? e.ack() : ackedTo;
                acking = true;
            }
        }

        /** Everything this direction sent was acknowledged by the other. */
        boolean acked(Direction other) {
            return seen && other.acking && !after(sentEnd, other.ackedTo);
        }
    }

    private static final class Flow {
        final Direction c2s = new Direction();
        final Direction s2c = new Direction();
        final Map<String, PacketEvent> synBySensor = new LinkedHashMap<>();
        final Map<String, PacketEvent> synAckBySensor = new LinkedHashMap<>();
        final Map<String, PacketEvent> lastPayloadBySensor = new LinkedHashMap<>();
        boolean closed;

        static Flow of(Iterable<PacketEvent> events) {
            Flow f = new Flow();
            events.forEach(f::add);
            return f;
        }

        void add(PacketEvent e) {
            (e.isOrig() ? c2s : s2c).sent(e);
            closed |= e.hasFlag(TcpFlags.FIN) || e.hasFlag(TcpFlags.RST);
            if (e.len() > 0) {
                lastPayloadBySensor.merge(e.sensor(), e, (a, b) -> PacketEvent.CAPTURE_ORDER.compare(a, b) >= 0 ? a : b);
            }
            if (e.hasFlag(TcpFlags.SYN)) {
                (e.hasFlag(TcpFlags.ACK) ? synAckBySensor : synBySensor).putIfAbsent(e.sensor(), e);
            }
        }

        /** Checked after every event of a buffer (cutPoint): the cheap conditions first. */
        boolean cuttable() {
            if (closed || lastPayloadBySensor.isEmpty() || !c2s.acked(s2c) || !s2c.acked(c2s)) {
                return false;
            }
            for (PacketEvent last : lastPayloadBySensor.values()) {
                if (last.isOrig()) {
                    return false;
                }
            }
            return true;
        }
    }
}
