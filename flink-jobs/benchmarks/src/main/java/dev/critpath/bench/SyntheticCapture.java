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

    /** Writes {@code copies} copies, one after another in time. */
    void write(Path out, int copies) throws IOException {
        long period = lastUs - firstUs + 1_000_000;
        List<Frame> ordered = new ArrayList<>(frames);
        ordered.sort(java.util.Comparator.comparingLong(Frame::tsUs));
        try (OutputStream o = new BufferedOutputStream(Files.newOutputStream(out), 1 << 20)) {
            ByteBuffer h = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
            h.putInt(0xa1b2c3d4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(65535).putInt(1);
            o.write(h.array());
            ByteBuffer rec = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
            for (int k = 0; k < copies; k++) {
                byte[] copyClient = {10, (byte) (64 + k / 65536), (byte) (k / 256), (byte) k};
                for (Frame f : ordered) {
                    long ts = f.tsUs() + k * period;
                    byte[] d = f.data().clone();
                    readdress(d, copyClient);
                    rec.clear();
                    rec.putInt((int) (ts / 1_000_000)).putInt((int) (ts % 1_000_000)).putInt(d.length).putInt(d.length);
                    o.write(rec.array());
                    o.write(d);
                }
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
