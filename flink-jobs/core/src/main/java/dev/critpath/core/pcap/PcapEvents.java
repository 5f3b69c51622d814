package dev.critpath.core.pcap;

import dev.critpath.core.event.CommunityId;
import dev.critpath.core.event.IpText;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.event.TcpFlags;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Turns a capture into the same packet events the Zeek sensors publish: flows are oriented
 * originator-to-responder (the SYN's sender, else the side with the service port), and named
 * by their Community ID. Address strings and IDs are computed once per flow, not per packet.
 *
 * <p>A flow is forgotten once it can tell nothing its next packet would not (a new flow is made
 * then, as for a flow first seen): one that sent only SYNs (a flood, a scan) whenever the table
 * fills; one of SYNs and SYN/ACKs only (a flood answered by SYN cookies) once quiet for
 * {@link #HANDSHAKE_QUIET_US} (its ACK, which only the SYN's orientation tells apart, is due
 * within a round trip); one closed by a RST or both FINs, or heard from one side only, once
 * quiet for {@link #BRIEF_QUIET_US}; any other once quiet for {@link #LONG_QUIET_US}, or the
 * idle timeout it is given if longer; and beyond the flows it may keep, those first seen last
 * whenever the table fills (a connection flood: the life cycle, full, refuses the new ones too).
 * So what is held grows with the flows of the last moments, not with the capture's length. What
 * a forgotten flow kept was the orientation its SYN gave: a packet after it is oriented afresh
 * (by the service port), as Zeek orients a connection whose state it expired.
 */
public final class PcapEvents {
    private final String sensor;
    private final SensorRole role;
    private final int communityIdSeed;
    /** Zeek's tcp_attempt_delay and tcp_close_delay: a flow unanswered or closed this long is done. */
    static final long BRIEF_QUIET_US = 5_000_000;
    /** Quiet this long after its SYN/ACK, a handshake's ACK is not coming (it is due within a round trip; a SYN/ACK re-sent later orients the flow again). */
    static final long HANDSHAKE_QUIET_US = 1_000_000;
    /** Above the offline idle timeout's default (15 minutes), so a connection the life cycle still holds keeps its orientation. */
    static final long LONG_QUIET_US = 3_600_000_000L;
    private static final int MIN_TABLE = 1024;

    /** IPv6 flows; IPv4 ones are in {@link #v4Flows}. */
    private final Map<FlowKey, Flow> flows = new HashMap<>();
    /** The IPv6 table's size at which forgettable flows are next looked for. */
    private int v6SweepAt = MIN_TABLE;
    private final FlowKey probe = new FlowKey();
    /** How long a flow neither closed nor one-sided is kept while quiet. */
    private final long longQuietUs;
    /** Flows kept at most after each look for forgettable ones (up to four times as many between looks, per address family). */
    private final int maxFlows;
    private final V4Flows v4Flows;
    private Flow lastFlow;
    /** Events made so far: the capture index of the next one. */
    private long captured;

    public PcapEvents(String sensor, SensorRole role, int communityIdSeed) {
        this(sensor, role, communityIdSeed, Duration.ZERO, Integer.MAX_VALUE);
    }

    /**
     * @param idleTimeout how long the life cycle fed by these events holds a quiet connection: its flow is kept as long at least
     * @param maxFlows    flows kept at most, 1 or more (the connections the life cycle holds at most): beyond, those first seen last are forgotten
     */
    public PcapEvents(String sensor, SensorRole role, int communityIdSeed, Duration idleTimeout, int maxFlows) {
        this.sensor = sensor;
        this.role = role;
        this.communityIdSeed = communityIdSeed;
        this.longQuietUs = Math.max(LONG_QUIET_US, idleTimeout.toNanos() / 1000);
        if (maxFlows < 1) {
            throw new IllegalArgumentException("flows kept at most must be 1 or more, not " + maxFlows);
        }
        this.maxFlows = maxFlows;
        this.v4Flows = new V4Flows();
    }

    /** Streams every TCP packet of the file to the sink; returns what the reader counted. */
    public PcapReader.Stats stream(Path file, Consumer<PacketEvent> sink) throws IOException, PcapFormatException {
        try (PcapReader reader = PcapReader.open(file)) {
            RawPacket p = new RawPacket();
            while (reader.next(p)) {
                sink.accept(toEvent(p));
            }
            return reader.stats();
        }
    }

    /** Convenience for tests and small files. */
    public static List<PacketEvent> readAll(Path file, String sensor, SensorRole role) throws IOException, PcapFormatException {
        List<PacketEvent> out = new ArrayList<>();
        new PcapEvents(sensor, role, 0).stream(file, out::add);
        return out;
    }

    /** The event for one decoded packet (p may be reused afterwards). */
    public PacketEvent toEvent(RawPacket p) {
        Flow f;
        boolean fromA;
        if (p.ipVersion == 4) {
            long src = v4Endpoint(p.src, p.srcPort);
            long dst = v4Endpoint(p.dst, p.dstPort);
            f = v4FlowOf(p, Math.min(src, dst), Math.max(src, dst));
            fromA = src == f.v4A;
        } else {
            f = flowOf(p);
            fromA = f.isSideA(p);
        }
        boolean pureSyn = TcpFlags.has(p.flags, TcpFlags.SYN) && !TcpFlags.has(p.flags, TcpFlags.ACK);
        if (pureSyn && fromA != f.origIsA) {
            f.origIsA = fromA; // a new connection reusing the tuple in the other direction
        }
        boolean isOrig = fromA == f.origIsA;
        f.saw(p, fromA, pureSyn);
        long[] sack = p.sackCount == 0 ? null : Arrays.copyOf(p.sack, p.sackCount);
        return new PacketEvent(sensor, role, p.tsUs, f.communityId,
                f.origIsA ? f.aText : f.bText, f.origIsA ? f.aPort : f.bPort,
                f.origIsA ? f.bText : f.aText, f.origIsA ? f.bPort : f.aPort,
                isOrig, p.flags, p.seq, p.ack, p.payloadLen, p.win,
                p.wscale, p.mss, p.sackOk ? Boolean.TRUE : null, sack,
                p.tsval, p.tsecr, p.ipId, p.ttl, captured++);
    }

    /**
     * An IPv4 address and port as one number whose order is {@link #compare}'s (the address as an
     * unsigned big-endian number, then the port): a flow's two endpoints as two numbers, without
     * byte-array comparisons per packet.
     */
    private static long v4Endpoint(byte[] addr, int port) {
        long a = (addr[0] & 0xffL) << 24 | (addr[1] & 0xff) << 16 | (addr[2] & 0xff) << 8 | (addr[3] & 0xff);
        return a << 16 | port;
    }

    /** @param a the lower endpoint ({@link #v4Endpoint}), b the higher */
    private Flow v4FlowOf(RawPacket p, long a, long b) {
        Flow f = lastFlow;
        if (f != null && f.v4A == a && f.v4B == b && f.a.length == 4) {
            return f;
        }
        f = v4Flows.get(a, b);
        if (f == null) {
            f = new Flow(p, communityIdSeed);
            v4Flows.put(a, b, f, p.tsUs);
        }
        lastFlow = f;
        return f;
    }

    private Flow flowOf(RawPacket p) {
        if (lastFlow != null && lastFlow.matches(p)) {
            return lastFlow;
        }
        probe.set(p);
        Flow f = flows.get(probe);
        if (f == null) {
            if (flows.size() >= v6SweepAt) {
                long firstSeenBy = keptFirstSeenBy(flows.values(), flows.size(), p.tsUs);
                flows.values().removeIf(known -> !known.kept(p.tsUs, longQuietUs, firstSeenBy));
                v6SweepAt = Math.max(MIN_TABLE, 2 * flows.size());
            }
            f = new Flow(p, communityIdSeed);
            flows.put(probe.copy(), f);
        }
        lastFlow = f;
        return f;
    }

    /** Endpoint pair in canonical order (the smaller address/port first), so both directions share a key. */
    private static final class FlowKey {
        byte[] a = new byte[16];
        byte[] b = new byte[16];
        int aPort;
        int bPort;
        int len;

        void set(RawPacket p) {
            len = p.addrLen();
            boolean srcFirst = compare(p.src, p.srcPort, p.dst, p.dstPort, len) <= 0;
            System.arraycopy(srcFirst ? p.src : p.dst, 0, a, 0, len);
            System.arraycopy(srcFirst ? p.dst : p.src, 0, b, 0, len);
            aPort = srcFirst ? p.srcPort : p.dstPort;
            bPort = srcFirst ? p.dstPort : p.srcPort;
        }

        FlowKey copy() {
            FlowKey k = new FlowKey();
            k.a = a.clone();
            k.b = b.clone();
            k.aPort = aPort;
            k.bPort = bPort;
            k.len = len;
            return k;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof FlowKey k && k.len == len && k.aPort == aPort && k.bPort == bPort
                    && Arrays.equals(a, 0, len, k.a, 0, len) && Arrays.equals(b, 0, len, k.b, 0, len);
        }

        @Override
        public int hashCode() {
            int h = aPort * 31 + bPort;
            for (int i = 0; i < len; i++) {
                h = h * 31 + a[i] + 7 * b[i];
            }
            return h;
        }
    }

    static int compare(byte[] x, int xPort, byte[] y, int yPort, int len) {
        int c = Arrays.compareUnsigned(x, 0, len, y, 0, len);
        return c != 0 ? c : Integer.compare(xPort, yPort);
    }

    /**
     * The flows first seen by this are kept, of those not forgettable: Long.MAX_VALUE while they
     * are within {@link #maxFlows}, else the time that keeps the first maxFlows (ties a few more),
     * as the life cycle, full, keeps the connections it took first and refuses new ones.
     *
     * @param held how many flows {@code table} holds
     */
    private long keptFirstSeenBy(Iterable<Flow> table, int held, long nowUs) {
        if (held <= maxFlows) {
            return Long.MAX_VALUE;
        }
        long[] firstUs = new long[held];
        int n = 0;
        for (Flow f : table) {
            if (f != null && !f.forgettable(nowUs, longQuietUs)) {
                firstUs[n++] = f.firstUs;
            }
        }
        if (n <= maxFlows) {
            return Long.MAX_VALUE;
        }
        Arrays.sort(firstUs, 0, n);
        return firstUs[maxFlows - 1];
    }

    /** Flows held: IPv4 and IPv6. */
    int flowsHeld() {
        return v4Flows.size + flows.size();
    }

    /**
     * IPv4 flows by their two endpoints ({@link #v4Endpoint}), open addressing with linear probing.
     * When it is half full the flows that can be forgotten are, and it is sized anew for the rest:
     * a quarter full at most, so the next look comes after as many new flows again.
     */
    private final class V4Flows {
        private long[] as = new long[MIN_TABLE];
        private long[] bs = new long[MIN_TABLE];
        private Flow[] flows = new Flow[MIN_TABLE];
        private int size;

        Flow get(long a, long b) {
            int mask = flows.length - 1;
            for (int i = slot(a, b, mask); flows[i] != null; i = (i + 1) & mask) {
                if (as[i] == a && bs[i] == b) {
                    return flows[i];
                }
            }
            return null;
        }

        /** Adds a flow that {@link #get} did not find, at capture time nowUs. */
        void put(long a, long b, Flow f, long nowUs) {
            if (2 * (size + 1) > flows.length) {
                resize(nowUs);
            }
            insert(a, b, f);
        }

        private void insert(long a, long b, Flow f) {
            int mask = flows.length - 1;
            int i = slot(a, b, mask);
            while (flows[i] != null) {
                i = (i + 1) & mask;
            }
            as[i] = a;
            bs[i] = b;
            flows[i] = f;
            size++;
        }

        private void resize(long nowUs) {
            long firstSeenBy = keptFirstSeenBy(Arrays.asList(flows), size, nowUs);
            int kept = 0;
            for (Flow f : flows) {
                kept += f != null && f.kept(nowUs, longQuietUs, firstSeenBy) ? 1 : 0;
            }
            long[] oldAs = as;
            long[] oldBs = bs;
            Flow[] old = flows;
            int capacity = Math.max(MIN_TABLE, Integer.highestOneBit(Math.max(1, 4 * (kept + 1) - 1)) << 1);
            as = new long[capacity];
            bs = new long[capacity];
            flows = new Flow[capacity];
            size = 0;
            for (int i = 0; i < old.length; i++) {
                if (old[i] != null && old[i].kept(nowUs, longQuietUs, firstSeenBy)) {
                    insert(oldAs[i], oldBs[i], old[i]);
                }
            }
        }

        private static int slot(long a, long b, int mask) {
            long h = (a * 0x9E3779B97F4A7C15L) ^ (b * 0xC2B2AE3D27D4EB4FL);
            return (int) (h ^ (h >>> 29)) & mask;
        }
    }

    /** One endpoint pair with its orientation and precomputed names. */
    private static final class Flow {
        final byte[] a;
        final byte[] b;
        final int aPort;
        final int bPort;
        final String aText;
        final String bText;
        final String communityId;
        /** For IPv4: the endpoints as {@link #v4Endpoint} numbers; unused for IPv6. */
        final long v4A;
        final long v4B;
        boolean origIsA;
        /** What its packets so far were ({@link #SENT_A}...), and when the latest came. */
        private int seen;
        private long lastUs;
        private final long firstUs;

        private static final int SENT_A = 1;
        private static final int SENT_B = 2;
        private static final int FIN_A = 4;
        private static final int FIN_B = 8;
        private static final int RST = 16;
        private static final int NOT_SYN = 32;
        /** A packet other than a SYN or SYN/ACK, or with payload. */
        private static final int BEYOND_HANDSHAKE = 64;

        Flow(RawPacket p, int seed) {
            int len = p.addrLen();
            boolean srcFirst = compare(p.src, p.srcPort, p.dst, p.dstPort, len) <= 0;
            a = Arrays.copyOf(srcFirst ? p.src : p.dst, len);
            b = Arrays.copyOf(srcFirst ? p.dst : p.src, len);
            aPort = srcFirst ? p.srcPort : p.dstPort;
            bPort = srcFirst ? p.dstPort : p.srcPort;
            aText = IpText.format(a);
            bText = IpText.format(b);
            communityId = CommunityId.tcpV1(a, aPort, b, bPort, seed);
            v4A = len == 4 ? v4Endpoint(a, aPort) : 0;
            v4B = len == 4 ? v4Endpoint(b, bPort) : 0;
            boolean fromA = srcFirst;
            origIsA = fromA == senderIsOriginator(p);
            firstUs = p.tsUs;
        }

        void saw(RawPacket p, boolean fromA, boolean pureSyn) {
            int flags = p.flags;
            if (pureSyn) {
                seen = 0; // a connection (re)starts: what an earlier one on the port pair did is no longer its
            }
            seen |= (fromA ? SENT_A : SENT_B) | (TcpFlags.has(flags, TcpFlags.FIN) ? fromA ? FIN_A : FIN_B : 0)
                    | (TcpFlags.has(flags, TcpFlags.RST) ? RST : 0) | (pureSyn ? 0 : NOT_SYN)
                    | (TcpFlags.has(flags, TcpFlags.SYN) && p.payloadLen == 0 ? 0 : BEYOND_HANDSHAKE);
            lastUs = Math.max(lastUs, p.tsUs);
        }

        /** Not forgettable, and first seen by firstSeenBy (see {@link #keptFirstSeenBy}). */
        boolean kept(long nowUs, long longQuietUs, long firstSeenBy) {
            return !forgettable(nowUs, longQuietUs) && firstUs <= firstSeenBy;
        }

        /** Nothing kept that the flow's next packet would not give again (see the class comment). */
        boolean forgettable(long nowUs, long longQuietUs) {
            if ((seen & NOT_SYN) == 0) {
                return true;
            }
            if ((seen & BEYOND_HANDSHAKE) == 0) {
                return nowUs - lastUs > HANDSHAKE_QUIET_US;
            }
            boolean closed = (seen & RST) != 0 || (seen & (FIN_A | FIN_B)) == (FIN_A | FIN_B);
            boolean oneSided = (seen & (SENT_A | SENT_B)) != (SENT_A | SENT_B);
            return nowUs - lastUs > (closed || oneSided ? BRIEF_QUIET_US : longQuietUs);
        }

        /** First packet of a flow: SYN's sender, SYN/ACK's receiver, else the client of the service port. */
        private static boolean senderIsOriginator(RawPacket p) {
            if (TcpFlags.has(p.flags, TcpFlags.SYN)) {
                return !TcpFlags.has(p.flags, TcpFlags.ACK);
            }
            return !looksLikeServicePort(p.srcPort, p.dstPort);
        }

        /** True when port looks like the service side compared with the other one. */
        private static boolean looksLikeServicePort(int port, int other) {
            boolean wellKnown = port < 1024 && other >= 1024;
            boolean lowerAndOtherEphemeral = port < other && other >= 32768;
            return wellKnown || lowerAndOtherEphemeral;
        }

        boolean isSideA(RawPacket p) {
            int len = a.length;
            return p.srcPort == aPort && Arrays.equals(p.src, 0, len, a, 0, len)
                    && (p.srcPort != bPort || !Arrays.equals(p.src, 0, len, b, 0, len) || p.dstPort == bPort);
        }

        boolean matches(RawPacket p) {
            int len = a.length;
            if (p.addrLen() != len) {
                return false;
            }
            return (p.srcPort == aPort && p.dstPort == bPort && Arrays.equals(p.src, 0, len, a, 0, len) && Arrays.equals(p.dst, 0, len, b, 0, len))
                    || (p.srcPort == bPort && p.dstPort == aPort && Arrays.equals(p.src, 0, len, b, 0, len) && Arrays.equals(p.dst, 0, len, a, 0, len));
        }
    }
}
