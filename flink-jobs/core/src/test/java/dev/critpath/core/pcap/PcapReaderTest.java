package dev.critpath.core.pcap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.event.EventError;
import dev.critpath.core.event.InvalidEventException;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.PacketEventJson;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.event.TcpFlags;
import dev.critpath.core.testing.PcapBuilder;
import dev.critpath.core.trace.ConnectionAssembler;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PcapReaderTest {
    private static final long T0 = 1_763_800_000_123_456L;
    // MSS 1460, NOP, WS 7, SACK-permitted, TS 1000/0 -> 20 bytes of options
    private static final byte[] SYN_OPTIONS = {2, 4, 0x05, (byte) 0xb4, 1, 3, 3, 7, 4, 2, 8, 10, 0, 0, 3, (byte) 0xe8, 0, 0, 0, 0};

    @TempDir
    Path dir;

    private static byte[] syn() {
        return PcapBuilder.ipv4Tcp("10.0.0.1", 40000, "10.0.0.2", 80, 1000, 0, TcpFlags.SYN, 64240, 0, 7, 64, SYN_OPTIONS);
    }

    private static byte[] data(int payload) {
        return PcapBuilder.ipv4Tcp("10.0.0.2", 80, "10.0.0.1", 40000, 5001, 1001, TcpFlags.ACK | TcpFlags.PSH, 500, payload, 9, 63, new byte[0]);
    }

    private List<RawPacket> readAll(byte[] file) throws Exception {
        Path f = dir.resolve("t.pcap");
        Files.write(f, file);
        List<RawPacket> out = new ArrayList<>();
        try (PcapReader r = PcapReader.open(f)) {
            RawPacket p = new RawPacket();
            while (r.next(p)) {
                out.add(p.copy());
            }
        }
        return out;
    }

    @Test
    void bothByteOrdersAndPrecisionsGiveTheSameMicroseconds() throws Exception {
        for (ByteOrder order : new ByteOrder[] {ByteOrder.LITTLE_ENDIAN, ByteOrder.BIG_ENDIAN}) {
            for (boolean nanos : new boolean[] {false, true}) {
                byte[] file = new PcapBuilder.Pcap(1, order, nanos, 65535).add(T0, PcapBuilder.ethernet(syn())).bytes();
                RawPacket p = readAll(file).get(0);
                assertEquals(T0, p.tsUs, order + " nanos=" + nanos);
                assertEquals(1460, p.mss);
                assertEquals(7, p.wscale);
                assertTrue(p.sackOk);
                assertEquals(1000, p.tsval);
                assertEquals(7, p.ipId);
                assertEquals(64, p.ttl);
            }
        }
    }

    @Test
    void headerOnlyCaptureTakesPayloadLengthFromIp() throws Exception {
        byte[] frame = PcapBuilder.ethernet(data(1448));
        RawPacket p = readAll(new PcapBuilder.Pcap(1, ByteOrder.LITTLE_ENDIAN, false, 96).add(T0, frame, 96).bytes()).get(0);
        assertEquals(1448, p.payloadLen);
        assertEquals(5001, p.seq);
    }

    @Test
    void optionsCutBySnaplenAreFlaggedNotInvented() throws Exception {
        byte[] frame = PcapBuilder.ethernet(syn());
        RawPacket p = readAll(new PcapBuilder.Pcap(1, ByteOrder.LITTLE_ENDIAN, false, 60).add(T0, frame, 14 + 20 + 20 + 6).bytes()).get(0);
        assertEquals(1460, p.mss);
        assertTrue(p.optionsTruncated);
        assertEquals(-1, p.tsval);
    }

    @Test
    void vlanTagsSll2AndRawIpAreUnwrapped() throws Exception {
        byte[] vlan = new PcapBuilder.Pcap(1, ByteOrder.LITTLE_ENDIAN, false, 65535).add(T0, PcapBuilder.ethernet(syn(), 100, 200)).bytes();
        byte[] sll2 = new PcapBuilder.Pcap(276, ByteOrder.LITTLE_ENDIAN, false, 65535).add(T0, PcapBuilder.sll2(syn())).bytes();
        byte[] raw = new PcapBuilder.Pcap(101, ByteOrder.LITTLE_ENDIAN, false, 65535).add(T0, syn()).bytes();
        for (byte[] file : List.of(vlan, sll2, raw)) {
            RawPacket p = readAll(file).get(0);
            assertEquals(40000, p.srcPort);
            assertEquals(TcpFlags.SYN, p.flags);
        }
    }

    @Test
    void ipv6ExtensionHeadersAreSkipped() throws Exception {
        byte[] a = new byte[16];
        byte[] b = new byte[16];
        a[0] = 0x20;
        a[15] = 1;
        b[0] = 0x20;
        b[15] = 2;
        byte[] file = new PcapBuilder.Pcap(1, ByteOrder.LITTLE_ENDIAN, false, 65535)
                .add(T0, PcapBuilder.ethernet(PcapBuilder.ipv6Tcp(a, b, 5000, 443, 77, TcpFlags.ACK, 100, true))).bytes();
        RawPacket p = readAll(file).get(0);
        assertEquals(6, p.ipVersion);
        assertEquals(100, p.payloadLen);
        assertEquals(443, p.dstPort);
        assertEquals(-1, p.ipId);
        assertArrayEquals(a, p.src);
    }

    @Test
    void pcapngResolutionsAndSimpleBlocks() throws Exception {
        byte[] file = new PcapBuilder.PcapNg()
                .iface(1, 6).iface(1, 9).iface(101, 0x80 | 20)
                .packet(0, T0, PcapBuilder.ethernet(syn()))
                .simplePacket(PcapBuilder.ethernet(syn())) // no timestamp: counted, not used
                .packet(1, T0 * 1000 + 789, PcapBuilder.ethernet(data(10)))
                .packet(2, (T0 / 1_000_000L << 20) + (1L << 19), syn())
                .bytes();
        List<RawPacket> ps = readAll(file);
        assertEquals(3, ps.size());
        assertEquals(T0, ps.get(0).tsUs);
        assertEquals(T0, ps.get(1).tsUs);
        assertEquals(T0 / 1_000_000L * 1_000_000L + 500_000L, ps.get(2).tsUs);
    }

    @Test
    void gzipCompressedCapturesAreRead() throws Exception {
        byte[] plain = new PcapBuilder.Pcap(1, ByteOrder.LITTLE_ENDIAN, false, 65535).add(T0, PcapBuilder.ethernet(syn())).bytes();
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(gz)) {
            z.write(plain);
        }
        assertEquals(1, readAll(gz.toByteArray()).size());
    }

    @Test
    void aFileCutMidRecordKeepsWhatCameBefore() throws Exception {
        byte[] full = new PcapBuilder.Pcap(1, ByteOrder.LITTLE_ENDIAN, false, 65535)
                .add(T0, PcapBuilder.ethernet(syn())).add(T0 + 1, PcapBuilder.ethernet(data(5))).bytes();
        Path f = dir.resolve("cut.pcap");
        Files.write(f, Arrays.copyOf(full, full.length - 7));
        try (PcapReader r = PcapReader.open(f)) {
            RawPacket p = new RawPacket();
            assertTrue(r.next(p));
            assertFalse(r.next(p));
            assertTrue(r.stats().truncatedAtEnd);
            assertTrue(r.stats().toString().contains("ends in the middle of a record"));
        }
    }

    @Test
    void nonTcpFragmentsAndGarbageFramesAreCountedNotFatal() throws Exception {
        byte[] udp = syn().clone();
        udp[9] = 17;
        byte[] frag = syn().clone();
        frag[6] = 0x20; // more fragments
        byte[] arp = new byte[42];
        arp[12] = 0x08;
        arp[13] = 0x06;
        byte[] file = new PcapBuilder.Pcap(1, ByteOrder.LITTLE_ENDIAN, false, 65535)
                .add(T0, PcapBuilder.ethernet(udp)).add(T0, PcapBuilder.ethernet(frag)).add(T0, arp)
                .add(T0, new byte[5]).add(T0, PcapBuilder.ethernet(syn())).bytes();
        Path f = dir.resolve("mixed.pcap");
        Files.write(f, file);
        try (PcapReader r = PcapReader.open(f)) {
            RawPacket p = new RawPacket();
            assertTrue(r.next(p));
            assertEquals(5, r.recordNumber());
            assertFalse(r.next(p));
            PcapReader.Stats s = r.stats();
            assertEquals(1, s.nonTcp);
            assertEquals(1, s.fragments);
            assertEquals(1, s.nonIp);
            assertEquals(1, s.truncatedHeaders);
        }
    }

    @Test
    void unreadableInputGetsAClearError() throws Exception {
        Path text = dir.resolve("notes.txt");
        Files.writeString(text, "this is not a capture, just some text that is long enough");
        PcapFormatException e = assertThrows(PcapFormatException.class, () -> PcapReader.open(text));
        assertTrue(e.getMessage().contains("not a pcap or pcapng file"), e.getMessage());

        Path tiny = dir.resolve("tiny.pcap");
        Files.write(tiny, new byte[] {(byte) 0xd4, (byte) 0xc3});
        assertTrue(assertThrows(PcapFormatException.class, () -> PcapReader.open(tiny)).getMessage().contains("too short"));

        assertTrue(assertThrows(PcapFormatException.class, () -> PcapReader.open(dir.resolve("missing.pcap"))).getMessage().contains("no such file"));

        Path snoop = dir.resolve("x.snoop");
        byte[] s = new byte[64];
        System.arraycopy("snoop\0\0\0".getBytes(), 0, s, 0, 8);
        Files.write(snoop, s);
        assertTrue(assertThrows(PcapFormatException.class, () -> PcapReader.open(snoop)).getMessage().contains("editcap"));

    }

    @Test
    void corruptionMidFileStopsReadingButKeepsThePacketsBeforeIt() throws Exception {
        byte[] two = new PcapBuilder.Pcap(1, ByteOrder.LITTLE_ENDIAN, false, 65535)
                .add(T0, PcapBuilder.ethernet(syn())).add(T0 + 1, PcapBuilder.ethernet(data(5))).bytes();
        byte[] corrupt = Arrays.copyOf(two, two.length + 16);
        corrupt[two.length + 8] = (byte) 0xff;
        corrupt[two.length + 11] = (byte) 0x7f; // captured length ~2 GB
        Path bad = dir.resolve("corrupt.pcap");
        Files.write(bad, corrupt);
        try (PcapReader r = PcapReader.open(bad)) {
            RawPacket p = new RawPacket();
            assertTrue(r.next(p));
            assertTrue(r.next(p));
            assertFalse(r.next(p));
            assertTrue(r.stats().corruption.contains("corrupt record header after 2 records"), r.stats().corruption);
            assertTrue(r.stats().toString().contains("reading stopped at"), r.stats().toString());
        }
    }

    @Test
    void aRecordLargerThanTheReadBufferIsReadLikeAnyOther() throws Exception {
        byte[] frame = Arrays.copyOf(PcapBuilder.ethernet(syn()), 3 << 20); // 3 MiB of trailer after the packet
        byte[] file = new PcapBuilder.Pcap(1, ByteOrder.LITTLE_ENDIAN, false, 1 << 24).add(T0, frame)
                .add(T0 + 1, PcapBuilder.ethernet(data(5))).bytes();
        List<RawPacket> ps = readAll(file);
        assertEquals(2, ps.size());
        assertEquals(5, ps.get(1).payloadLen);
    }

    @Test
    void timesAndLengthsThatCannotBeTrueAreSkippedAndCounted() throws Exception {
        byte[] zeroLength = data(1448);
        zeroLength[2] = 0; // IP total length 0: the reader takes the record's original length, here 2 GB
        zeroLength[3] = 0;
        byte[] frame = PcapBuilder.ethernet(zeroLength);
        byte[] file = new PcapBuilder.Pcap(1, ByteOrder.LITTLE_ENDIAN, false, 65535)
                .add(T0, frame, frame.length, Integer.MAX_VALUE)
                .add(4_294_967_280_000_000L, PcapBuilder.ethernet(syn())) // year 2106
                .add(T0 + 2, PcapBuilder.ethernet(data(5))).bytes();
        Path f = dir.resolve("implausible.pcap");
        Files.write(f, file);
        try (PcapReader r = PcapReader.open(f)) {
            RawPacket p = new RawPacket();
            assertTrue(r.next(p));
            assertEquals(T0 + 2, p.tsUs);
            assertEquals(5, p.payloadLen);
            assertFalse(r.next(p));
            assertEquals(2, r.stats().implausible, r.stats().toString());
        }
    }

    /** One rule for both inputs: a capture yields exactly the times an event may carry, so --pcap and --events agree. */
    @Test
    void aCaptureKeepsExactlyTheTimesAnEventMayCarry() throws Exception {
        long[] kept = {PacketEventJson.MIN_TS_US, 776_032_077_261_947L /* 1994, the oldest public trace */, PacketEventJson.MAX_TS_US};
        PcapBuilder.Pcap pcap = new PcapBuilder.Pcap(1, ByteOrder.LITTLE_ENDIAN, false, 65535);
        for (long ts : kept) {
            pcap.add(ts, PcapBuilder.ethernet(syn()));
        }
        pcap.add(PacketEventJson.MAX_TS_US + 1, PcapBuilder.ethernet(syn()));
        Path f = dir.resolve("edges.pcap");
        Files.write(f, pcap.bytes());

        List<PacketEvent> events = PcapEvents.readAll(f, "s1", SensorRole.CLIENT);
        assertArrayEquals(kept, events.stream().mapToLong(PacketEvent::tsUs).toArray());
        PacketEventJson codec = PacketEventJson.standard();
        for (PacketEvent e : events) {
            assertEquals(e, codec.parse(PacketEventJson.toJson(e)));
        }
        String late = PacketEventJson.toJson(events.get(0).withTsUs(PacketEventJson.MAX_TS_US + 1));
        InvalidEventException ex = assertThrows(InvalidEventException.class, () -> codec.parse(late));
        assertEquals(EventError.OUT_OF_RANGE, ex.error());
    }

    @Test
    void aPcapngOptionThatOverrunsItsBlockIsIgnored() throws Exception {
        // an interface whose if_tsoffset claims 8 bytes where its block holds 4
        ByteBuffer idb = ByteBuffer.allocate(28).order(ByteOrder.LITTLE_ENDIAN);
        idb.putInt(1).putInt(28).putShort((short) 1).putShort((short) 0).putInt(65535)
                .putShort((short) 14).putShort((short) 8).putInt(0x7fff_ffff).putInt(28);
        byte[] file = new PcapBuilder.PcapNg().raw(idb.array()).packet(0, T0, PcapBuilder.ethernet(syn())).bytes();
        List<RawPacket> ps = readAll(file);
        assertEquals(1, ps.size());
        assertEquals(T0, ps.get(0).tsUs, "no offset read from beyond the option");
    }

    @Test
    void eventsAreOrientedFromTheSynSenderWithTheirCommunityId() throws Exception {
        byte[] synAck = PcapBuilder.ipv4Tcp("10.0.0.2", 80, "10.0.0.1", 40000, 5000, 1001, TcpFlags.SYN | TcpFlags.ACK, 65160, 0, 0, 64, new byte[0]);
        Path f = dir.resolve("hs.pcap");
        // the SYN/ACK comes first in the file (capture reordering): orientation must still follow the SYN
        Files.write(f, new PcapBuilder.Pcap(1, ByteOrder.LITTLE_ENDIAN, false, 65535)
                .add(T0 + 10, PcapBuilder.ethernet(synAck)).add(T0, PcapBuilder.ethernet(syn())).bytes());
        List<PacketEvent> es = PcapEvents.readAll(f, "s1", SensorRole.CLIENT);
        assertEquals(2, es.size());
        for (PacketEvent e : es) {
            assertEquals("10.0.0.1", e.origH());
            assertEquals(40000, e.origP());
            assertEquals("10.0.0.2", e.respH());
            assertEquals(80, e.respP());
            assertEquals(dev.critpath.core.event.CommunityId.tcpV1("10.0.0.1", 40000, "10.0.0.2", 80, 0), e.communityId());
        }
        assertFalse(es.get(0).isOrig());
        assertTrue(es.get(1).isOrig());
        assertEquals(Boolean.TRUE, es.get(1).sackOk());
        assertEquals(SensorRole.CLIENT, es.get(0).sensorRole());
    }

    @Test
    void aSegmentSentInIpFragmentsIsOnePacketOnceItsLastPieceCame() throws Exception {
        List<byte[]> v4 = PcapBuilder.ipv4Fragments(data(3000), 1480);
        byte[] server6 = new byte[16];
        server6[15] = 2;
        List<byte[]> v6 = PcapBuilder.ipv6Fragments(PcapBuilder.ipv6Tcp(server6, new byte[16], 80, 40000, 7000, TcpFlags.ACK, 2000, false), 1232, 77);
        byte[] neverWhole = PcapBuilder.ipv4Fragments(PcapBuilder.ipv4Tcp("10.0.0.2", 80, "10.0.0.1", 40000, 8001, 1001, TcpFlags.ACK, 500, 100, 10, 63,
                new byte[0]), 64).get(0);
        // out of order, one piece twice, and a datagram whose other pieces never come
        byte[] file = new PcapBuilder.Pcap(1, ByteOrder.LITTLE_ENDIAN, false, 65535)
                .add(T0, PcapBuilder.ethernet(v4.get(1))).add(T0 + 1, PcapBuilder.ethernet(v4.get(0))).add(T0 + 2, PcapBuilder.ethernet(v4.get(1)))
                .add(T0 + 3, PcapBuilder.ethernet(neverWhole)).add(T0 + 4, PcapBuilder.ethernet(v4.get(2)))
                .add(T0 + 5, PcapBuilder.ethernet(v6.get(1))).add(T0 + 6, PcapBuilder.ethernet(v6.get(0))).bytes();
        Files.write(dir.resolve("fragments.pcap"), file);
        List<RawPacket> ps = new ArrayList<>();
        try (PcapReader r = PcapReader.open(dir.resolve("fragments.pcap"))) {
            RawPacket p = new RawPacket();
            while (r.next(p)) {
                ps.add(p.copy());
            }
            PcapReader.Stats s = r.stats();
            assertEquals(2, s.tcpPackets, s.toString());
            assertEquals(2, s.reassembled, s.toString());
            assertEquals(1, s.fragments, "the piece of the datagram never completed: " + s);
        }
        assertEquals(3, v4.size());
        assertEquals(3000, ps.get(0).payloadLen);
        assertEquals(5001, ps.get(0).seq);
        assertEquals(80, ps.get(0).srcPort);
        assertEquals(T0 + 4, ps.get(0).tsUs, "a segment exists once its last piece came");
        assertEquals(6, ps.get(1).ipVersion);
        assertEquals(2000, ps.get(1).payloadLen);
        assertEquals(7000, ps.get(1).seq);
        assertEquals(T0 + 6, ps.get(1).tsUs);
    }

    @Test
    void aConnectionWhoseDataCameOnlyInIpFragmentsIsAnalysedWithItsBytes() throws Exception {
        byte[] synAck = PcapBuilder.ipv4Tcp("10.0.0.2", 80, "10.0.0.1", 40000, 5000, 1001, TcpFlags.SYN | TcpFlags.ACK, 65160, 0, 1, 64, new byte[0]);
        byte[] ack = PcapBuilder.ipv4Tcp("10.0.0.1", 40000, "10.0.0.2", 80, 1001, 5001, TcpFlags.ACK, 500, 0, 8, 64, new byte[0]);
        byte[] acked = PcapBuilder.ipv4Tcp("10.0.0.1", 40000, "10.0.0.2", 80, 1001, 8001, TcpFlags.ACK, 500, 0, 9, 64, new byte[0]);
        PcapBuilder.Pcap pcap = new PcapBuilder.Pcap(1, ByteOrder.LITTLE_ENDIAN, false, 65535)
                .add(T0, PcapBuilder.ethernet(syn())).add(T0 + 10_000, PcapBuilder.ethernet(synAck)).add(T0 + 20_000, PcapBuilder.ethernet(ack));
        long t = T0 + 21_000;
        for (byte[] piece : PcapBuilder.ipv4Fragments(data(3000), 1480)) {
            pcap.add(t++, PcapBuilder.ethernet(piece));
        }
        Path f = dir.resolve("fragmented-data.pcap");
        Files.write(f, pcap.add(T0 + 40_000, PcapBuilder.ethernet(acked)).bytes());
        ConnectionAssembler assembler = new ConnectionAssembler();
        PcapEvents.readAll(f, "s1", SensorRole.CLIENT).forEach(assembler::add);
        var profile = Analyzer.defaults().analyze(assembler.connections().get(0)).profile();
        assertEquals(3000, profile.s2c.bytes, profile.toString());
        assertEquals(0, profile.quality.captureGaps(), profile.toString());
    }
}
