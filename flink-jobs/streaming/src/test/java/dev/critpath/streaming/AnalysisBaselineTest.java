package dev.critpath.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.screen.ConnectionResult;
import dev.critpath.core.screen.Screen;
import dev.critpath.core.testing.Peers;
import dev.critpath.core.testing.Repo;
import dev.critpath.core.trace.ConnectionAssembler;
import dev.critpath.core.trace.ConnectionTrace;
import dev.critpath.kafka.Replay;
import dev.critpath.warehouse.AvroRows;
import dev.critpath.warehouse.WarehouseTable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Issue 17's guard while the engine is reshaped: every row of every table, for every lab run in
 * each of the three modes and every public capture, is what it was before the reshaping began.
 * The baseline holds a digest per input and table (the rows themselves would be megabytes); on a
 * difference, the input and table it names are where to look. Written once with
 * {@code -Dcritpath.baseline.write=true}; deleted when issue 17 is resolved.
 */
class AnalysisBaselineTest {
    private static final Path BASELINE = Repo.testdata("baselines/analysis-before-reshaping.tsv");

    @Test
    void everyRowIsWhatItWasBeforeTheEngineWasReshaped() throws Exception {
        Map<String, String> now = new TreeMap<>();
        for (Path run : LabReplay.scenarios()) {
            String name = "lab/" + run.getFileName();
            Replay.Capture client = new Replay.Capture(run.resolve("client.pcap"), "lab-client", SensorRole.CLIENT);
            Replay.Capture server = new Replay.Capture(run.resolve("server.pcap"), "lab-server", SensorRole.SERVER);
            digest(now, name + " two captures", List.of(client, server));
            digest(now, name + " client side", List.of(client));
            digest(now, name + " server side", List.of(server));
        }
        List<Path> publicCaptures = Peers.publicCaptures();
        Path publicDir = Repo.shared("traces/public");
        for (Path f : publicCaptures) {
            digest(now, "public/" + publicDir.relativize(f), List.of(new Replay.Capture(f, f.getFileName().toString(), SensorRole.UNKNOWN)));
        }
        if (Boolean.getBoolean("critpath.baseline.write")) {
            Files.createDirectories(BASELINE.getParent());
            List<String> lines = new ArrayList<>();
            now.forEach((k, v) -> lines.add(k + "\t" + v));
            Files.write(BASELINE, lines);
            return;
        }
        Map<String, String> before = new TreeMap<>();
        for (String line : Files.readAllLines(BASELINE)) {
            int valueAt = line.indexOf('\t', line.indexOf('\t') + 1); // input, table; then the value
            // without the shared public captures (a fresh clone), the lab runs are still compared
            if (!publicCaptures.isEmpty() || !line.startsWith("public/")) {
                before.put(line.substring(0, valueAt), line.substring(valueAt + 1));
            }
        }
        assertEquals(before.keySet(), now.keySet(), "the same inputs and tables");
        List<String> changed = new ArrayList<>();
        before.forEach((k, v) -> {
            if (!v.equals(now.get(k))) {
                changed.add(k + ": " + v + " before, " + now.get(k) + " now");
            }
        });
        assertEquals(List.of(), changed, "rows changed");
    }

    /** Row count and digest of each table's rows (sorted), or why the input could not be analysed. */
    private static void digest(Map<String, String> out, String input, List<Replay.Capture> captures) throws Exception {
        List<PacketEvent> events;
        try {
            events = Replay.events(captures);
        } catch (Exception e) {
            out.put(input + "\tunreadable", e.getClass().getSimpleName());
            return;
        }
        ConnectionAssembler assembler = new ConnectionAssembler();
        events.forEach(assembler::add);
        Analyzer analyzer = Analyzer.defaults();
        Screen screen = Screen.defaults();
        Map<WarehouseTable, List<String>> rows = new TreeMap<>();
        List<String> failures = new ArrayList<>();
        for (ConnectionTrace t : assembler.connections()) {
            ConnectionResult r;
            try {
                r = screen.apply(analyzer.analyze(t));
            } catch (RuntimeException | StackOverflowError e) {
                failures.add(t.addresses() + " " + e.getClass().getSimpleName());
                continue;
            }
            for (WarehouseTable table : WarehouseTable.values()) {
                for (Map<String, Object> row : table.rows(r)) {
                    rows.computeIfAbsent(table, k -> new ArrayList<>()).add(String.join("|", LabReplay.normalised(AvroRows.toRecord(table.schema(), row))));
                }
            }
        }
        rows.forEach((table, lines) -> out.put(input + "\t" + table.tableName(), lines.size() + "\t" + sha256(lines)));
        if (!failures.isEmpty()) {
            out.put(input + "\tnot analysed", failures.size() + "\t" + sha256(failures));
        }
    }

    private static String sha256(List<String> lines) {
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java has SHA-256", e);
        }
        for (String l : lines.stream().sorted().toList()) {
            md.update(l.getBytes(StandardCharsets.UTF_8));
            md.update((byte) '\n');
        }
        return HexFormat.of().formatHex(md.digest(), 0, 12);
    }
}
