package dev.critpath.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.event.IpText;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.event.TcpFlags;
import dev.critpath.core.pcap.PcapEvents;
import dev.critpath.core.pcap.PcapReader;
import dev.critpath.core.pcap.RawPacket;
import dev.critpath.core.screen.ConnectionResult;
import dev.critpath.core.screen.Screen;
import dev.critpath.core.testing.Repo;
import dev.critpath.core.trace.ConnectionAssembler;
import dev.critpath.core.trace.ConnectionTrace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The benchmark's capture: every copy holds the originals' connections again, as new connections, analysed alike. */
class SyntheticCaptureTest {
    @TempDir
    Path tmp;

    @Test
    void eachCopyIsTheSameConnectionsOnANewClientLater() throws Exception {
        SyntheticCapture capture = new SyntheticCapture(IpText.parse("10.71.1.2"));
        capture.addOriginal(Repo.testdata("lab/fast-retransmit/server.pcap"));
        capture.addOriginal(Repo.testdata("lab/keepalive-3/server.pcap"));
        Path out = tmp.resolve("copies.pcap");
        capture.write(out, 3, capture.periodUs(), 1);

        List<ConnectionResult> originals = analyse(List.of(Repo.testdata("lab/fast-retransmit/server.pcap"), Repo.testdata("lab/keepalive-3/server.pcap")));
        List<ConnectionResult> copies = analyse(List.of(out));
        assertEquals(3 * originals.size(), copies.size());
        Map<String, List<String>> byClient = new TreeMap<>();
        for (ConnectionResult r : copies) {
            byClient.computeIfAbsent(r.profile().clientAddr, k -> new ArrayList<>()).add(summary(r));
        }
        assertEquals(List.of("10.64.0.0", "10.64.0.1", "10.64.0.2"), List.copyOf(byClient.keySet()));
        List<String> expected = originals.stream().map(SyntheticCaptureTest::summary).sorted().toList();
        for (List<String> copy : byClient.values()) {
            assertEquals(expected, copy.stream().sorted().toList(), "a copy is analysed as its original");
        }
    }

    /** Overlapping copies are still written in time order, and two blocks are twice the connections, each a copy of its original. */
    @Test
    void overlappingCopiesComeInTimeOrder() throws Exception {
        SyntheticCapture capture = new SyntheticCapture(IpText.parse("10.71.1.2"));
        capture.addOriginal(Repo.testdata("lab/fast-retransmit/server.pcap"));
        Path out = tmp.resolve("overlapping.pcap");
        capture.write(out, 4, 5_000, 2);
        List<PacketEvent> events = PcapEvents.readAll(out, "server-side", SensorRole.SERVER);
        for (int i = 1; i < events.size(); i++) {
            assertTrue(events.get(i).tsUs() >= events.get(i - 1).tsUs(), "frame " + i + " goes back in time");
        }
        List<String> expected = analyse(List.of(Repo.testdata("lab/fast-retransmit/server.pcap"))).stream().map(SyntheticCaptureTest::summary).toList();
        List<ConnectionResult> copies = analyse(List.of(out));
        assertEquals(8 * expected.size(), copies.size());
        copies.forEach(r -> assertTrue(expected.contains(summary(r)), "a copy is analysed as its original: " + summary(r)));
    }

    @Test
    void aSynFloodIsThatManyUnansweredSyns() throws Exception {
        List<PacketEvent> events = floodOf1000(SyntheticCapture.Handshake.SYN);
        assertEquals(1000, events.size());
        events.forEach(e -> assertTrue(e.hasFlag(TcpFlags.SYN) && !e.hasFlag(TcpFlags.ACK) && e.respP() == 80 && e.mss() == 1460));
    }

    /** Answered, each SYN draws its SYN/ACK; completed, the client's ACK follows. */
    @Test
    void aFloodGoesAsFarIntoTheHandshakeAsAsked() throws Exception {
        List<PacketEvent> events = floodOf1000(SyntheticCapture.Handshake.COMPLETED);
        assertEquals(3000, events.size());
        for (int i = 0; i < 3000; i += 3) {
            PacketEvent syn = events.get(i);
            PacketEvent synAck = events.get(i + 1);
            PacketEvent ack = events.get(i + 2);
            assertTrue(syn.isOrig() && syn.flags() == TcpFlags.SYN, syn.toString());
            assertTrue(!synAck.isOrig() && synAck.flags() == (TcpFlags.SYN | TcpFlags.ACK) && synAck.ack() == syn.seq() + 1, synAck.toString());
            assertTrue(ack.isOrig() && ack.flags() == TcpFlags.ACK && ack.ack() == synAck.seq() + 1 && ack.seq() == syn.seq() + 1, ack.toString());
        }
        assertEquals(2000, floodOf1000(SyntheticCapture.Handshake.ANSWERED).size());
    }

    /** A flood of 1,000 connections as read back: every one in a flow of its own. */
    private List<PacketEvent> floodOf1000(SyntheticCapture.Handshake handshake) throws Exception {
        Path out = tmp.resolve("flood-" + handshake + ".pcap");
        SyntheticCapture.writeFlood(out, 1000, handshake);
        List<PacketEvent> events = PcapEvents.readAll(out, "server-side", SensorRole.SERVER);
        assertEquals(1000, events.stream().map(PacketEvent::communityId).distinct().count());
        return events;
    }

    /** The reader benchmark's feature captures hold the original's packets, in the form each claims. */
    @Test
    void featureCapturesHoldTheOriginalsPackets() throws Exception {
        Path original = Repo.testdata("lab/fast-retransmit/server.pcap");
        SyntheticCapture capture = new SyntheticCapture(IpText.parse("10.71.1.2"));
        capture.addOriginal(original);
        List<PacketEvent> expected = PcapEvents.readAll(original, "server-side", SensorRole.SERVER);

        Path vlan = tmp.resolve("vlan.pcap");
        capture.writeOriginals(vlan, true);
        assertEquals(expected, PcapEvents.readAll(vlan, "server-side", SensorRole.SERVER));
        byte[] v = Files.readAllBytes(vlan);
        assertEquals(0x8100, ((v[24 + 16 + 12] & 0xff) << 8) | (v[24 + 16 + 13] & 0xff), "the first frame is tagged");

        Path pcapng = tmp.resolve("two-interfaces.pcapng");
        capture.writePcapngTwoInterfaces(pcapng);
        assertEquals(expected, PcapEvents.readAll(pcapng, "server-side", SensorRole.SERVER), "µs and ns stamps give the original times");

        Path fragmented = tmp.resolve("fragments.pcap");
        capture.writeFragmented(fragmented);
        assertEquals(expected, PcapEvents.readAll(fragmented, "server-side", SensorRole.SERVER));
        try (PcapReader r = PcapReader.open(fragmented)) {
            RawPacket p = new RawPacket();
            while (r.next(p)) {
                continue; // to the end, for the counts
            }
            assertTrue(r.stats().reassembled > 0, "some segments came in fragments");
            assertEquals(expected.size() + r.stats().reassembled, r.stats().records, "each in two");
        }
    }

    private static List<ConnectionResult> analyse(List<Path> pcaps) throws Exception {
        ConnectionAssembler as = new ConnectionAssembler();
        for (Path p : pcaps) {
            PcapEvents.readAll(p, "server-side", SensorRole.SERVER).forEach(as::add);
        }
        List<ConnectionResult> out = new ArrayList<>();
        for (ConnectionTrace t : as.connections()) {
            out.add(Screen.defaults().apply(Analyzer.defaults().analyze(t)));
        }
        return out;
    }

    /** What must not change with the address and the time: sizes, counts and the time split. */
    private static String summary(ConnectionResult r) {
        var p = r.profile();
        return p.clientPort + " " + p.durationUs() + " " + p.c2s.packets + "/" + p.s2c.packets + " " + p.times;
    }
}
