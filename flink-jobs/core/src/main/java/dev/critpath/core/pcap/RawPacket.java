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

    void resetOptions() {
        wscale = -1;
        mss = -1;
        sackOk = false;
        sackCount = 0;
        tsval = -1;
        tsecr = -1;
        optionsTruncated = false;
    }
}
