package dev.critpath.core.analysis.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.critpath.core.analysis.ConnectionProfile;
import dev.critpath.core.analysis.Direction;
import dev.critpath.core.analysis.LossCause;
import dev.critpath.core.analysis.PacketKind;
import dev.critpath.core.analysis.PacketSighting;
import dev.critpath.core.testing.LabFixtures;
import dev.critpath.core.testing.LabFixtures.Connection;
import dev.critpath.core.testing.LabFixtures.Scenario;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * The `packets` table's rows (what a time-sequence plot draws) against the lab's ground truth:
 * one row per packet each sensor captured, and the re-sends marked by class as each sender's
 * kernel counted them.
 */
class PacketSightingsTest {
    private static final Set<PacketKind> RESENDS = Set.of(PacketKind.FAST_RETRANSMIT, PacketKind.TIMEOUT, PacketKind.BACKOFF,
            PacketKind.TAIL_LOSS_PROBE, PacketKind.SYN_ACK_AGAIN, PacketKind.FIN_AGAIN, PacketKind.SPURIOUS);

    @Test
    void eachSensorHasARowPerPacketItCaptured() {
        List<String> wrong = new ArrayList<>();
        for (Scenario s : scenarios()) {
            if (s.truth().get("config").get("offload").asBoolean()) {
                continue; // the cleaner splits super-segments into MSS pieces, a row each
            }
            for (Connection c : s.connections()) {
                List<PacketSighting> rows = c.result().analysis().packets().sightings();
                ConnectionProfile p = c.result().profile();
                JsonNode capture = c.truth().get("capture");
                long atClient = rows.stream().filter(r -> r.sensor().equals(p.clientSensor)).count();
                long atServer = rows.stream().filter(r -> r.sensor().equals(p.serverSensor)).count();
                long dups = p.columns().get("duplicates_removed") instanceof Integer n ? n : ((Number) p.columns().get("duplicates_removed")).longValue();
                if (atClient + atServer + dups != capture.get("client_packets").asLong() + capture.get("server_packets").asLong()
                        || atClient > capture.get("client_packets").asLong() || atServer > capture.get("server_packets").asLong()) {
                    wrong.add(s.name() + ":" + c.clientPort() + " rows " + atClient + "/" + atServer + " (+" + dups + " duplicates removed), captured "
                            + capture.get("client_packets") + "/" + capture.get("server_packets"));
                }
            }
        }
        assertEquals(List.of(), wrong);
    }

    @Test
    void reSendsAreMarkedByClassAsTheSendersKernelCountedThem() {
        List<String> wrong = new ArrayList<>();
        for (Scenario s : scenarios()) {
            for (Connection c : s.connections()) {
                List<PacketSighting> sent = c.result().analysis().packets().sightings().stream().filter(PacketSighting::sent).toList();
                for (Direction d : Direction.values()) {
                    JsonNode k = c.truth().get("kernel").get(d == Direction.C2S ? "client" : "server");
                    String where = s.name() + ":" + c.clientPort() + " " + d.key() + " ";
                    check(wrong, where + "retransmitted segments", k.get("TcpRetransSegs").asLong(),
                            count(sent, d, r -> RESENDS.contains(r.kind())));
                    check(wrong, where + "fast retransmits", k.get("TcpExtTCPFastRetrans").asLong(),
                            count(sent, d, r -> r.lossCause() == LossCause.FAST_RETRANSMIT));
                    // a probe critpath says an RTO fits as well ("probe or timeout") may be either in the kernel's counts
                    long kernelProbes = k.get("TcpExtTCPLossProbes").asLong();
                    long probes = count(sent, d, r -> r.lossCause() == LossCause.TAIL_LOSS_PROBE);
                    long probesOrTimeouts = (d == Direction.C2S ? c.result().profile().c2s : c.result().profile().s2c).probesOrTimeouts;
                    check(wrong, where + "timer re-sends, probes included, and those clocked out after them",
                            k.get("TcpExtTCPTimeouts").asLong() + k.get("TcpExtTCPSlowStartRetrans").asLong() + kernelProbes,
                            count(sent, d, r -> LossCause.byRetransmissionTimer(r.lossCause())) + probes);
                    if (kernelProbes > probes || probes - kernelProbes > probesOrTimeouts) {
                        wrong.add(where + "tail loss probes: kernel " + kernelProbes + ", rows " + probes + " (" + probesOrTimeouts + " probe or timeout)");
                    }
                }
            }
        }
        assertEquals(List.of(), wrong);
    }

    @Test
    void duplicateAcksAndSpuriousReSendsAreTheProfilesAndZeroWindowsTheReceiversKernels() {
        for (Scenario s : scenarios()) {
            for (Connection c : s.connections()) {
                List<PacketSighting> rows = c.result().analysis().packets().sightings();
                long dupAckTxs = rows.stream().filter(r -> r.kind() == PacketKind.DUP_ACK).mapToInt(PacketSighting::txIndex).distinct().count();
                assertEquals(((Number) c.result().profile().columns().get("dup_acks")).longValue(), dupAckTxs, s.name());
                long spuriousTxs = rows.stream().filter(r -> r.kind() == PacketKind.SPURIOUS).mapToInt(PacketSighting::txIndex).distinct().count();
                assertEquals(((Number) c.result().profile().columns().get("spurious_retransmissions")).longValue(), spuriousTxs, s.name());
            }
        }
        Connection slowReader = LabFixtures.scenario("zero-window").connections().get(0);
        List<PacketSighting> readerSent = slowReader.result().analysis().packets().sightings().stream()
                .filter(r -> r.sent() && r.direction() == Direction.C2S).toList();
        long closes = 0;
        for (int i = 0; i < readerSent.size(); i++) {
            if (readerSent.get(i).kind() == PacketKind.ZERO_WINDOW && (i == 0 || readerSent.get(i - 1).kind() != PacketKind.ZERO_WINDOW)) {
                closes++;
            }
        }
        assertEquals(slowReader.truth().get("kernel").get("client").get("TcpExtTCPToZeroWindowAdv").asLong(), closes,
                "times the reader closed its window");
    }

    private static long count(List<PacketSighting> rows, Direction d, Predicate<PacketSighting> which) {
        return rows.stream().filter(r -> r.direction() == d && which.test(r)).count();
    }

    private static void check(List<String> wrong, String what, long kernel, long rows) {
        if (kernel != rows) {
            wrong.add(what + ": kernel " + kernel + ", rows " + rows);
        }
    }

    private static List<Scenario> scenarios() {
        List<Scenario> all = LabFixtures.all();
        assumeTrue(!all.isEmpty(), "no lab fixtures");
        return all;
    }
}
