package dev.critpath.core.pcap;

import dev.critpath.core.event.PacketEventJson;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

/**
 * Streams TCP packets out of pcap and pcapng captures (optionally gzip-compressed): Ethernet
 * with VLAN tags, raw IP, Linux cooked (SLL/SLL2) and BSD loopback link types; IPv4 and IPv6
 * with extension headers. Everything that is not a decodable TCP segment is counted and skipped;
 * a capture cut short ends the stream with {@link Stats#truncatedAtEnd} set instead of failing.
 */
public final class PcapReader implements Closeable {
    private static final int BUFFER_SIZE = 1 << 20;
    private static final int MAX_RECORD = 1 << 24; // larger than any sane snapshot; beyond it the file is corrupt

    /** What the reader saw, for progress and "why did this packet vanish" questions. */
    public static final class Stats {
        public long records;
        public long tcpPackets;
        public long nonIp;
        public long nonTcp;
        /** IP fragments not (yet) reassembled into a TCP segment. */
        public long fragments;
        /** TCP segments reassembled from IP fragments (counted among the TCP packets too). */
        public long reassembled;
        public long truncatedHeaders;
        public long unsupportedLinkType;
        /** Records whose time or length cannot be true (after 2100; a length from a record header beyond any packet). */
        public long implausible;
        public boolean truncatedAtEnd;
        /** Why reading stopped before the end of the file, or null: the records before it are read. */
        public String corruption;
        public long bytesRead;

        /**
         * Null, or what a user must hear even with --quiet: only part of the file was read.
         *
         * @param use what the packets read are used for ("analysed", "replayed")
         */
        public String partialRead(String use) {
            return corruption == null ? null
                    : "reading stopped at " + corruption + "; the " + tcpPackets + " TCP packets before it are " + use;
        }

        @Override
        public String toString() {
            return records + " records, " + tcpPackets + " TCP packets" + (reassembled > 0 ? " (" + reassembled + " reassembled from IP fragments)" : "")
                    + ", skipped: " + nonIp + " non-IP, " + nonTcp
                    + " non-TCP, " + fragments + " IP fragments, " + truncatedHeaders + " cut-short headers"
                    + (implausible > 0 ? ", " + implausible + " with an impossible time or length" : "")
                    + (unsupportedLinkType > 0 ? ", " + unsupportedLinkType + " of unsupported link types" : "")
                    + (truncatedAtEnd ? "; the file ends in the middle of a record" : "")
                    + (corruption != null ? "; reading stopped at " + corruption : "");
        }
    }

    private final InputStream in;
    private final String name;
    private byte[] buf = new byte[BUFFER_SIZE];
    private int pos;
    private int limit;
    private boolean eof;
    private final Stats stats = new Stats();
    private final IpFragments fragments = new IpFragments();

    private final boolean pcapng;
    private boolean compressed;
    // pcap state
    private boolean bigEndian;
    private boolean nanos;
    private int pcapLinkType;
    // pcapng state: per interface of the current section
    private int[] ifLinkType = new int[4];
    private long[] ifTsUnitsPerSec = new long[4];
    private long[] ifTsOffsetSec = new long[4];
    private int ifCount;

    private PcapReader(InputStream in, String name) throws IOException, PcapFormatException {
        this.in = in;
        this.name = name;
        if (!fill(24)) {
            throw new PcapFormatException(name + ": too short to be a capture file");
        }
        int magicLe = le32(pos);
        if (magicLe == 0x0A0D0D0A) {
            pcapng = true;
        } else {
            pcapng = false;
            readPcapHeader(magicLe);
        }
    }

    /** Opens a file; gzip compression is recognised by its magic bytes. */
    public static PcapReader open(Path path) throws IOException, PcapFormatException {
        if (!Files.isRegularFile(path)) {
            throw new PcapFormatException(path + ": no such file");
        }
        return open(Files.newInputStream(path), path.toString());
    }

    public static PcapReader open(InputStream raw, String name) throws IOException, PcapFormatException {
        InputStream in = MaybeGzip.open(raw);
        try {
            PcapReader r = new PcapReader(in, name);
            r.compressed = in instanceof GZIPInputStream;
            return r;
        } catch (PcapFormatException | IOException e) {
            in.close();
            throw e;
        }
    }

    /** Whether the file is gzip-compressed: then {@link Stats#bytesRead} counts its uncompressed bytes. */
    public boolean compressed() {
        return compressed;
    }

    public Stats stats() {
        return stats;
    }

    /** 1-based number of the record last returned, as Wireshark numbers frames. */
    public long recordNumber() {
        return stats.records;
    }

    private void readPcapHeader(int magicLe) throws PcapFormatException {
        switch (magicLe) {
            case 0xa1b2c3d4 -> { bigEndian = false; nanos = false; }
            case 0xa1b23c4d -> { bigEndian = false; nanos = true; }
            case 0xd4c3b2a1 -> { bigEndian = true; nanos = false; }
            case 0x4d3cb2a1 -> { bigEndian = true; nanos = true; }
            default -> {
                if ((magicLe & 0xffff) == 0x6e73 && buf[pos + 2] == 'o' && buf[pos + 3] == 'o') {
                    throw new PcapFormatException(name + ": Solaris snoop files are not supported; convert with `editcap -F pcap in.snoop out.pcap`");
                }
                throw new PcapFormatException(name + ": not a pcap or pcapng file (magic 0x" + Integer.toHexString(magicLe) + ")");
            }
        }
        pcapLinkType = u32(pos + 20) & 0x0fff_ffff; // upper bits may carry FCS length
        pos += 24;
    }

    /**
     * Decodes the next TCP packet into {@code p}; returns false at the end of the capture, or at
     * corruption that makes the rest of the file meaningless ({@link Stats#corruption} says which):
     * the packets before it stay good.
     */
    public boolean next(RawPacket p) throws IOException {
        boolean read = pcapng ? nextPcapng(p) : nextPcap(p);
        if (read) {
            stats.tcpPackets++;
        }
        return read;
    }

    private boolean nextPcap(RawPacket p) throws IOException {
        while (true) {
            if (!fill(16)) {
                return endOfRecords(limit - pos > 0);
            }
            long sec = u32(pos) & 0xffff_ffffL;
            long frac = u32(pos + 4) & 0xffff_ffffL;
            int incl = u32(pos + 8);
            int orig = u32(pos + 12);
            if (incl < 0 || incl > MAX_RECORD) {
                return corrupt("a corrupt record header after " + stats.records + " records (captured length " + Integer.toUnsignedString(incl) + ")");
            }
            if (!fill(16 + incl)) {
                return endOfRecords(true);
            }
            int start = pos + 16;
            pos = start + incl;
            stats.records++;
            stats.bytesRead += 16 + incl;
            p.tsUs = sec * 1_000_000L + (nanos ? frac / 1000 : frac);
            if (plausibleTime(p.tsUs) && decodeLink(pcapLinkType, start, incl, orig, p)) {
                return true;
            }
        }
    }

    private boolean nextPcapng(RawPacket p) throws IOException {
        while (true) {
            if (!fill(12)) {
                return endOfRecords(limit - pos > 0);
            }
            int type = le32(pos);
            if (type == 0x0A0D0D0A) {
                String bad = readSectionHeader();
                if (bad != null) {
                    return corrupt(bad + " after " + stats.records + " records");
                }
                continue;
            }
            int blockLen = u32(pos + 4);
            if (blockLen < 12 || blockLen > MAX_RECORD || (blockLen & 3) != 0) {
                return corrupt("a corrupt pcapng block after " + stats.records + " records (length " + Integer.toUnsignedString(blockLen) + ")");
            }
            if (!fill(blockLen)) {
                return endOfRecords(true);
            }
            int body = pos + 8;
            int bodyEnd = pos + blockLen - 4;
            pos += blockLen;
            stats.bytesRead += blockLen;
            switch (type) {
                case 1 -> readInterface(body, bodyEnd);
                case 6, 2 -> {
                    stats.records++;
                    boolean enhanced = type == 6;
                    int iface = enhanced ? u32(body) : u16(body);
                    long tsHigh = u32(body + 4) & 0xffff_ffffL; // same offsets in enhanced and obsolete blocks
                    long tsLow = u32(body + 8) & 0xffff_ffffL;
                    int incl = u32(body + 12);
                    int orig = u32(body + 16);
                    int data = body + 20;
                    if (iface < 0 || iface >= ifCount || incl < 0 || data + incl > bodyEnd) {
                        return corrupt("a packet block that refers to unknown interface " + iface + " or overruns its block, after "
                                + stats.records + " records");
                    }
                    p.tsUs = toMicros((tsHigh << 32) | tsLow, iface);
                    if (plausibleTime(p.tsUs) && decodeLink(ifLinkType[iface], data, incl, orig, p)) {
                        return true;
                    }
                }
                case 3 -> stats.records++; // simple packet blocks carry no timestamp: unusable for timing
                default -> { } // name resolution, statistics, custom blocks
            }
        }
    }

    /** Reads a section header block; returns what is wrong with it, or null. */
    private String readSectionHeader() throws IOException {
        if (!fill(12)) {
            return "a truncated pcapng section header";
        }
        int bom = le32(pos + 8);
        if (bom == 0x1A2B3C4D) {
            bigEndian = false;
        } else if (bom == 0x4D3C2B1A) {
            bigEndian = true;
        } else {
            return "a bad pcapng byte-order magic";
        }
        int blockLen = u32(pos + 4);
        if (blockLen < 28 || blockLen > MAX_RECORD || !fill(blockLen)) {
            return "a truncated or corrupt pcapng section header";
        }
        pos += blockLen;
        stats.bytesRead += blockLen;
        ifCount = 0; // interfaces are numbered per section
        return null;
    }

    private void readInterface(int body, int bodyEnd) {
        if (ifCount == ifLinkType.length) {
            ifLinkType = java.util.Arrays.copyOf(ifLinkType, ifCount * 2);
            ifTsUnitsPerSec = java.util.Arrays.copyOf(ifTsUnitsPerSec, ifCount * 2);
            ifTsOffsetSec = java.util.Arrays.copyOf(ifTsOffsetSec, ifCount * 2);
        }
        ifLinkType[ifCount] = u16(body);
        long unitsPerSec = 1_000_000L;
        long offset = 0;
        int o = body + 8;
        while (o + 4 <= bodyEnd) {
            int code = u16(o);
            int len = u16(o + 2);
            if (code == 0 || o + 4 + len > bodyEnd) {
                break; // the end, or an option that overruns its block
            }
            if (code == 9 && len >= 1) { // if_tsresol
                int r = buf[o + 4] & 0xff;
                int exp = r & 0x7f;
                unitsPerSec = (r & 0x80) != 0 ? (exp < 63 ? 1L << exp : Long.MAX_VALUE) : pow10(exp);
            } else if (code == 14 && len >= 8) { // if_tsoffset, seconds
                long first = u32(o + 4) & 0xffff_ffffL;
                long second = u32(o + 8) & 0xffff_ffffL;
                offset = bigEndian ? (first << 32) | second : (second << 32) | first;
            }
            o += 4 + ((len + 3) & ~3);
        }
        ifTsUnitsPerSec[ifCount] = unitsPerSec;
        ifTsOffsetSec[ifCount] = offset;
        ifCount++;
    }

    private static long pow10(int exp) {
        long v = 1;
        for (int i = 0; i < exp && v <= Long.MAX_VALUE / 10; i++) {
            v *= 10;
        }
        return v;
    }

    private long toMicros(long ts, int iface) {
        long units = ifTsUnitsPerSec[iface];
        long sec = ts / units;
        long rem = ts % units;
        long micros;
        if (units % 1_000_000L == 0) {
            micros = rem / (units / 1_000_000L);
        } else if (1_000_000L % units == 0) {
            micros = rem * (1_000_000L / units);
        } else {
            micros = (long) (rem * 1e6 / units); // binary resolutions
        }
        return (sec + ifTsOffsetSec[iface]) * 1_000_000L + micros;
    }

    private boolean corrupt(String what) {
        stats.corruption = what;
        return false;
    }

    /** Only the times a packet event may carry (before 1970 or from 2100 on is corruption). */
    private boolean plausibleTime(long tsUs) {
        if (tsUs < PacketEventJson.MIN_TS_US || tsUs > PacketEventJson.MAX_TS_US) {
            stats.implausible++;
            return false;
        }
        return true;
    }

    /** A length taken from the record header when the IP header has none: no packet is longer than the event contract allows. */
    private boolean plausibleLength(int len) {
        if (len < 0 || len > PacketEventJson.MAX_LEN) {
            stats.implausible++;
            return false;
        }
        return true;
    }

    private boolean endOfRecords(boolean partial) {
        stats.truncatedAtEnd |= partial;
        return false;
    }

    /** Strips the link layer; true when a TCP segment was decoded into p. */
    private boolean decodeLink(int linkType, int off, int caplen, int origLen, RawPacket p) {
        int end = off + caplen;
        int etherType;
        int ip;
        switch (linkType) {
            case 1 -> { // Ethernet
                if (caplen < 14) {
                    stats.truncatedHeaders++;
                    return false;
                }
                etherType = be16(off + 12);
                ip = off + 14;
                while ((etherType == 0x8100 || etherType == 0x88a8 || etherType == 0x9100) && ip + 4 <= end) {
                    etherType = be16(ip + 2);
                    ip += 4;
                }
            }
            case 101, 12, 14, 228, 229 -> { // raw IP
                ip = off;
                etherType = caplen > 0 && (buf[off] & 0xf0) == 0x60 ? 0x86dd : 0x0800;
            }
            case 113 -> { // Linux cooked v1
                if (caplen < 16) {
                    stats.truncatedHeaders++;
                    return false;
                }
                etherType = be16(off + 14);
                ip = off + 16;
            }
            case 276 -> { // Linux cooked v2
                if (caplen < 20) {
                    stats.truncatedHeaders++;
                    return false;
                }
                etherType = be16(off);
                ip = off + 20;
            }
            case 0, 108 -> { // BSD loopback: address family in host (0) or network (108) order
                if (caplen < 4) {
                    stats.truncatedHeaders++;
                    return false;
                }
                int af = linkType == 108 ? be32(off) : (bigEndian ? be32(off) : le32(off));
                etherType = af == 2 ? 0x0800 : (af == 24 || af == 28 || af == 30 || af == 10) ? 0x86dd : -1;
                ip = off + 4;
            }
            default -> {
                stats.unsupportedLinkType++;
                return false;
            }
        }
        int linkHeader = ip - off;
        if (etherType == 0x0800) {
            return decodeIpv4(ip, end, origLen - linkHeader, p);
        }
        if (etherType == 0x86dd) {
            return decodeIpv6(ip, end, origLen - linkHeader, p);
        }
        stats.nonIp++;
        return false;
    }

    private boolean decodeIpv4(int ip, int end, int origIpLen, RawPacket p) {
        if (ip + 20 > end || (buf[ip] & 0xf0) != 0x40) {
            stats.truncatedHeaders++;
            return false;
        }
        int ihl = (buf[ip] & 0x0f) * 4;
        int totalLen = be16(ip + 2);
        if (ihl < 20) {
            stats.truncatedHeaders++;
            return false;
        }
        if ((buf[ip + 9] & 0xff) != 6) {
            stats.nonTcp++;
            return false;
        }
        p.ipVersion = 4;
        System.arraycopy(buf, ip + 12, p.src, 0, 4);
        System.arraycopy(buf, ip + 16, p.dst, 0, 4);
        p.ipId = be16(ip + 4);
        p.ttl = buf[ip + 8] & 0xff;
        int fragField = be16(ip + 6);
        if ((fragField & 0x3fff) != 0) { // more-fragments set or a non-zero offset
            int len = totalLen - ihl;
            return piece(IpFragments.key(buf, ip + 12, 4, p.ipId), (fragField & 0x1fff) * 8, (fragField & 0x2000) != 0, len, ip + ihl, len, end, p);
        }
        if (totalLen == 0) {
            if (!plausibleLength(origIpLen)) {
                return false;
            }
            totalLen = origIpLen; // offloaded super-segments are often captured with length 0
        }
        return decodeTcp(ip + ihl, end, totalLen - ihl, p);
    }

    private boolean decodeIpv6(int ip, int end, int origIpLen, RawPacket p) {
        if (ip + 40 > end || (buf[ip] & 0xf0) != 0x60) {
            stats.truncatedHeaders++;
            return false;
        }
        int payloadLen = be16(ip + 4);
        if (payloadLen == 0) {
            if (!plausibleLength(origIpLen)) {
                return false;
            }
            payloadLen = origIpLen - 40; // jumbogram or offload
        }
        p.ipVersion = 6;
        System.arraycopy(buf, ip + 8, p.src, 0, 16);
        System.arraycopy(buf, ip + 24, p.dst, 0, 16);
        p.ipId = -1;
        p.ttl = buf[ip + 7] & 0xff;
        int next = buf[ip + 6] & 0xff;
        int h = ip + 40;
        int remaining = payloadLen;
        ByteBuffer datagram = null;
        boolean more = false;
        int pieceLen = 0;
        while (next != 6) {
            if (next == 0 || next == 43 || next == 60 || next == 51 || next == 44) {
                if (h + 8 > end) {
                    stats.truncatedHeaders++;
                    return false;
                }
                int fragField = next == 44 ? be16(h + 2) : 0;
                if ((fragField & 0xfff9) != 0) { // a fragment: offset or more-fragments set
                    datagram = IpFragments.key(buf, ip + 8, 16, be32(h + 4) & 0xffff_ffffL);
                    more = (fragField & 1) != 0;
                    pieceLen = remaining - 8;
                    if ((fragField & 0xfff8) != 0) { // not the first piece: what follows is payload, not headers
                        return piece(datagram, fragField & 0xfff8, more, pieceLen, -1, -1, end, p);
                    }
                }
                int extLen = next == 44 ? 8 : next == 51 ? ((buf[h + 1] & 0xff) + 2) * 4 : ((buf[h + 1] & 0xff) + 1) * 8;
                next = buf[h] & 0xff;
                h += extLen;
                remaining -= extLen;
            } else {
                stats.nonTcp++;
                return false;
            }
        }
        return datagram != null ? piece(datagram, 0, more, pieceLen, h, remaining, end, p) : decodeTcp(h, end, remaining, p);
    }

    private boolean decodeTcp(int t, int end, int tcpLen, RawPacket p) {
        if (t + 20 > end) {
            stats.truncatedHeaders++;
            return false;
        }
        int dataOffset = ((buf[t + 12] & 0xf0) >>> 4) * 4;
        if (dataOffset < 20 || tcpLen < dataOffset) {
            stats.truncatedHeaders++;
            return false;
        }
        p.srcPort = be16(t);
        p.dstPort = be16(t + 2);
        p.seq = be32(t + 4) & 0xffff_ffffL;
        p.ack = be32(t + 8) & 0xffff_ffffL;
        p.flags = buf[t + 13] & 0xff;
        p.win = be16(t + 14);
        p.payloadLen = tcpLen - dataOffset;
        p.resetOptions();
        int optEnd = t + dataOffset;
        if (optEnd > end) {
            p.optionsTruncated = true;
            optEnd = end;
        }
        p.decodeOptions(buf, t + 20, optEnd);
        return true;
    }

    /**
     * One fragment of an IP datagram, {@code pieceLen} bytes at {@code offset} of its payload; the
     * first holds the TCP header at {@code t}, {@code tcpLen} bytes to the piece's end. True when
     * it completed a TCP segment, now in p with the whole length, stamped when its last piece came.
     */
    private boolean piece(ByteBuffer datagram, int offset, boolean more, int pieceLen, int t, int tcpLen, int end, RawPacket p) {
        IpFragments.Datagram d = pieceLen > 0 ? fragments.add(datagram, offset, pieceLen, more) : null;
        boolean whole = d != null && (offset != 0 || d.first != null || firstPiece(d, pieceLen, t, tcpLen, end, p)) && d.complete();
        if (whole) {
            long lastPieceUs = p.tsUs;
            p.copyFrom(d.first);
            p.tsUs = lastPieceUs;
            p.payloadLen = d.length() - d.tcpHeaderLen;
            fragments.done(datagram, d);
            stats.reassembled++;
        }
        stats.fragments = fragments.piecesNotReassembled();
        return whole;
    }

    private boolean firstPiece(IpFragments.Datagram d, int pieceLen, int t, int tcpLen, int end, RawPacket p) {
        if (!decodeTcp(t, end, tcpLen, p)) {
            return false;
        }
        d.first = p.copy();
        d.tcpHeaderLen = pieceLen - p.payloadLen;
        return true;
    }

    /** Makes at least n bytes available at pos; false when the stream ends first. */
    private boolean fill(int n) throws IOException {
        if (limit - pos >= n) {
            return true;
        }
        if (eof) {
            return false;
        }
        if (n > buf.length) {
            buf = java.util.Arrays.copyOf(buf, n); // a record up to MAX_RECORD: rare, kept for the rest of the file
        }
        System.arraycopy(buf, pos, buf, 0, limit - pos);
        limit -= pos;
        pos = 0;
        while (limit < n) {
            int r;
            try {
                r = in.read(buf, limit, buf.length - limit);
            } catch (EOFException e) {
                r = -1; // gzip streams cut short
            }
            if (r < 0) {
                eof = true;
                return false;
            }
            limit += r;
        }
        return true;
    }

    private int u32(int o) {
        return bigEndian ? be32(o) : le32(o);
    }

    private int u16(int o) {
        return bigEndian ? be16(o) : ((buf[o] & 0xff) | (buf[o + 1] & 0xff) << 8);
    }

    private int le32(int o) {
        return (buf[o] & 0xff) | (buf[o + 1] & 0xff) << 8 | (buf[o + 2] & 0xff) << 16 | (buf[o + 3] & 0xff) << 24;
    }

    private int be32(int o) {
        return (buf[o] & 0xff) << 24 | (buf[o + 1] & 0xff) << 16 | (buf[o + 2] & 0xff) << 8 | (buf[o + 3] & 0xff);
    }

    private int be16(int o) {
        return (buf[o] & 0xff) << 8 | (buf[o + 1] & 0xff);
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
