package dev.critpath.core.testing;

import dev.critpath.core.analysis.CaptureMode;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.event.CommunityId;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.event.TcpFlags;
import dev.critpath.core.trace.ConnectionAssembler;
import dev.critpath.core.trace.ConnectionTrace;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Hand-built connections for unit tests: script who sends what and when (ms on each sender's
 * own clock), and the builder derives sequence and acknowledgement numbers, arrivals after the
 * one-way delays, losses, and what each sensor captured. The truth is known by construction.
 */
public final class HandTrace {
    public static final String CLIENT = "10.0.0.1";
    public static final String SERVER = "10.0.0.2";
    public static final int CLIENT_PORT = 40000;
    public static final int SERVER_PORT = 80;
    private long t0 = 1_763_800_000_000_000L;
    private long isnC = 4_294_960_000L; // wraps past 2^32 after a few KB on purpose
    private long isnS = 5_000L;

    private final long owdC2sUs;
    private final long owdS2cUs;
    private long serverClockOffsetUs;
    private double serverClockDriftPpm;
    private boolean sackPermitted;
    private int mss = 1460;
    private final List<P> packets = new ArrayList<>();
    private long nextC = 0;
    private long nextS = 0;
    private int ipIdC = 100;
    private int ipIdS = 7000;

    /** One-way delays in ms. */
    public HandTrace(double owdC2sMs, double owdS2cMs) {
        this.owdC2sUs = us(owdC2sMs);
        this.owdS2cUs = us(owdS2cMs);
    }

    /** Initial sequence numbers of client and server. */
    /** Handshake, a 100-byte request, 20 ms think time, a 1000-byte response with FIN, teardown. */
    public static HandTrace smallTransfer(double owdC2s, double owdS2c) {
        HandTrace h = new HandTrace(owdC2s, owdS2c);
        double synArr = owdC2s;
        h.c(0).syn();
        h.s(synArr).syn();
        double synAckArr = synArr + owdS2c;
        h.c(synAckArr).ack(1);
        h.c(synAckArr + 0.1).data(100);
        double reqArr = synAckArr + 0.1 + owdC2s;
        h.s(reqArr + 20).data(1000).fin();
        double respArr = reqArr + 20 + owdS2c;
        h.c(respArr + 0.2).fin();
        h.s(respArr + 0.2 + owdC2s);
        return h;
    }

    /**
     * A 20 ms path's handshake and a 100-byte request sent at {@code requestMs}, every packet with
     * TCP timestamps: the client's clock in ms, the server's 1000 ahead, each echoing the last
     * stamp its sender took in.
     */
    public static HandTrace stampedRequest(double requestMs) {
        HandTrace h = new HandTrace(20, 20);
        h.c(0).syn().tsval(0);
        h.s(20).syn().tsval(1020).tsecr(0);
        h.c(40).ack(1).tsval(40).tsecr(1020);
        h.c(requestMs).data(100).tsval(40).tsecr(1020);
        return h;
    }

    /**
     * A response in slow start whose client's ACKs queue on a slow uplink (8 ms to serialise each)
     * of a 20 ms path, every packet with TCP timestamps (1 ms clocks, the server's 1000 ahead): the
     * server sends two segments 1 ms apart as each ACK arrives, echoing its timestamp, for
     * {@code rounds} rounds; the client ACKs each segment 50 µs after it arrives, and an ACK that
     * would wait longer than {@code maxWaitMs} in the uplink's queue is dropped there.
     */
    public static HandTrace queuedAcks(int rounds, double maxWaitMs) {
        HandTrace h = stampedRequest(40.1);
        List<double[]> sends = List.of(new double[] {60.2, 40}, new double[] {61.2, 40}); // departure ms, echoed timestamp
        double uplinkFree = 0;
        for (int r = 0; r < rounds; r++) {
            List<double[]> next = new ArrayList<>();
            for (double[] d : sends) {
                h.s(d[0]).data(1000).tsval(1000 + (long) d[0]).tsecr((long) d[1]);
                double ackAt = d[0] + 20.05;
                double arrives = Math.max(ackAt + 20, uplinkFree + 8);
                P ack = h.c(ackAt).tsval((long) ackAt).tsecr(1000 + (long) d[0]);
                if (arrives - ackAt - 20 > maxWaitMs) {
                    ack.lost();
                    continue;
                }
                ack.queued(arrives - ackAt - 20);
                uplinkFree = arrives;
                next.add(new double[] {arrives + 0.05, (long) ackAt});
                next.add(new double[] {arrives + 1.05, (long) ackAt});
            }
            sends = next;
        }
        return h;
    }

    /** Handshake and a 100-byte request sent with the handshake's ACK; returns when the request reaches the server. */
    public double handshakeAndRequest(double owd) {
        c(0).syn();
        s(owd).syn();
        c(2 * owd).ack(1);
        c(2 * owd).data(100);
        return 3 * owd;
    }

    /**
     * Handshake and request, then the server's first segment of {@code bytes} lost, and its timer's
     * copy 300 ms later lost too; returns when the request reached the server.
     */
    public double firstSegmentLostTwice(int bytes) {
        double r = handshakeAndRequest(30);
        s(r + 0.1).data(bytes).lost();
        s(r + 300.1).resend(1, bytes).lost();
        return r;
    }

    /**
     * A response of {@code segments} 1000-byte segments from ms, 10 µs apart; the client ACKs each
     * arrival 1 µs later unless it was lost.
     *
     * @param lostSegment the segment (1-based) dropped in the network, 0 for none
     */
    public void responseAckedEach(double ms, int segments, int lostSegment) {
        for (int i = 1; i <= segments; i++) {
            P p = s(ms + 0.01 * i).data(1000);
            if (i == lostSegment) {
                p.lost();
            }
        }
        for (int i = 1; i <= segments; i++) {
            if (i != lostSegment) {
                c(ms + 0.01 * i + 30.001);
            }
        }
    }

    /**
     * A response of ten 1000-byte segments from ms whose third is lost, re-sent by a fast
     * retransmit after the duplicate ACKs (it reaches the client 90.161 ms after ms), then a
     * second 100-byte request as soon as the client holds the whole response, answered by 1000
     * bytes 20 ms after it arrives, and teardown.
     */
    public void holeFilledThenNextRequest(double ms) {
        responseAckedEach(ms, 10, 3);
        s(ms + 60.161).resend(2001, 1000);
        double filled = ms + 60.161 + owdS2cUs / 1000.0;
        c(filled + 0.1).data(100);
        double answered = filled + 0.1 + owdC2sUs / 1000.0 + 20;
        s(answered).data(1000);
        double done = answered + owdS2cUs / 1000.0;
        c(done + 0.1).fin();
        s(done + 0.1 + owdC2sUs / 1000.0).fin();
        c(done + 0.2 + (owdC2sUs + owdS2cUs) / 1000.0);
    }

    public HandTrace isns(long client, long server) {
        isnC = client;
        isnS = server;
        return this;
    }

    /** Shifts the whole connection in time (e.g. a second connection reusing the ports later). */
    public HandTrace startingAtMs(double ms) {
        t0 += us(ms);
        return this;
    }

    /** Both SYNs offer SACK (off by default, as in the lab's Reno scenarios). */
    public HandTrace sackPermitted(boolean on) {
        sackPermitted = on;
        return this;
    }

    /** The MSS option both SYNs carry. */
    public HandTrace mss(int bytes) {
        mss = bytes;
        return this;
    }

    /** The server sensor's clock gains this many µs per second on the client sensor's (NTP-disciplined clocks drift). */
    public HandTrace serverClockDriftPpm(double ppm) {
        serverClockDriftPpm = ppm;
        return this;
    }

    /** The server sensor's clock runs this much ahead of the client sensor's. */
    public HandTrace serverClockOffsetMs(double ms) {
        serverClockOffsetUs = us(ms);
        return this;
    }

    private static long us(double ms) {
        return Math.round(ms * 1000);
    }

    /** The client sends something at client-clock time ms. */
    public P c(double ms) {
        P p = new P(true, us(ms));
        packets.add(p);
        return p;
    }

    /** The server sends something at (true) time ms; its sensor records it with the clock offset. */
    public P s(double ms) {
        P p = new P(false, us(ms));
        packets.add(p);
        return p;
    }

    /** One packet; fluent setters describe it. */
    public final class P {
        final boolean c2s;
        final long dep;
        long seq = -1;
        int len;
        int flags = TcpFlags.ACK;
        long ack = -1;
        int win = 1000; // scaled by 2^7: 128000 bytes
        long extraDelayUs;
        boolean lost;
        boolean missingAtSenderSensor;
        boolean missingAtReceiverSensor;
        boolean options;
        long[] sack;
        int ipId;
        long tsval = -1;
        long tsecr = -1;

        P(boolean c2s, long dep) {
            this.c2s = c2s;
            this.dep = dep;
            this.ipId = c2s ? ipIdC++ : ipIdS++;
        }

        public P syn() {
            flags = TcpFlags.SYN | (c2s ? 0 : TcpFlags.ACK);
            seq = 0;
            options = true;
            if (c2s) {
                nextC = Math.max(nextC, 1);
            } else {
                nextS = Math.max(nextS, 1);
            }
            win = 64240;
            return this;
        }

        /** New payload bytes after everything this side sent so far. */
        public P data(int bytes) {
            seq = c2s ? nextC : nextS;
            len = bytes;
            if (c2s) {
                nextC += bytes;
            } else {
                nextS += bytes;
            }
            flags |= TcpFlags.PSH;
            return this;
        }

        /** A re-send of bytes [relSeq, relSeq + bytes). */
        public P resend(long relSeq, int bytes) {
            seq = relSeq;
            len = bytes;
            return this;
        }

        public P fin() {
            if (seq < 0) {
                seq = c2s ? nextC : nextS;
            }
            flags |= TcpFlags.FIN;
            if (c2s) {
                nextC = Math.max(nextC, seq + len + 1);
            } else {
                nextS = Math.max(nextS, seq + len + 1);
            }
            return this;
        }

        public P rst() {
            flags = TcpFlags.RST | TcpFlags.ACK;
            return this;
        }

        /** Raw (unscaled) window; the connection negotiates window scale 7 both ways. */
        public P window(int raw) {
            win = raw;
            return this;
        }

        /** Acknowledge exactly this relative number instead of everything received. */
        public P ack(long rel) {
            ack = rel;
            return this;
        }

        /** The TCP timestamp value it carries (none by default). */
        public P tsval(long value) {
            tsval = value;
            return this;
        }

        /** The peer's TCP timestamp value it echoes (none by default). */
        public P tsecr(long value) {
            tsecr = value;
            return this;
        }

        public P sack(long... relEdges) {
            sack = relEdges;
            return this;
        }

        /** Dropped in the network between the sensors. */
        public P lost() {
            lost = true;
            return this;
        }

        /** Queued this much longer than the minimum delay. */
        public P queued(double ms) {
            extraDelayUs = us(ms);
            return this;
        }

        /** The sender-side sensor's capture filter dropped it (it still reached the receiver). */
        public P notCapturedAtSender() {
            missingAtSenderSensor = true;
            return this;
        }

        public P notCapturedAtReceiver() {
            missingAtReceiverSensor = true;
            return this;
        }

        long arr() {
            return dep + (c2s ? owdC2sUs : owdS2cUs) + extraDelayUs;
        }

        /** When it truly left its sender, µs on the client's clock (as the analysis's timeline counts). */
        public long departedUs() {
            return t0 + dep;
        }

        /** When it truly reached its receiver, µs on the client's clock; MAX_VALUE if it never did. */
        public long arrivedUs() {
            return lost ? Long.MAX_VALUE : t0 + arr();
        }

        long end() {
            return seq + len + ((flags & (TcpFlags.SYN | TcpFlags.FIN)) != 0 ? 1 : 0);
        }
    }

    /** Everything each side had received in order by the time it sent p (unless p says otherwise). */
    private long cumulativeAck(P p) {
        List<long[]> got = new ArrayList<>();
        for (P q : packets) {
            if (q.c2s != p.c2s && !q.lost && q.arr() <= p.dep && q.seq >= 0 && q.end() > q.seq) {
                got.add(new long[] {q.seq, q.end()});
            }
        }
        got.sort(Comparator.comparingLong(r -> r[0]));
        long next = 0;
        for (long[] r : got) {
            if (r[0] <= next) {
                next = Math.max(next, r[1]);
            }
        }
        return next;
    }

    private PacketEvent event(P p, String sensor, SensorRole role, long ts) {
        long rel = p.seq < 0 ? (p.c2s ? nextCAt(p) : nextSAt(p)) : p.seq;
        long seq = ((p.c2s ? isnC : isnS) + rel) & 0xffff_ffffL;
        boolean hasAck = (p.flags & TcpFlags.ACK) != 0;
        long ackRel = p.ack >= 0 ? p.ack : cumulativeAck(p);
        long ack = hasAck ? ((p.c2s ? isnS : isnC) + ackRel) & 0xffff_ffffL : 0;
        long[] sack = null;
        if (p.sack != null) {
            sack = new long[p.sack.length];
            for (int i = 0; i < sack.length; i++) {
                sack[i] = ((p.c2s ? isnS : isnC) + p.sack[i]) & 0xffff_ffffL;
            }
        }
        String cid = CommunityId.tcpV1(CLIENT, CLIENT_PORT, SERVER, SERVER_PORT, 0);
        return new PacketEvent(sensor, role, t0 + ts, cid, CLIENT, CLIENT_PORT, SERVER, SERVER_PORT, p.c2s, p.flags, seq, ack,
                p.len, p.win, p.options ? 7 : -1, p.options ? mss : -1, p.options && sackPermitted ? Boolean.TRUE : null, sack,
                p.tsval, p.tsecr, p.ipId, 64, PacketEvent.ABSENT);
    }

    /** Pure ACKs carry the next sequence number their sender would use at that time. */
    private long nextCAt(P p) {
        return nextAt(p, true);
    }

    private long nextSAt(P p) {
        return nextAt(p, false);
    }

    /** Highest sequence end this side had sent before p (in script order). */
    private long nextAt(P p, boolean c2s) {
        long n = 0;
        for (P q : packets) {
            if (q == p) {
                break;
            }
            if (q.c2s == c2s && q.seq >= 0 && q.dep <= p.dep) {
                n = Math.max(n, q.end());
            }
        }
        return n;
    }

    /** The scripted packet an analysed transmission is: by direction and sequence number, a pure ACK by its timestamp. */
    public P scripted(Tx t) {
        for (P p : packets) {
            boolean same = t.isPureAck() ? p.seq < 0 && p.len == 0 && p.tsval == t.p.tsval : p.seq == t.seq() && p.len == t.p.len;
            if (p.c2s == t.c2s() && same) {
                return p;
            }
        }
        throw new AssertionError("not in the script: " + t);
    }

    /** Packets as the client-side sensor saw them. */
    public List<PacketEvent> clientCapture() {
        List<PacketEvent> out = new ArrayList<>();
        for (P p : packets) {
            if (p.c2s && !p.missingAtSenderSensor) {
                out.add(event(p, "client-side", SensorRole.CLIENT, p.dep));
            } else if (!p.c2s && !p.lost && !p.missingAtReceiverSensor) {
                out.add(event(p, "client-side", SensorRole.CLIENT, p.arr()));
            }
        }
        out.sort(Comparator.comparingLong(PacketEvent::tsUs));
        return out;
    }

    /** Packets as the server-side sensor saw them, on its own (offset) clock. */
    public List<PacketEvent> serverCapture() {
        List<PacketEvent> out = new ArrayList<>();
        for (P p : packets) {
            if (!p.c2s && !p.missingAtSenderSensor) {
                out.add(event(p, "server-side", SensorRole.SERVER, serverClock(p.dep)));
            } else if (p.c2s && !p.lost && !p.missingAtReceiverSensor) {
                out.add(event(p, "server-side", SensorRole.SERVER, serverClock(p.arr())));
            }
        }
        out.sort(Comparator.comparingLong(PacketEvent::tsUs));
        return out;
    }

    private long serverClock(long trueUs) {
        return trueUs + serverClockOffsetUs + Math.round(trueUs * serverClockDriftPpm / 1e6);
    }

    public ConnectionTrace bothSensors() {
        return assemble(clientCapture(), serverCapture());
    }

    public ConnectionTrace clientSensorOnly() {
        return assemble(clientCapture(), List.of());
    }

    public ConnectionTrace serverSensorOnly() {
        return assemble(List.of(), serverCapture());
    }

    /** What the sensors of a capture mode saw. */
    public ConnectionTrace trace(CaptureMode mode) {
        return switch (mode) {
            case TWO_POINT -> bothSensors();
            case CLIENT_SIDE -> clientSensorOnly();
            case SERVER_SIDE -> serverSensorOnly();
        };
    }

    private static ConnectionTrace assemble(List<PacketEvent> a, List<PacketEvent> b) {
        ConnectionAssembler as = new ConnectionAssembler();
        a.forEach(as::add);
        b.forEach(as::add);
        List<ConnectionTrace> all = as.connections();
        if (all.size() != 1) {
            throw new IllegalStateException("expected one connection, got " + all.size());
        }
        return all.get(0);
    }

    /** Time of the client's first packet (its SYN) to its last, as the client saw it, µs. */
    public long clientObservedDurationUs() {
        List<PacketEvent> c = clientCapture();
        return c.get(c.size() - 1).tsUs() - c.get(0).tsUs();
    }
}
