package dev.critpath.core.testing;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/** Builds tiny pcap/pcapng files packet by packet, for reader edge cases. */
public final class PcapBuilder {
    private PcapBuilder() {
    }

    /** An IPv4/TCP packet without link header. */
    public static byte[] ipv4Tcp(String src, int sport, String dst, int dport, long seq, long ack, int flags,
                                 int win, int payload, int ipId, int ttl, byte[] options) {
        int optLen = options.length;
        int tcpLen = 20 + optLen;
        ByteBuffer b = ByteBuffer.allocate(20 + tcpLen + payload).order(ByteOrder.BIG_ENDIAN);
        b.put((byte) 0x45).put((byte) 0).putShort((short) (20 + tcpLen + payload)).putShort((short) ipId)
                .putShort((short) 0x4000).put((byte) ttl).put((byte) 6).putShort((short) 0);
        b.put(v4(src)).put(v4(dst));
        tcp(b, sport, dport, seq, ack, flags, win, options);
        return b.array();
    }

    /** An IPv6/TCP packet, optionally behind a hop-by-hop and a destination-options header. */
    public static byte[] ipv6Tcp(byte[] src, byte[] dst, int sport, int dport, long seq, int flags, int payload, boolean extensionHeaders) {
        int ext = extensionHeaders ? 16 : 0;
        ByteBuffer b = ByteBuffer.allocate(40 + ext + 20 + payload).order(ByteOrder.BIG_ENDIAN);
        b.putInt(0x60000000).putShort((short) (ext + 20 + payload)).put((byte) (extensionHeaders ? 0 : 6)).put((byte) 61);
        b.put(src).put(dst);
        if (extensionHeaders) {
            b.put((byte) 60).put((byte) 0).put(new byte[6]); // hop-by-hop -> destination options
            b.put((byte) 6).put((byte) 0).put(new byte[6]);  // destination options -> TCP
        }
        tcp(b, sport, dport, seq, 0, flags, 1000, new byte[0]);
        return b.array();
    }

    private static void tcp(ByteBuffer b, int sport, int dport, long seq, long ack, int flags, int win, byte[] options) {
        b.putShort((short) sport).putShort((short) dport).putInt((int) seq).putInt((int) ack)
                .put((byte) (((20 + options.length) / 4) << 4)).put((byte) flags).putShort((short) win)
                .putShort((short) 0).putShort((short) 0).put(options);
    }

    /** An IPv4 packet cut into fragments of at most {@code pieceSize} payload bytes (a multiple of 8), in order. */
    public static List<byte[]> ipv4Fragments(byte[] packet, int pieceSize) {
        List<byte[]> pieces = new ArrayList<>();
        int payload = packet.length - 20;
        for (int off = 0; off < payload; off += pieceSize) {
            int len = Math.min(pieceSize, payload - off);
            ByteBuffer b = ByteBuffer.allocate(20 + len).order(ByteOrder.BIG_ENDIAN);
            b.put(packet, 0, 20).put(packet, 20 + off, len);
            b.putShort(2, (short) (20 + len)).putShort(6, (short) ((off + len < payload ? 0x2000 : 0) | off / 8));
            pieces.add(b.array());
        }
        return pieces;
    }

    /** An IPv6 packet without extension headers cut into fragments of at most {@code pieceSize} payload bytes, in order. */
    public static List<byte[]> ipv6Fragments(byte[] packet, int pieceSize, int id) {
        List<byte[]> pieces = new ArrayList<>();
        int payload = packet.length - 40;
        for (int off = 0; off < payload; off += pieceSize) {
            int len = Math.min(pieceSize, payload - off);
            ByteBuffer b = ByteBuffer.allocate(48 + len).order(ByteOrder.BIG_ENDIAN);
            b.put(packet, 0, 40).put(packet[6]).put((byte) 0).putShort((short) (off | (off + len < payload ? 1 : 0))).putInt(id)
                    .put(packet, 40 + off, len);
            b.putShort(4, (short) (8 + len)).put(6, (byte) 44);
            pieces.add(b.array());
        }
        return pieces;
    }

    public static byte[] ethernet(byte[] ip, int... vlans) {
        ByteBuffer b = ByteBuffer.allocate(14 + 4 * vlans.length + ip.length);
        b.put(new byte[12]);
        for (int v : vlans) {
            b.putShort((short) 0x8100).putShort((short) v);
        }
        b.putShort((short) ((ip[0] & 0xf0) == 0x60 ? 0x86dd : 0x0800)).put(ip);
        return b.array();
    }

    public static byte[] sll2(byte[] ip) {
        ByteBuffer b = ByteBuffer.allocate(20 + ip.length);
        b.putShort((short) ((ip[0] & 0xf0) == 0x60 ? 0x86dd : 0x0800)).put(new byte[18]).put(ip);
        return b.array();
    }

    static byte[] v4(String s) {
        String[] p = s.split("\\.");
        return new byte[] {(byte) Integer.parseInt(p[0]), (byte) Integer.parseInt(p[1]), (byte) Integer.parseInt(p[2]), (byte) Integer.parseInt(p[3])};
    }

    /** Classic pcap in either byte order and timestamp precision. */
    public static final class Pcap {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();
        private final ByteOrder order;
        private final boolean nanos;

        public Pcap(int linkType, ByteOrder order, boolean nanos, int snaplen) {
            this.order = order;
            this.nanos = nanos;
            ByteBuffer h = ByteBuffer.allocate(24).order(order);
            h.putInt(nanos ? 0xa1b23c4d : 0xa1b2c3d4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0)
                    .putInt(snaplen).putInt(linkType);
            out.writeBytes(h.array());
        }

        /** Adds a record, cutting the frame to caplen bytes while recording its full length. */
        public Pcap add(long tsUs, byte[] frame, int caplen) {
            return add(tsUs, frame, caplen, frame.length);
        }

        /** Adds a record with any original length in its header, true or not. */
        public Pcap add(long tsUs, byte[] frame, int caplen, int origLen) {
            ByteBuffer h = ByteBuffer.allocate(16).order(order);
            h.putInt((int) (tsUs / 1_000_000)).putInt((int) (nanos ? (tsUs % 1_000_000) * 1000 : tsUs % 1_000_000))
                    .putInt(caplen).putInt(origLen);
            out.writeBytes(h.array());
            out.write(frame, 0, caplen);
            return this;
        }

        public Pcap add(long tsUs, byte[] frame) {
            return add(tsUs, frame, frame.length);
        }

        public byte[] bytes() {
            return out.toByteArray();
        }
    }

    /** pcapng with one section, interfaces with a chosen timestamp resolution. */
    public static final class PcapNg {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        public PcapNg() {
            ByteBuffer b = ByteBuffer.allocate(28).order(ByteOrder.LITTLE_ENDIAN);
            b.putInt(0x0A0D0D0A).putInt(28).putInt(0x1A2B3C4D).putShort((short) 1).putShort((short) 0).putLong(-1).putInt(28);
            out.writeBytes(b.array());
        }

        /** tsresol byte as in the if_tsresol option (6 = µs, 9 = ns, 0x80|n = 2^-n). */
        public PcapNg iface(int linkType, int tsresol) {
            ByteBuffer b = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
            b.putInt(1).putInt(32).putShort((short) linkType).putShort((short) 0).putInt(65535)
                    .putShort((short) 9).putShort((short) 1).put((byte) tsresol).put(new byte[3])
                    .putShort((short) 0).putShort((short) 0).putInt(32);
            out.writeBytes(b.array());
            return this;
        }

        public PcapNg packet(int iface, long ts, byte[] frame) {
            int padded = (frame.length + 3) & ~3;
            int len = 32 + padded;
            ByteBuffer b = ByteBuffer.allocate(len).order(ByteOrder.LITTLE_ENDIAN);
            b.putInt(6).putInt(len).putInt(iface).putInt((int) (ts >>> 32)).putInt((int) ts).putInt(frame.length)
                    .putInt(frame.length).put(frame).put(new byte[padded - frame.length]).putInt(len);
            out.writeBytes(b.array());
            return this;
        }

        /** Any block, as given (length fields included): for blocks no writer would make. */
        public PcapNg raw(byte[] block) {
            out.writeBytes(block);
            return this;
        }

        public PcapNg simplePacket(byte[] frame) {
            int padded = (frame.length + 3) & ~3;
            int len = 16 + padded;
            ByteBuffer b = ByteBuffer.allocate(len).order(ByteOrder.LITTLE_ENDIAN);
            b.putInt(3).putInt(len).putInt(frame.length).put(frame).put(new byte[padded - frame.length]).putInt(len);
            out.writeBytes(b.array());
            return this;
        }

        public byte[] bytes() {
            return out.toByteArray();
        }
    }
}
