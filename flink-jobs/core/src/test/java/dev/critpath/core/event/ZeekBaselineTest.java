package dev.critpath.core.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import dev.critpath.core.pcap.PcapEvents;
import dev.critpath.core.testing.Repo;
import dev.critpath.core.testing.ZeekLabEvents;
import dev.critpath.core.testing.ZeekSensor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Zeek package and the Java pcap reader hold to one contract even where Zeek cannot run, on
 * Zeek's own output committed with a Zeek built from source (ZeekEqualityTest checks, where Zeek
 * is installed, that it is still what Zeek writes): its events for every lab capture
 * (testdata/zeek/lab, from zeek-scripts/tools/lab-events) pass the JSON Schema and give the Java
 * reader's analysis rows, and the package's btest baselines are the Java reader's events field by
 * field.
 */
class ZeekBaselineTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    static List<String> labScenarios() throws Exception {
        return ZeekLabEvents.scenarios();
    }

    @ParameterizedTest
    @MethodSource("labScenarios")
    void zeeksEventsForEveryLabCaptureGiveTheJavaReadersAnalysis(String scenario) throws Exception {
        for (String side : ZeekLabEvents.SIDES) {
            assertValid(ZeekLabEvents.lines(ZeekLabEvents.committed(), scenario, side), scenario + "/" + side);
        }
        ZeekLabEvents.assertJavaReaderAgrees(ZeekLabEvents.committed(), scenario);
    }

    /** A new or renamed lab scenario needs Zeek's events too (zeek-scripts/tools/lab-events), and a gone one none. */
    @Test
    void zeeksLabEventsAreThoseOfTheLabsScenarios() throws Exception {
        try (Stream<Path> dirs = Files.list(ZeekLabEvents.committed())) {
            assertEquals(ZeekLabEvents.scenarios(), dirs.map(d -> d.getFileName().toString()).sorted().toList());
        }
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
     * The btests on a lab connection as each site's sensor logs it, and on the package's hand-made
     * captures (zeek-scripts/testing/Traces): packet stamps that go backwards, a capture that starts
     * at the server's SYN/ACK (and holds a ping), packets longer than they were on the wire, which
     * Zeek discards and the package reads from their bytes.
     */
    @ParameterizedTest
    @CsvSource({
        "client-site, testdata/lab/sack-fast-retransmit/client.pcap, lab-client, CLIENT",
        "server-site, testdata/lab/sack-fast-retransmit/server.pcap, lab-server, SERVER",
        "backwards-ts, zeek-scripts/testing/Traces/backwards-ts.pcap, lab-client, CLIENT",
        "synack-first, zeek-scripts/testing/Traces/synack-first.pcap, lab-server, SERVER",
        "truncated-ip-len, zeek-scripts/testing/Traces/truncated-ip-len.pcap, lab-client, CLIENT"})
    void theBtestBaselinesAreTheJavaReadersEvents(String test, String capture, String sensor, SensorRole role) throws Exception {
        List<PacketEvent> zeek = baseline("tests." + test);
        assertSameEvents(PcapEvents.readAll(Repo.root().resolve(capture), sensor, role), zeek);
    }

    /** A btest baseline log: one JSON event per line, each valid by the JSON Schema and the codec. */
    private static List<PacketEvent> baseline(String test) throws Exception {
        Path log = Repo.root().resolve("zeek-scripts/testing/Baseline").resolve(test).resolve("critpath_packets.log");
        List<String> lines = Files.readAllLines(log).stream()
                .filter(line -> !line.isBlank() && !line.startsWith("#")) // btest-diff headers
                .toList();
        assertValid(lines, log.toString());
        assertTrue(lines.size() >= 5, log + " holds the connection");
        return ZeekSensor.parse(lines);
    }

    private static void assertValid(List<String> events, String where) throws Exception {
        JsonSchema schema = PacketEventVectorsTest.jsonSchema();
        for (String line : events) {
            var errors = schema.validate(MAPPER.readTree(line));
            assertTrue(errors.isEmpty(), where + ": " + errors + " in " + line);
        }
    }

    private static void assertSameEvents(List<PacketEvent> java, List<PacketEvent> zeek) {
        assertEquals(java.size(), zeek.size(), "one event per TCP packet");
        for (int i = 0; i < java.size(); i++) {
            assertEquals(PacketEventJson.toJson(java.get(i)), PacketEventJson.toJson(zeek.get(i)), "packet " + i);
        }
    }
}
