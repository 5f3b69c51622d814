package dev.critpath.core.offline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.lifecycle.LifecycleConfig;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Reading captures as a stream (connections finalised as they close or go quiet, analysed on a pool
 * of threads) changes no result: every row equals the analysis of each connection as a whole,
 * for every lab run in each of the three modes and every public capture. With the default close
 * grace a stray packet long after a close is counted instead of kept: then the rows are those of
 * the whole analysis without exactly the packets the stream reported.
 */
class StreamedAnalysisTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration DEFAULT_GRACE = Duration.ofSeconds(OfflineAnalysis.Settings.CLOSE_GRACE_S);

    /** A capture read as `analyze` reads it: file, sensor name and role. */
    private record Capture(Path file, String sensor, SensorRole role) {
        EventInput input() {
            return new PcapInput(file, sensor, role, Duration.ofSeconds(OfflineAnalysis.Settings.IDLE_TIMEOUT_S),
                    OfflineAnalysis.Settings.MAX_OPEN_CONNECTIONS);
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
                    DynamicTest.dynamicTest(run.name() + " two-point", () -> assertSameRows(List.of(client, server), DEFAULT_GRACE)),
                    DynamicTest.dynamicTest(run.name() + " server side", () -> assertSameRows(List.of(server), DEFAULT_GRACE)),
                    DynamicTest.dynamicTest(run.name() + " client side", () -> assertSameRows(List.of(client), DEFAULT_GRACE)));
        });
    }

    @TestFactory
    Stream<DynamicNode> publicCaptures() throws Exception {
        return publicCaptures(DEFAULT_GRACE);
    }

    /** Long enough for every stray packet in the public captures: nothing is left out, every row is the same. */
    @TestFactory
    Stream<DynamicNode> publicCapturesWithALongCloseGrace() throws Exception {
        return publicCaptures(Duration.ofSeconds(30));
    }

    private static Stream<DynamicNode> publicCaptures(Duration closeGrace) throws Exception {
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
            assertSameRows(List.of(c), closeGrace);
        }));
    }

    /**
     * The stream's rows, whichever thread analysed them, are those of the whole analysis of the
     * packets it kept; it kept every packet but the late ones it reported, and only with a close
     * grace shorter than a public capture's stray packets need. The order of the rows does not
     * depend on the threads.
     */
    private static void assertSameRows(List<Capture> captures, Duration closeGrace) throws Exception {
        Streamed oneThread = streamed(captures, closeGrace, 0);
        Streamed pooled = streamed(captures, closeGrace, 2);
        assertEquals(oneThread.rows(), pooled.rows(), "the order results come in depends on the analysis threads");
        assertTrue(oneThread.late().isEmpty() || closeGrace.compareTo(Duration.ofSeconds(30)) < 0,
                "packets left out with a close grace longer than any stray packet here: " + oneThread.late());
        List<PacketEvent> kept = new ArrayList<>();
        for (Capture c : captures) {
            c.events().stream().filter(e -> !oneThread.late().contains(e.sensor() + "#" + e.captureIndex())).forEach(kept::add);
        }
        List<String> whole = AnalysisRows.of(kept).stream().filter(r -> !r.containsKey("half_open")).map(StreamedAnalysisTest::json).sorted().toList();
        assertEquals(whole, oneThread.rows().stream().sorted().toList());
    }

    /** The rows in the order the stream gave them, and the packets it reported late (sensor#capture index). */
    private record Streamed(List<String> rows, Set<String> late) {
    }

    private static Streamed streamed(List<Capture> captures, Duration closeGrace, int threads) throws Exception {
        OfflineAnalysis.Settings defaults = OfflineAnalysis.Settings.defaults(threads);
        LifecycleConfig d = defaults.lifecycle();
        OfflineAnalysis analysis = new OfflineAnalysis(Analyzer.defaults(), Screen.defaults(), new OfflineAnalysis.Settings(
                new LifecycleConfig(closeGrace, d.idleTimeout(), d.allowedLateness(), d.maxEventsPerConnection(), d.segmentAfter(),
                        d.segmentQuiet(), d.maxFlows(), d.maxBufferedEvents(), d.maxHalfOpenFlows()), threads));
        Streamed out = new Streamed(new ArrayList<>(), new HashSet<>());
        analysis.run(captures.stream().map(Capture::input).toList(), new OfflineAnalysis.Output() {
            @Override
            public void analysed(ConnectionResult r, PathAnalysis.Rows which) {
                assertEquals(PathAnalysis.Rows.ALL, which, "no connection here is long enough to be cut into segments");
                out.rows().add(json(AnalysisRows.row(r)));
            }

            @Override
            public void rejected(Rejection r) {
                if (r.reason().equals(Rejection.LATE_EVENT)) {
                    out.late().add(r.event().sensor() + "#" + r.event().captureIndex());
                } else {
                    assertEquals(Rejection.HALF_OPEN, r.reason(), "only half-open flows and late packets are set aside: " + r.detail());
                }
            }
        }, p -> { });
        return out;
    }

    private static String json(Map<String, Object> row) {
        try {
            return JSON.writeValueAsString(row);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
