package dev.critpath.bench;

import dev.critpath.core.pcap.PcapReader;
import dev.critpath.core.pcap.RawPacket;
import io.pkts.Pcap;
import io.pkts.buffer.Buffer;
import io.pkts.packet.IPPacket;
import io.pkts.packet.TCPPacket;
import io.pkts.protocol.Protocol;
import java.io.EOFException;
import java.io.File;
import java.net.InetAddress;
import java.sql.Timestamp;
import java.nio.file.Path;
import java.util.List;
import org.pcap4j.core.PcapHandle;
import org.pcap4j.core.Pcaps;
import org.pcap4j.packet.IpPacket;
import org.pcap4j.packet.IpV4Packet;
import org.pcap4j.packet.IpV6Packet;
import org.pcap4j.packet.Packet;
import org.pcap4j.packet.TcpMaximumSegmentSizeOption;
import org.pcap4j.packet.TcpPacket;
import org.pcap4j.packet.TcpSackOption;
import org.pcap4j.packet.TcpSackPermittedOption;
import org.pcap4j.packet.TcpTimestampsOption;
import org.pcap4j.packet.TcpWindowScaleOption;

/**
 * Ways to read a capture into {@link RawPacket}s, the fields critpath's analysis needs: critpath's
 * own reader and the maintained Java libraries, each through its own API. Every decoder fills one
 * reused RawPacket per TCP packet and folds it into a {@link Tally}, so the readers can be checked
 * against each other (same packets, same fields) as well as timed.
 */
final class CaptureDecoders {
    private CaptureDecoders() {
    }

    /** Reads a whole capture; what it decoded, as a count and a digest of every field. */
    interface Decoder {
        String name();

        Tally read(Path capture) throws Exception;
    }

    /** TCP packets decoded, and a digest of all their fields in order. */
    record Tally(long packets, long digest) {
    }

    /** Folds packets into a digest; a reader that drops or misreads a field gives another one. */
    private static final class Digest {
        private long packets;
        private long h = 17;

        void add(RawPacket p) {
            packets++;
            mix(p.tsUs);
            for (int i = 0; i < p.addrLen(); i++) {
                mix(p.src[i]);
                mix(p.dst[i]);
            }
            mix(p.srcPort);
            mix(p.dstPort);
            mix(p.seq);
            mix(p.ack);
            mix(p.flags);
            mix(p.win);
            mix(p.payloadLen);
            mix(p.mss);
            mix(p.wscale);
            mix(p.sackOk ? 1 : 0);
            for (int i = 0; i < p.sackCount; i++) {
                mix(p.sack[i]);
            }
            mix(p.tsval);
            mix(p.tsecr);
        }

        private void mix(long v) {
            h = h * 31 + v;
        }

        Tally tally() {
            return new Tally(packets, h);
        }
    }

    static final List<Decoder> ALL = List.of(new Critpath(), new Pkts(), new Pcap4j());

    /** critpath's PcapReader: its buffer, its decoding. */
    static final class Critpath implements Decoder {
        @Override
        public String name() {
            return "critpath PcapReader";
        }

        @Override
        public Tally read(Path capture) throws Exception {
            Digest d = new Digest();
            RawPacket p = new RawPacket();
            try (PcapReader r = PcapReader.open(capture)) {
                while (r.next(p)) {
                    d.add(p);
                }
            }
            return d.tally();
        }
    }

    /** io.pkts (pure Java): frames, IP and TCP headers; it has no TCP options, so those come from the raw header. */
    static final class Pkts implements Decoder {
        @Override
        public String name() {
            return "pkts 3.0.10 (io.pkts:pkts-core)";
        }

        @Override
        public Tally read(Path capture) throws Exception {
            Digest d = new Digest();
            RawPacket p = new RawPacket();
            Pcap pcap = Pcap.openStream(new File(capture.toString()));
            try {
                pcap.loop(packet -> {
                    if (packet.hasProtocol(Protocol.TCP)) {
                        TCPPacket tcp = (TCPPacket) packet.getPacket(Protocol.TCP);
                        IPPacket ip = tcp.getParentPacket();
                        p.tsUs = packet.getArrivalTime();
                        p.ipVersion = ip.getVersion();
                        byte[] src = ip.getRawSourceIP();
                        System.arraycopy(src, 0, p.src, 0, src.length);
                        byte[] dst = ip.getRawDestinationIP();
                        System.arraycopy(dst, 0, p.dst, 0, dst.length);
                        p.srcPort = tcp.getSourcePort();
                        p.dstPort = tcp.getDestinationPort();
                        p.seq = tcp.getSequenceNumber();
                        p.ack = tcp.getAcknowledgementNumber();
                        p.flags = flags(tcp);
                        p.win = tcp.getWindowSize();
                        p.payloadLen = ip.getTotalIPLength() - ip.getHeaderLength() - tcp.getHeaderLength(); // lengths in bytes
                        p.resetOptions();
                        Buffer segment = ip.getPayload();
                        byte[] header = new byte[tcp.getHeaderLength()];
                        for (int i = 20; i < header.length; i++) {
                            header[i] = segment.getByte(i);
                        }
                        p.decodeOptions(header, 20, header.length);
                        d.add(p);
                    }
                    return true;
                });
            } finally {
                pcap.close();
            }
            return d.tally();
        }

        private static int flags(TCPPacket t) {
            return (t.isCWR() ? 0x80 : 0) | (t.isECE() ? 0x40 : 0) | (t.isURG() ? 0x20 : 0) | (t.isACK() ? 0x10 : 0)
                    | (t.isPSH() ? 0x08 : 0) | (t.isRST() ? 0x04 : 0) | (t.isSYN() ? 0x02 : 0) | (t.isFIN() ? 0x01 : 0);
        }
    }

    /** pcap4j: libpcap (through JNA) reads the records, pcap4j's static packet factory decodes them, options included. */
    static final class Pcap4j implements Decoder {
        @Override
        public String name() {
            return "pcap4j 1.8.2 (libpcap " + libpcapVersion() + ")";
        }

        private static String libpcapVersion() {
            try {
                return Pcaps.libVersion().replaceAll("^libpcap version ([^ ]+).*", "$1");
            } catch (Throwable e) { // no libpcap: the read says so
                return "not found";
            }
        }

        @Override
        public Tally read(Path capture) throws Exception {
            Digest d = new Digest();
            RawPacket p = new RawPacket();
            PcapHandle h = Pcaps.openOffline(capture.toString(), PcapHandle.TimestampPrecision.NANO);
            try {
                while (true) {
                    Packet packet;
                    try {
                        packet = h.getNextPacketEx();
                    } catch (EOFException end) {
                        break;
                    }
                    IpPacket ip = packet.get(IpPacket.class);
                    if (ip == null || !(ip.getPayload() instanceof TcpPacket tcp)) { // not TCP, a fragment, or TCP quoted in ICMP
                        continue;
                    }
                    Timestamp stamp = h.getTimestamp();
                    p.tsUs = Math.floorDiv(stamp.getTime(), 1000) * 1_000_000L + stamp.getNanos() / 1000;
                    TcpPacket.TcpHeader t = tcp.getHeader();
                    int ipPayload;
                    if (ip instanceof IpV4Packet v4) {
                        IpV4Packet.IpV4Header ih = v4.getHeader();
                        p.ipVersion = 4;
                        address(ih.getSrcAddr(), p.src);
                        address(ih.getDstAddr(), p.dst);
                        ipPayload = ih.getTotalLengthAsInt() - ih.getIhlAsInt() * 4;
                    } else {
                        IpV6Packet.IpV6Header ih = ((IpV6Packet) ip).getHeader();
                        p.ipVersion = 6;
                        address(ih.getSrcAddr(), p.src);
                        address(ih.getDstAddr(), p.dst);
                        ipPayload = ih.getPayloadLengthAsInt();
                    }
                    p.srcPort = t.getSrcPort().valueAsInt();
                    p.dstPort = t.getDstPort().valueAsInt();
                    p.seq = t.getSequenceNumberAsLong();
                    p.ack = t.getAcknowledgmentNumberAsLong();
                    p.flags = ((t.getReserved() & 3) << 6) | (t.getUrg() ? 0x20 : 0) | (t.getAck() ? 0x10 : 0) | (t.getPsh() ? 0x08 : 0)
                            | (t.getRst() ? 0x04 : 0) | (t.getSyn() ? 0x02 : 0) | (t.getFin() ? 0x01 : 0);
                    p.win = t.getWindowAsInt();
                    p.payloadLen = ipPayload - t.getDataOffsetAsInt() * 4;
                    p.resetOptions();
                    for (TcpPacket.TcpOption o : t.getOptions()) {
                        if (o instanceof TcpMaximumSegmentSizeOption mss) {
                            p.mss = mss.getMaxSegSizeAsInt();
                        } else if (o instanceof TcpWindowScaleOption ws) {
                            p.wscale = ws.getShiftCountAsInt();
                        } else if (o instanceof TcpSackPermittedOption) {
                            p.sackOk = true;
                        } else if (o instanceof TcpSackOption sack) { // no accessor for the blocks in 1.8.2
                            byte[] raw = sack.getRawData();
                            p.decodeOptions(raw, 0, raw.length);
                        } else if (o instanceof TcpTimestampsOption ts) {
                            p.tsval = ts.getTsValueAsLong();
                            p.tsecr = ts.getTsEchoReplyAsLong();
                        }
                    }
                    d.add(p);
                }
            } finally {
                h.close();
            }
            return d.tally();
        }

        private static void address(InetAddress a, byte[] into) {
            byte[] b = a.getAddress();
            System.arraycopy(b, 0, into, 0, b.length);
        }
    }
}
