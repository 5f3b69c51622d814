package dev.critpath.core.offline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.critpath.core.analysis.ExchangeProfile;
import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.lifecycle.PathAnalysis;
import dev.critpath.core.lifecycle.Rejection;
import dev.critpath.core.pcap.PcapEvents;
import dev.critpath.core.pcap.PcapFormatException;
import dev.critpath.core.screen.ConnectionResult;
import dev.critpath.core.screen.Screen;
import dev.critpath.core.testing.AnalysisRows;
import dev.critpath.core.testing.LabFixtures;
import dev.critpath.core.testing.Peers;
import dev.critpath.core.testing.Skipped;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Reading captures as a stream (connections finalised as they close or go quiet, analysed on a pool
 * of threads) changes no result: every row equals the analysis of each connection as a whole,
 * for every lab run in each of the three modes and every public capture.
 */
class StreamedAnalysisTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A capture read as `analyze` reads it: file, sensor name and role. */
    private record Capture(Path file, String sensor, SensorRole role) {
        EventInput input() {
            return new PcapInput(file, sensor, role);
        }

        List<PacketEvent> events() throws Exception {
            return PcapEvents.readAll(file, sensor, role);
        }
    }

    @TestFactory
    Stream<DynamicNode> labRunsInEveryMode() {
        List<LabFixtures.Scenario> runs = LabFixtures.all();
        if (runs.isEmpty()) {
            return Skipped.because("no lab runs under testdata/lab");
        }
        return runs.stream().flatMap(run -> {
            Capture client = new Capture(run.dir().resolve("client.pcap"), "client-side", SensorRole.CLIENT);
            Capture server = new Capture(run.dir().resolve("server.pcap"), "server-side", SensorRole.SERVER);
            return Stream.of(
                    DynamicTest.dynamicTest(run.name() + " two-point", () -> assertSameRows(List.of(client, server))),
                    DynamicTest.dynamicTest(run.name() + " server side", () -> assertSameRows(List.of(server))),
                    DynamicTest.dynamicTest(run.name() + " client side", () -> assertSameRows(List.of(client))));
        });
    }

    @TestFactory
    Stream<DynamicNode> publicCaptures() throws Exception {
        List<Path> files = Peers.publicCaptures();
        if (files.isEmpty()) {
            return Skipped.because("no public captures under ../shared/traces/public (optional on a fresh clone)");
        }
        return files.stream().map(f -> DynamicTest.dynamicTest(f.getFileName().toString(), () -> {
            Capture c = new Capture(f, f.getFileName().toString(), SensorRole.UNKNOWN);
            try {
                c.events();
            } catch (PcapFormatException e) {
                return; // not a capture critpath reads: both ways say so alike (PcapReaderTest)
            }
            assertSameRows(List.of(c));
        }));
    }

    /** The stream's rows, whichever thread analysed them, are those of the whole analysis; their order does not depend on the threads. */
    private static void assertSameRows(List<Capture> captures) throws Exception {
        List<PacketEvent> events = new ArrayList<>();
        for (Capture c : captures) {
            events.addAll(c.events());
        }
        List<String> whole = AnalysisRows.of(events).stream().filter(r -> !r.containsKey("half_open")).map(StreamedAnalysisTest::json).sorted().toList();
        List<String> oneThread = streamed(captures, 0);
        List<String> pooled = streamed(captures, 2);
        assertEquals(oneThread, pooled, "the order results come in depends on the analysis threads");
        assertTrue(!whole.isEmpty() || oneThread.isEmpty());
        assertEquals(whole, oneThread.stream().sorted().toList());
    }

    private static List<String> streamed(List<Capture> captures, int threads) throws Exception {
        OfflineAnalysis analysis = new OfflineAnalysis(Analyzer.defaults(), Screen.defaults(), OfflineAnalysis.Settings.defaults(threads));
        List<String> rows = new ArrayList<>();
        analysis.run(captures.stream().map(Capture::input).toList(), new OfflineAnalysis.Output() {
            @Override
            public void analysed(ConnectionResult r, PathAnalysis.Rows which) {
                assertEquals(PathAnalysis.Rows.ALL, which, "no connection here is long enough to be cut into segments");
                rows.add(json(row(r)));
            }

            @Override
            public void rejected(Rejection r) {
                assertEquals(Rejection.HALF_OPEN, r.reason(), "only half-open flows are set aside: " + r.detail());
            }
        }, p -> { });
        return rows;
    }

    /** The row AnalysisRows makes of a connection. */
    private static Map<String, Object> row(ConnectionResult r) {
        Map<String, Object> row = new LinkedHashMap<>(r.profileColumns());
        row.put("exchanges", r.exchanges().stream().map(ExchangeProfile::columns).toList());
        row.put("screen", r.verdict().columns());
        row.put("critical_path", r.arcColumns());
        return row;
    }

    private static String json(Map<String, Object> row) {
        try {
            return JSON.writeValueAsString(row);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
