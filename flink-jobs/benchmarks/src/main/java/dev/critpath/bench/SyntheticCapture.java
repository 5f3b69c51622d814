package dev.critpath.bench;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

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
        List<Frame> ordered = new ArrayList<>(frames);
        ordered.sort(java.util.Comparator.comparingLong(Frame::tsUs));
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
            ByteBuffer h = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
            h.putInt(0xa1b2c3d4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(65535).putInt(1);
            o.write(h.array());
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

    /**
     * A SYN flood: {@code syns} SYNs from as many client addresses and ports to one server port,
     * 10 µs apart, none answered. Classic pcap, Ethernet/IPv4.
     */
    static void writeSynFlood(Path out, int syns) throws IOException {
        try (OutputStream o = new BufferedOutputStream(Files.newOutputStream(out), 1 << 20)) {
            ByteBuffer h = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
            h.putInt(0xa1b2c3d4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(65535).putInt(1);
            o.write(h.array());
            ByteBuffer rec = ByteBuffer.allocate(16 + 58).order(ByteOrder.LITTLE_ENDIAN);
            long t0 = 1_700_000_000_000_000L;
            for (int i = 0; i < syns; i++) {
                long ts = t0 + 10L * i;
                rec.clear();
                rec.putInt((int) (ts / 1_000_000)).putInt((int) (ts % 1_000_000)).putInt(58).putInt(58);
                ByteBuffer f = rec.slice(16, 58).order(ByteOrder.BIG_ENDIAN);
                f.put(new byte[] {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1}).putShort((short) 0x0800);
                // IPv4: 20 bytes, TCP: 24 bytes with an MSS option
                f.put((byte) 0x45).put((byte) 0).putShort((short) 44).putShort((short) i).putShort((short) 0x4000)
                        .put((byte) 64).put((byte) 6).putShort((short) 0)
                        .put((byte) 10).put((byte) (128 + (i >>> 16 & 0x3f))).put((byte) (i >>> 8)).put((byte) i)
                        .put((byte) 10).put((byte) 1).put((byte) 0).put((byte) 1);
                f.putShort((short) (1024 + i % 60_000)).putShort((short) 80).putInt(i * 7919).putInt(0)
                        .put((byte) 0x60).put((byte) 0x02).putShort((short) 64_240).putShort((short) 0).putShort((short) 0)
                        .put((byte) 2).put((byte) 4).putShort((short) 1460);
                byte[] frame = new byte[58];
                f.get(0, frame);
                ipChecksum(frame);
                rec.put(16, frame);
                o.write(rec.array(), 0, 16 + 58);
            }
        }
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
