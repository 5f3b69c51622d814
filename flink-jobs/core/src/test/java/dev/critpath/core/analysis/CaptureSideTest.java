package dev.critpath.core.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.event.TcpFlags;
import dev.critpath.core.pcap.PcapEvents;
import dev.critpath.core.testing.HandTrace;
import dev.critpath.core.testing.LabFixtures;
import dev.critpath.core.testing.Peers;
import dev.critpath.core.testing.Repo;
import dev.critpath.core.trace.ConnectionAssembler;
import dev.critpath.core.trace.ConnectionTrace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Which side a lone capture was taken on, when nobody says: from the lab's captures (whose side
 * is known) and from public captures, where the packets' TTLs and the handshake's gaps say it.
 */
class CaptureSideTest {
    private static final Analyzer ANALYZER = Analyzer.defaults();
    private static final Set<Integer> INITIAL_TTLS = Set.of(32, 64, 128, 255);

    @Test
    void everyLabCaptureAloneIsPlacedOnItsOwnSide() throws Exception {
        List<LabFixtures.Scenario> all = LabFixtures.all();
        assumeTrue(!all.isEmpty(), "no lab fixtures");
        int checked = 0;
        for (LabFixtures.Scenario s : all) {
            for (String side : List.of("client", "server")) {
                for (ConnectionTrace t : connections(s.dir().resolve(side + ".pcap"))) {
                    CaptureMode expected = side.equals("client") ? CaptureMode.CLIENT_SIDE : CaptureMode.SERVER_SIDE;
                    assertEquals(expected, ANALYZER.analyze(t).profile().mode, s.name() + " " + side + ".pcap port " + t.clientPort());
                    checked++;
                }
            }
        }
        assertTrue(checked > 80, checked + " lab connections");
    }

    @Test
    void aServerCaptureWithItsTwentySecondBlackHoleIsServerSide() throws Exception {
        Path f = Repo.shared("traces/public").resolve("packetpioneer-youtube/slowfile-serverside.pcapng");
        assumeTrue(Files.isRegularFile(f), "public capture absent: " + f);
        for (ConnectionTrace t : connections(f)) {
            assertEquals(CaptureMode.SERVER_SIDE, ANALYZER.analyze(t).profile().mode, "port " + t.clientPort());
        }
    }

    /**
     * pymptcpanalyzer's client_2/server_2 pair: some subflows both captures saw at one point
     * (many packets within microseconds in both, while each capture alone shows round trips of
     * 10 ms and more) are analysed as one capture and flagged (two-point made their round trips 6
     * µs to 0.8 ms, all network time host time); those seen at the two ends stay two-point (port
     * 59482, 100 ms; port 34945, 40 ms, whose handshake took 490 ms).
     */
    @Test
    void connectionsBothCapturesSawAtOnePointAreAnalysedAsOne() throws Exception {
        Path dir = Repo.shared("traces/public").resolve("teto-pymptcpanalyzer/examples");
        Path client = dir.resolve("client_2.pcap");
        Path server = dir.resolve("server_2.pcap");
        assumeTrue(Files.isRegularFile(client) && Files.isRegularFile(server), "public captures absent: " + dir);
        ConnectionAssembler as = new ConnectionAssembler();
        PcapEvents.readAll(client, "client_2", SensorRole.CLIENT).forEach(as::add);
        PcapEvents.readAll(server, "server_2", SensorRole.SERVER).forEach(as::add);
        int colocated = 0;
        for (ConnectionTrace t : as.connections()) {
            if (t.captures().size() < 2) {
                continue;
            }
            ConnectionProfile p = ANALYZER.analyze(t).profile();
            assertEquals(p.quality.sensorsColocated(), p.mode != CaptureMode.TWO_POINT, "port " + t.clientPort());
            colocated += p.quality.sensorsColocated() ? 1 : 0;
            if (t.clientPort() == 59482 || t.clientPort() == 34945) {
                assertEquals(CaptureMode.TWO_POINT, p.mode, "port " + t.clientPort() + " seen at both ends");
            } else if (t.clientPort() == 36829) {
                assertTrue(p.quality.sensorsColocated(), "seen at one point");
                assertTrue(p.timing.minRttUs() > 10_000, "its round trip, not the captures' few µs apart: " + p.timing.minRttUs());
            }
        }
        assertEquals(8, colocated);
    }

    /**
     * Sensors at the two ends of a 0.1 ms path whose SYN/ACK left 3 ms late (a flow set up on the
     * way, a busy server): every packet crossed in a twentieth of the handshake, yet each capture
     * alone shows the short round trip, so the captures are not at one point.
     */
    @Test
    void aSlowHandshakeOnAShortPathIsNoCoLocation() {
        HandTrace h = new HandTrace(0.05, 0.05);
        h.c(0).syn();
        h.s(3.05).syn();
        h.c(3.15).ack(1);
        h.c(3.15).data(100);
        h.s(3.25).data(1000);
        h.c(3.35);
        ConnectionProfile p = ANALYZER.analyze(h.bothSensors()).profile();
        assertEquals(CaptureMode.TWO_POINT, p.mode);
        assertFalse(p.quality.sensorsColocated());
    }

    /** Where TTL and the handshake agree on the side, the analysis places the capture there. */
    @Test
    void publicCapturesAreOnTheSideTheirTtlsAndHandshakeSay() throws Exception {
        List<Path> captures = Peers.publicCaptures();
        assumeTrue(!captures.isEmpty(), "no public captures under ../shared/traces/public");
        List<String> wrong = new ArrayList<>();
        int decided = 0;
        for (Path f : captures) {
            for (ConnectionTrace t : connections(f)) {
                SensorRole ttl = byTtl(t);
                SensorRole handshake = byHandshake(t);
                if (ttl == SensorRole.UNKNOWN || ttl != handshake) {
                    continue;
                }
                decided++;
                CaptureMode got = ANALYZER.analyze(t).profile().mode;
                if (got != (ttl == SensorRole.CLIENT ? CaptureMode.CLIENT_SIDE : CaptureMode.SERVER_SIDE)) {
                    wrong.add(f.getFileName() + " port " + t.clientPort() + ": " + got + ", packets say " + ttl);
                }
            }
        }
        System.out.println(decided + " public connections whose TTLs and handshake agree on the side");
        assertTrue(decided >= 20, decided + " connections decided");
        assertTrue(wrong.isEmpty(), wrong.toString());
    }

    private static List<ConnectionTrace> connections(Path f) throws Exception {
        ConnectionAssembler as = new ConnectionAssembler();
        PcapEvents.readAll(f, f.getFileName().toString(), SensorRole.UNKNOWN).forEach(as::add);
        return as.connections().stream().filter(t -> t.captures().size() == 1).toList();
    }

    private static boolean fromClient(ConnectionTrace t, PacketEvent e) {
        String host = e.isOrig() ? e.origH() : e.respH();
        int port = e.isOrig() ? e.origP() : e.respP();
        return host.equals(t.clientAddr()) && port == t.clientPort();
    }

    /** The side whose packets alone still carry an initial TTL: they left a host next to the sensor. */
    private static SensorRole byTtl(ConnectionTrace t) {
        boolean clientInitial = true;
        boolean serverInitial = true;
        for (PacketEvent e : t.captures().get(0).packets()) {
            boolean initial = INITIAL_TTLS.contains(e.ttl());
            if (fromClient(t, e)) {
                clientInitial &= initial;
            } else {
                serverInitial &= initial;
            }
        }
        return clientInitial == serverInitial ? SensorRole.UNKNOWN : clientInitial ? SensorRole.CLIENT : SensorRole.SERVER;
    }

    /** Next to the client the SYN waits a round trip for its SYN/ACK; next to the server the SYN/ACK waits for the ACK. */
    private static SensorRole byHandshake(ConnectionTrace t) {
        List<PacketEvent> p = t.captures().get(0).packets();
        if (p.size() < 3 || !p.get(0).hasFlag(TcpFlags.SYN) || !p.get(1).hasFlag(TcpFlags.SYN) || !p.get(1).hasFlag(TcpFlags.ACK)
                || p.get(2).hasFlag(TcpFlags.SYN) || !fromClient(t, p.get(2))) {
            return SensorRole.UNKNOWN;
        }
        long first = p.get(1).tsUs() - p.get(0).tsUs();
        long second = p.get(2).tsUs() - p.get(1).tsUs();
        return first > 10 * second ? SensorRole.CLIENT : second > 10 * first ? SensorRole.SERVER : SensorRole.UNKNOWN;
    }
}
