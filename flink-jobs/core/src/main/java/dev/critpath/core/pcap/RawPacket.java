package dev.critpath.core.pcap;

/**
 * One decoded TCP/IP packet, reused by the reader for every record to keep the hot loop free of
 * allocation. Copy what you need before the next call to {@link PcapReader#next(RawPacket)}.
 */
public final class RawPacket {
    /** Capture timestamp, µs since the epoch. */
    public long tsUs;
    /** 4 for IPv4, 6 for IPv6. */
    public int ipVersion;
    /** Source and destination address; only the first 4 bytes are used for IPv4. */
    public final byte[] src = new byte[16];
    public final byte[] dst = new byte[16];
    public int srcPort;
    public int dstPort;
    public int flags;
    public long seq;
    public long ack;
    /** Payload length from the IP header (valid for header-only captures). */
    public int payloadLen;
    public int win;
    public int wscale;
    public int mss;
    public boolean sackOk;
    /** SACK blocks, left/right pairs, {@code sackCount} numbers used. */
    public final long[] sack = new long[8];
    public int sackCount;
    public long tsval;
    public long tsecr;
    public int ipId;
    public int ttl;
    /** True when the snapshot length cut the TCP options short. */
    public boolean optionsTruncated;

    public int addrLen() {
        return ipVersion == 4 ? 4 : 16;
    }

    /** A copy, for keeping beyond the next read. */
    public RawPacket copy() {
        RawPacket c = new RawPacket();
        c.copyFrom(this);
        return c;
    }

    /** Takes every field of another packet. */
    public void copyFrom(RawPacket o) {
        tsUs = o.tsUs;
        ipVersion = o.ipVersion;
        System.arraycopy(o.src, 0, src, 0, 16);
        System.arraycopy(o.dst, 0, dst, 0, 16);
        srcPort = o.srcPort;
        dstPort = o.dstPort;
        flags = o.flags;
        seq = o.seq;
        ack = o.ack;
        payloadLen = o.payloadLen;
        win = o.win;
        wscale = o.wscale;
        mss = o.mss;
        sackOk = o.sackOk;
        System.arraycopy(o.sack, 0, sack, 0, sack.length);
        sackCount = o.sackCount;
        tsval = o.tsval;
        tsecr = o.tsecr;
        ipId = o.ipId;
        ttl = o.ttl;
        optionsTruncated = o.optionsTruncated;
    }

    /**
     * Takes MSS, window scale, SACK-permitted, SACK blocks and timestamps from the TCP options in
     * {@code b[from, to)}; flags {@link #optionsTruncated} when one runs past {@code to}. Public for
     * the reader benchmark, which decodes the options of libraries that do not (docs/performance.md).
     */
    public void decodeOptions(byte[] b, int from, int to) {
        int o = from;
        while (o < to) {
            int kind = b[o] & 0xff;
            if (kind == 0) {
                return;
            }
            if (kind == 1) {
                o++;
                continue;
            }
            if (o + 1 >= to) {
                optionsTruncated = true;
                return;
            }
            int len = b[o + 1] & 0xff;
            if (len < 2) {
                return; // malformed: stop rather than loop
            }
            if (o + len > to) {
                optionsTruncated = true;
                return;
            }
            switch (kind) {
                case 2 -> { if (len == 4) mss = be16(b, o + 2); }
                case 3 -> { if (len == 3) wscale = b[o + 2] & 0xff; }
                case 4 -> sackOk = true;
                case 5 -> {
                    int blocks = Math.min((len - 2) / 8, 4);
                    for (int i = 0; i < blocks; i++) {
                        sack[2 * i] = be32(b, o + 2 + 8 * i);
                        sack[2 * i + 1] = be32(b, o + 6 + 8 * i);
                    }
                    sackCount = 2 * blocks;
                }
                case 8 -> {
                    if (len == 10) {
                        tsval = be32(b, o + 2);
                        tsecr = be32(b, o + 6);
                    }
                }
                default -> { }
            }
            o += len;
        }
    }

    private static int be16(byte[] b, int o) {
        return ((b[o] & 0xff) << 8) | (b[o + 1] & 0xff);
    }

    private static long be32(byte[] b, int o) {
        return ((long) be16(b, o) << 16) | be16(b, o + 2);
    }

    /** Clears what {@link #decodeOptions} sets, before a packet's options are read. */
    public void resetOptions() {
        wscale = -1;
        mss = -1;
        sackOk = false;
        sackCount = 0;
        tsval = -1;
        tsecr = -1;
        optionsTruncated = false;
    }
}
