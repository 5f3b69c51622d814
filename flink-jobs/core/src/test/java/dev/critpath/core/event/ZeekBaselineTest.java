package dev.critpath.core.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import dev.critpath.core.analysis.ConnectionAnalysis;
import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.pcap.PcapEvents;
import dev.critpath.core.testing.LabFixtures;
import dev.critpath.core.testing.Repo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The Zeek package and the Java pcap reader hold to one contract even where Zeek cannot run: the
 * package's committed btest baselines (Zeek's own output on two lab captures, made and checked
 * with a Zeek built from source) must pass the JSON Schema and the codec, equal the Java reader's
 * events for the same captures field by field, and give identical profiles.
 */
class ZeekBaselineTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Test
    void zeeksEventsAreTheJavaReadersEventsAndGiveTheSameProfiles() throws Exception {
        List<PacketEvent> zeekClient = baseline("tests.client-site");
        List<PacketEvent> zeekServer = baseline("tests.server-site");
        Path lab = Repo.testdata("lab/sack-fast-retransmit");
        List<PacketEvent> javaClient = PcapEvents.readAll(lab.resolve("client.pcap"), "lab-client", SensorRole.CLIENT);
        List<PacketEvent> javaServer = PcapEvents.readAll(lab.resolve("server.pcap"), "lab-server", SensorRole.SERVER);
        assertSameEvents(javaClient, zeekClient);
        assertSameEvents(javaServer, zeekServer);

        ConnectionAnalysis fromZeek = Analyzer.defaults().analyze(LabFixtures.oneConnection(zeekClient, zeekServer));
        ConnectionAnalysis fromJava = Analyzer.defaults().analyze(LabFixtures.oneConnection(javaClient, javaServer));
        assertEquals(fromJava.profile().columns(), fromZeek.profile().columns());
        assertEquals(fromJava.arcColumns(), fromZeek.arcColumns());
        assertTrue(fromZeek.profile().fastRetransmits() >= 1, "the lab's dropped segment came back by fast retransmit");
    }

    /**
     * A loopback capture (both ends on 127.0.0.1): Zeek's own community_id_v1 orders such flows'
     * ports differently from the specification for port 53762 against 18080; the package hashes
     * them as the specification (and the Java reader, and the pipeline's check) does.
     */
    @Test
    void flowsWithOneAddressAtBothEndsHaveTheSpecificationsCommunityId() throws Exception {
        List<PacketEvent> zeek = baseline("tests.loopback");
        List<PacketEvent> java = PcapEvents.readAll(Repo.testdata("zeek/loopback-http.pcap"), "lo", SensorRole.UNKNOWN);
        assertSameEvents(java, zeek);
        assertTrue(zeek.stream().anyMatch(e -> e.origP() == 53762), "the port whose order Zeek gets wrong is there");
    }

    /**
     * The package's hand-made captures (zeek-scripts/testing/Traces): packet stamps that go
     * backwards, a capture that starts at the server's SYN/ACK (and holds a ping), packets longer
     * than they were on the wire, which Zeek discards and the package reads from their bytes.
     */
    @ParameterizedTest
    @CsvSource({
        "backwards-ts, lab-client, CLIENT",
        "synack-first, lab-server, SERVER",
        "truncated-ip-len, lab-client, CLIENT"})
    void theHandMadeCapturesGiveTheJavaReadersEvents(String trace, String sensor, SensorRole role) throws Exception {
        List<PacketEvent> zeek = baseline("tests." + trace);
        Path pcap = Repo.root().resolve("zeek-scripts/testing/Traces").resolve(trace + ".pcap");
        assertSameEvents(PcapEvents.readAll(pcap, sensor, role), zeek);
    }

    /** A baseline log: one JSON event per line, each valid by the JSON Schema and the codec. */
    private static List<PacketEvent> baseline(String test) throws Exception {
        Path log = Repo.root().resolve("zeek-scripts/testing/Baseline").resolve(test).resolve("critpath_packets.log");
        JsonSchema schema = PacketEventVectorsTest.jsonSchema();
        PacketEventJson codec = PacketEventJson.standard();
        List<PacketEvent> out = new ArrayList<>();
        for (String line : Files.readAllLines(log)) {
            if (line.isBlank() || line.startsWith("#")) {
                continue; // btest-diff headers
            }
            var errors = schema.validate(MAPPER.readTree(line));
            assertTrue(errors.isEmpty(), log + ": " + errors + " in " + line);
            out.add(codec.parse(line));
        }
        assertTrue(out.size() >= 5, log + " holds the connection");
        return out;
    }

    private static void assertSameEvents(List<PacketEvent> java, List<PacketEvent> zeek) {
        assertEquals(java.size(), zeek.size(), "one event per TCP packet");
        for (int i = 0; i < java.size(); i++) {
            assertEquals(PacketEventJson.toJson(java.get(i)), PacketEventJson.toJson(zeek.get(i)), "packet " + i);
        }
    }
}
