package dev.critpath.bench;

import dev.critpath.core.event.IpText;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * A large capture made of many copies of small real ones: each copy moves every frame later by the
 * originals' whole span and gives the client (the originals' client address) an address of its
 * own, so each copy's connections are new connections. For benchmarks; classic pcap, Ethernet/IPv4.
 */
final class SyntheticCapture {
    private record Frame(long tsUs, byte[] data) {
    }

    private final List<Frame> frames = new ArrayList<>();
    private final byte[] client;
    private long firstUs = Long.MAX_VALUE;
    private long lastUs = Long.MIN_VALUE;

    /** @param client the originals' client address (IPv4), rewritten per copy */
    SyntheticCapture(byte[] client) {
        this.client = client.clone();
    }

    /** The server-side captures of the lab runs under {@code fixtures}, to be copied; their client is 10.71.1.2. */
    static SyntheticCapture ofLabServerSides(Path fixtures) throws IOException {
        SyntheticCapture capture = new SyntheticCapture(IpText.parse("10.71.1.2"));
        try (Stream<Path> s = Files.list(fixtures)) {
            for (Path run : s.filter(d -> Files.isRegularFile(d.resolve("server.pcap"))).sorted().toList()) {
                capture.addOriginal(run.resolve("server.pcap"));
            }
        }
        return capture;
    }

    /** Adds the frames of one classic little-endian microsecond pcap with Ethernet frames. */
    void addOriginal(Path pcap) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(pcap)).order(ByteOrder.LITTLE_ENDIAN);
        if (b.remaining() < 24 || b.getInt(0) != 0xa1b2c3d4 || b.getInt(20) != 1) {
            throw new IOException(pcap + ": only classic microsecond pcap with Ethernet frames can be copied");
        }
        b.position(24);
        while (b.remaining() >= 16) {
            long ts = (b.getInt() & 0xffffffffL) * 1_000_000L + (b.getInt() & 0xffffffffL);
            int caplen = b.getInt();
            b.getInt(); // original length
            byte[] data = new byte[caplen];
            b.get(data);
            frames.add(new Frame(ts, data));
            firstUs = Math.min(firstUs, ts);
            lastUs = Math.max(lastUs, ts);
        }
    }

    int framesPerCopy() {
        return frames.size();
    }

    /** The originals' span plus a second: copies this far apart do not overlap. */
    long periodUs() {
        return lastUs - firstUs + 1_000_000;
    }

    /**
     * Writes {@code blocks} blocks of {@code copies} copies, in time order as a capture is: within
     * a block, copy k starts k × {@code spacingUs} after the first (a spacing below the
     * originals' span makes the copies overlap); each block starts after the one before has ended,
     * so more blocks make a longer capture with the same number of connections open at a time.
     */
    void write(Path out, int copies, long spacingUs, int blocks) throws IOException {
        List<Frame> ordered = inTimeOrder();
        long blockPeriod = (copies - 1) * spacingUs + periodUs();
        int total = copies * blocks;
        long[] shift = new long[total];
        for (int i = 0; i < total; i++) {
            shift[i] = (i / copies) * blockPeriod + (i % copies) * spacingUs;
        }
        // each copy's next frame, earliest first: the copies' frames merged in time order
        java.util.PriorityQueue<int[]> next = new java.util.PriorityQueue<>(
                java.util.Comparator.comparingLong((int[] c) -> ordered.get(c[1]).tsUs() + shift[c[0]]).thenComparingInt(c -> c[0]));
        for (int i = 0; i < total; i++) {
            next.add(new int[] {i, 0});
        }
        try (OutputStream o = new BufferedOutputStream(Files.newOutputStream(out), 1 << 20)) {
            writeClassicHeader(o);
            ByteBuffer rec = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
            while (!next.isEmpty()) {
                int[] c = next.poll();
                int k = c[0];
                Frame f = ordered.get(c[1]);
                long ts = f.tsUs() + shift[k];
                byte[] d = f.data().clone();
                readdress(d, new byte[] {10, (byte) (64 + k / 65536), (byte) (k / 256), (byte) k});
                rec.clear();
                rec.putInt((int) (ts / 1_000_000)).putInt((int) (ts % 1_000_000)).putInt(d.length).putInt(d.length);
                o.write(rec.array());
                o.write(d);
                if (++c[1] < ordered.size()) {
                    next.add(c);
                }
            }
        }
    }

    /** The originals' frames as one classic pcap, in time order, each with an 802.1Q VLAN tag when {@code vlan}. */
    void writeOriginals(Path out, boolean vlan) throws IOException {
        try (OutputStream o = new BufferedOutputStream(Files.newOutputStream(out), 1 << 20)) {
            writeClassicHeader(o);
            for (Frame f : inTimeOrder()) {
                byte[] d = vlan ? vlanTagged(f.data()) : f.data();
                writeRecord(o, f.tsUs(), d);
            }
        }
    }

    /**
     * The originals' frames as pcapng with two Ethernet interfaces, frames alternating between
     * them: the first stamps in microseconds (the default), the second in nanoseconds (if_tsresol 9).
     */
    void writePcapngTwoInterfaces(Path out) throws IOException {
        try (OutputStream o = new BufferedOutputStream(Files.newOutputStream(out), 1 << 20)) {
            o.write(block(0x0A0D0D0A, ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN)
                    .putInt(0x1A2B3C4D).putShort((short) 1).putShort((short) 0).putLong(-1).array()));
            o.write(block(1, ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putShort((short) 1).putShort((short) 0).putInt(65535).array()));
            o.write(block(1, ByteBuffer.allocate(20).order(ByteOrder.LITTLE_ENDIAN).putShort((short) 1).putShort((short) 0).putInt(65535)
                    .putShort((short) 9).putShort((short) 1).put((byte) 9).put(new byte[3]).putInt(0).array()));
            int i = 0;
            for (Frame f : inTimeOrder()) {
                int iface = i++ % 2;
                long ts = iface == 0 ? f.tsUs() : f.tsUs() * 1000;
                byte[] d = f.data();
                ByteBuffer epb = ByteBuffer.allocate(20 + (d.length + 3 & ~3)).order(ByteOrder.LITTLE_ENDIAN);
                epb.putInt(iface).putInt((int) (ts >>> 32)).putInt((int) ts).putInt(d.length).putInt(d.length).put(d);
                o.write(block(6, epb.array()));
            }
        }
    }

    /**
     * The originals' frames as one classic pcap, each TCP segment captured whole with data beyond
     * its header sent as two IPv4 fragments (the first holding the TCP header) under the segment's
     * timestamp. Frames captured headers only stay as they are.
     */
    void writeFragmented(Path out) throws IOException {
        try (OutputStream o = new BufferedOutputStream(Files.newOutputStream(out), 1 << 20)) {
            writeClassicHeader(o);
            for (Frame f : inTimeOrder()) {
                for (byte[] d : fragments(f.data())) {
                    writeRecord(o, f.tsUs(), d);
                }
            }
        }
    }

    /** The header of a classic little-endian microsecond pcap of Ethernet frames. */
    private static void writeClassicHeader(OutputStream o) throws IOException {
        o.write(ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN)
                .putInt(0xa1b2c3d4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(65535).putInt(1).array());
    }

    private static void writeRecord(OutputStream o, long tsUs, byte[] frame) throws IOException {
        o.write(ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putInt((int) (tsUs / 1_000_000)).putInt((int) (tsUs % 1_000_000))
                .putInt(frame.length).putInt(frame.length).array());
        o.write(frame);
    }

    private List<Frame> inTimeOrder() {
        List<Frame> ordered = new ArrayList<>(frames);
        ordered.sort(java.util.Comparator.comparingLong(Frame::tsUs));
        return ordered;
    }

    private static byte[] vlanTagged(byte[] d) {
        byte[] t = new byte[d.length + 4];
        System.arraycopy(d, 0, t, 0, 12);
        t[12] = (byte) 0x81; // TPID 0x8100, VLAN 42
        t[15] = 42;
        System.arraycopy(d, 12, t, 16, d.length - 12);
        return t;
    }

    /** An Ethernet/IPv4/TCP frame split after its TCP header into two IP fragments; any other frame as it is. */
    private static List<byte[]> fragments(byte[] d) {
        if (d.length < 54 || d[12] != 0x08 || d[13] != 0x00 || d[23] != 6) {
            return List.of(d);
        }
        int ihl = (d[14] & 0x0f) * 4;
        int ipLen = ((d[16] & 0xff) << 8) | (d[17] & 0xff);
        int tcpHeader = ((d[14 + ihl + 12] & 0xf0) >>> 4) * 4;
        int split = (tcpHeader + 7) & ~7; // fragment offsets count 8-byte units
        if (14 + ipLen != d.length || ihl + split >= ipLen) {
            return List.of(d);
        }
        byte[] first = new byte[14 + ihl + split];
        System.arraycopy(d, 0, first, 0, first.length);
        byte[] second = new byte[d.length - split];
        System.arraycopy(d, 0, second, 0, 14 + ihl);
        System.arraycopy(d, 14 + ihl + split, second, 14 + ihl, ipLen - ihl - split);
        ipHeader(first, ihl + split, 0x2000); // more fragments, offset 0
        ipHeader(second, ipLen - split, split / 8);
        return List.of(first, second);
    }

    private static void ipHeader(byte[] d, int totalLength, int flagsAndOffset) {
        d[16] = (byte) (totalLength >>> 8);
        d[17] = (byte) totalLength;
        d[20] = (byte) (flagsAndOffset >>> 8);
        d[21] = (byte) flagsAndOffset;
        ipChecksum(d);
    }

    /** A pcapng block: type, length, body, length again (little-endian). */
    private static byte[] block(int type, byte[] body) {
        return ByteBuffer.allocate(12 + body.length).order(ByteOrder.LITTLE_ENDIAN)
                .putInt(type).putInt(12 + body.length).put(body).putInt(12 + body.length).array();
    }

    /** How far each connection of a flood gets. */
    enum Handshake {
        /** A SYN, unanswered. */
        SYN,
        /** A SYN and the server's SYN/ACK (a server answering with SYN cookies), nothing more. */
        ANSWERED,
        /** SYN, SYN/ACK and the client's ACK, then nothing: connections opened and left open. */
        COMPLETED
    }

    /**
     * A flood: {@code syns} connections from as many client addresses and ports to one server
     * port, 10 µs apart, each taken as far as {@code handshake} says. Classic pcap, Ethernet/IPv4.
     */
    static void writeFlood(Path out, int syns, Handshake handshake) throws IOException {
        byte[] server = {10, 1, 0, 1};
        try (OutputStream o = new BufferedOutputStream(Files.newOutputStream(out), 1 << 20)) {
            writeClassicHeader(o);
            long t0 = 1_700_000_000_000_000L;
            for (int i = 0; i < syns; i++) {
                long ts = t0 + 10L * i;
                byte[] client = {10, (byte) (128 + (i >>> 16 & 0x3f)), (byte) (i >>> 8), (byte) i};
                int port = 1024 + i % 60_000;
                int isn = i * 7919;
                writeHandshakeFrame(o, ts, i, client, port, server, 80, isn, 0, 0x02);
                if (handshake != Handshake.SYN) {
                    writeHandshakeFrame(o, ts + 3, i, server, 80, client, port, i * 31, isn + 1, 0x12);
                }
                if (handshake == Handshake.COMPLETED) {
                    writeHandshakeFrame(o, ts + 6, i + 1, client, port, server, 80, isn + 1, i * 31 + 1, 0x10);
                }
            }
        }
    }

    /** One record: an Ethernet/IPv4/TCP frame of 58 bytes, its TCP header with an MSS option. */
    private static void writeHandshakeFrame(OutputStream o, long ts, int ipId, byte[] src, int srcPort, byte[] dst, int dstPort, int seq, int ack,
            int flags) throws IOException {
        ByteBuffer rec = ByteBuffer.allocate(16 + 58).order(ByteOrder.LITTLE_ENDIAN);
        rec.putInt((int) (ts / 1_000_000)).putInt((int) (ts % 1_000_000)).putInt(58).putInt(58);
        ByteBuffer f = rec.slice(16, 58).order(ByteOrder.BIG_ENDIAN);
        f.put(new byte[] {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1}).putShort((short) 0x0800);
        f.put((byte) 0x45).put((byte) 0).putShort((short) 44).putShort((short) ipId).putShort((short) 0x4000)
                .put((byte) 64).put((byte) 6).putShort((short) 0).put(src).put(dst);
        f.putShort((short) srcPort).putShort((short) dstPort).putInt(seq).putInt(ack)
                .put((byte) 0x60).put((byte) flags).putShort((short) 64_240).putShort((short) 0).putShort((short) 0)
                .put((byte) 2).put((byte) 4).putShort((short) 1460);
        byte[] frame = new byte[58];
        f.get(0, frame);
        ipChecksum(frame);
        rec.put(16, frame);
        o.write(rec.array());
    }

    /** Replaces the client's address in an Ethernet/IPv4 frame and fixes the IP header checksum. */
    private void readdress(byte[] d, byte[] to) {
        if (d.length < 34 || d[12] != 0x08 || d[13] != 0x00) {
            return;
        }
        for (int at : new int[] {26, 30}) {
            if (d[at] == client[0] && d[at + 1] == client[1] && d[at + 2] == client[2] && d[at + 3] == client[3]) {
                System.arraycopy(to, 0, d, at, 4);
            }
        }
        ipChecksum(d);
    }

    /** Sets the IPv4 header checksum of an Ethernet frame. */
    private static void ipChecksum(byte[] d) {
        int ihl = (d[14] & 0x0f) * 4;
        d[24] = 0;
        d[25] = 0;
        int sum = 0;
        for (int i = 14; i < 14 + ihl && i + 1 < d.length; i += 2) {
            sum += ((d[i] & 0xff) << 8) | (d[i + 1] & 0xff);
        }
        while ((sum >> 16) != 0) {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        d[24] = (byte) (~sum >> 8);
        d[25] = (byte) ~sum;
    }
}
