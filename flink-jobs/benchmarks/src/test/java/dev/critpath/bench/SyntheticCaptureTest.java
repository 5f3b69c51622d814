package dev.critpath.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.event.IpText;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.pcap.PcapEvents;
import dev.critpath.core.screen.ConnectionResult;
import dev.critpath.core.screen.Screen;
import dev.critpath.core.testing.Repo;
import dev.critpath.core.trace.ConnectionAssembler;
import dev.critpath.core.trace.ConnectionTrace;
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
        capture.write(out, 3);

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
