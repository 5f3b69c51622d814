package dev.critpath.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.critpath.core.analysis.AnalysisConfig;
import dev.critpath.core.analysis.ConnectionProfile;
import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.event.InvalidEventException;
import dev.critpath.core.event.JsonLines;
import dev.critpath.core.event.PacketEventJson;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.pcap.PcapEvents;
import dev.critpath.core.pcap.PcapFormatException;
import dev.critpath.core.pcap.PcapReader;
import dev.critpath.core.screen.ConnectionResult;
import dev.critpath.core.screen.Screen;
import dev.critpath.core.trace.ConnectionAssembler;
import dev.critpath.core.trace.ConnectionTrace;
import dev.critpath.kafka.Replay;
import dev.critpath.warehouse.ParquetTables;
import dev.critpath.warehouse.WarehouseTable;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** `critpath analyze`: offline critical path analysis of captures from one or two points. */
@Command(name = "analyze", mixinStandardHelpOptions = true, sortOptions = false,
        header = "Analyses captures or packet-event files offline and prints where each connection's time went.",
        description = {"Analyses the TCP connections in pcap/pcapng captures (or packet-event JSON lines) and prints, "
            + "per connection, where its time went along the critical path and whether it is worth a look.",
            "",
            "Give a capture from near the client, near the server, or both (their clocks need not be synchronised)."},
        footer = {"", "Examples:",
            "  critpath analyze --client-pcap client.pcap --server-pcap server.pcap",
            "  critpath analyze --server-pcap web01.pcap --top 20 --json out.jsonl",
            "  critpath analyze --events a.jsonl --events b.jsonl --sensor-role a=client"})
final class AnalyzeCommand implements Callable<Integer> {
    /** A packet event is a few hundred bytes; a longer line is not one. */
    private static final int MAX_EVENT_LINE_BYTES = 1 << 16;

    @Spec
    CommandSpec spec;

    @Mixin
    CaptureOptions captures;

    @Option(names = "--events", paramLabel = "FILE", description = "Packet events as JSON lines (schemas/packet-event.schema.json); repeatable.")
    List<Path> eventFiles = new ArrayList<>();

    @Option(names = "--sensor-role", paramLabel = "SENSOR=ROLE", description = "Where a sensor of --events sits: client or server (default: inferred from timing).")
    Map<String, String> sensorRoles = new LinkedHashMap<>();

    @Option(names = "--json", paramLabel = "FILE", description = "Also write one JSON object per connection (profile, exchanges, verdict) to FILE.")
    Path jsonOut;

    @Option(names = "--parquet", paramLabel = "DIR", description = "Also write the warehouse tables (profiles, exchanges, critical_path, screening) as Parquet under DIR.")
    Path parquetOut;

    @Option(names = "--arcs", description = "Include every critical-path arc in the JSON output and print the path of each connection.")
    boolean arcs;

    @Option(names = "--top", paramLabel = "N", description = "Print only N connections: those worth a look first, each group by screen score.")
    Integer top;

    @Option(names = "--all", description = "Print boring connections too (default: only with fewer than 50 connections).")
    boolean all;

    @Option(names = "--screen", paramLabel = "FILE", description = "Screen rules as properties (see docs/screening.md).")
    Path screenFile;

    @Option(names = "--initial-window", paramLabel = "SEGMENTS", description = "Sender initial window (default: ${DEFAULT-VALUE}).", defaultValue = "10")
    int initialWindow;

    @Option(names = "--rto-min-ms", paramLabel = "MS", description = "Sender minimum RTO (default: ${DEFAULT-VALUE}).", defaultValue = "200")
    long rtoMinMs;

    @Option(names = "--reno-inflation", description = "Model fast recovery with RFC 5681 window inflation instead of Linux PRR.")
    boolean renoInflation;

    @Option(names = "--quiet", description = "No progress output.")
    boolean quiet;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (captures.captures().isEmpty() && eventFiles.isEmpty()) {
            err.println("critpath analyze: give --client-pcap, --server-pcap, --pcap and/or --events (see --help)");
            return 2;
        }
        Progress progress = new Progress(err, quiet);
        ConnectionAssembler assembler = new ConnectionAssembler();
        try {
            for (Replay.Capture c : captures.captures()) {
                readPcap(c.file(), c.sensor(), c.role(), assembler, progress, err);
            }
            for (Path f : eventFiles) {
                readEvents(f, assembler, progress, err);
            }
        } catch (PcapFormatException e) {
            err.println("critpath analyze: " + e.getMessage());
            return 2;
        }
        List<ConnectionTrace> traces = assembler.connections();
        if (traces.isEmpty()) {
            err.println("critpath analyze: no TCP connections in the input");
            return 2;
        }
        Analyzer analyzer = new Analyzer(config());
        Screen screen = screen();
        List<ConnectionResult> results = new ArrayList<>();
        int failures = 0;
        int halfOpen = 0;
        for (ConnectionTrace t : traces) {
            if (t.isHalfOpen()) { // set aside as the stream sets them aside
                halfOpen++;
                progress.analysed(results.size() + failures + halfOpen, traces.size());
                continue;
            }
            try {
                results.add(screen.apply(analyzer.analyze(t)));
            } catch (RuntimeException | StackOverflowError e) { // over the work budget, or an engine bug on an odd trace
                failures++;
                err.println("critpath analyze: connection " + t.addresses() + " could not be analysed: " + e);
            }
            progress.analysed(results.size() + failures + halfOpen, traces.size());
        }
        progress.done();
        if (halfOpen > 0) { // said even with --quiet: these flows are in the input but not in the output
            err.println("critpath analyze: " + halfOpen + " half-open flow" + (halfOpen == 1 ? "" : "s")
                    + " (no answer, no payload: SYN floods, scans) set aside, not analysed");
        }
        results.sort(Comparator.comparingLong(r -> r.profile().startUs));
        new ResultTable(out).print(results, top, all || results.size() < 50, arcs);
        if (jsonOut != null) {
            writeJson(results, jsonOut);
            err.println("wrote " + results.size() + " connections to " + jsonOut);
        }
        if (parquetOut != null) {
            Map<WarehouseTable, List<Path>> files = ParquetTables.write(parquetOut, results);
            err.println("wrote Parquet tables under " + parquetOut + ": " + files.entrySet().stream()
                    .map(e -> e.getKey().tableName() + " (" + e.getValue().size() + " file" + (e.getValue().size() == 1 ? "" : "s") + ")").toList());
        }
        return failures == 0 ? 0 : 1;
    }

    private AnalysisConfig config() {
        Map<String, SensorRole> roles = new LinkedHashMap<>();
        sensorRoles.forEach((sensor, role) -> {
            SensorRole r = SensorRole.fromWire(role);
            if (r == null) {
                throw new IllegalArgumentException("--sensor-role " + sensor + "=" + role + ": role must be client or server");
            }
            roles.put(sensor, r);
        });
        return AnalysisConfig.builder().initialWindow(initialWindow).rtoMinUs(rtoMinMs * 1000).prr(!renoInflation)
                .sensorRoles(roles).build();
    }

    private Screen screen() throws IOException {
        if (screenFile == null) {
            return Screen.defaults();
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(screenFile)) {
            p.load(r);
        }
        return Screen.fromProperties(p, ConnectionProfile.empty().columns());
    }

    private static void readPcap(Path file, String sensor, SensorRole role, ConnectionAssembler assembler, Progress progress,
            PrintWriter err) throws IOException, PcapFormatException {
        progress.reading(file);
        PcapEvents events = new PcapEvents(sensor, role, 0);
        PcapReader.Stats stats = events.stream(file, e -> {
            assembler.add(e);
            progress.packet();
        });
        progress.readDone(file, stats.toString());
        if (stats.partialRead("analysed") != null) { // said even with --quiet: the capture is not all there
            err.println("critpath analyze: " + file + ": " + stats.partialRead("analysed"));
        }
    }

    private static void readEvents(Path file, ConnectionAssembler assembler, Progress progress, PrintWriter err) throws IOException {
        progress.reading(file);
        PacketEventJson codec = PacketEventJson.standard();
        Map<String, Integer> rejected = new LinkedHashMap<>();
        try (InputStream in = Files.newInputStream(file)) {
            JsonLines.read(in, MAX_EVENT_LINE_BYTES, (lineNo, line) -> {
                String reason;
                String why;
                if (line == null) {
                    reason = "LINE_TOO_LONG";
                    why = "longer than " + MAX_EVENT_LINE_BYTES + " bytes";
                } else if (JsonLines.isBlank(line)) {
                    return;
                } else {
                    try {
                        assembler.add(codec.parse(line));
                        progress.packet();
                        return;
                    } catch (InvalidEventException ex) {
                        reason = ex.error().name();
                        why = ex.getMessage();
                    } catch (RuntimeException | StackOverflowError ex) {
                        // a reader bug on some bytes costs that line, not the file
                        reason = "UNREADABLE";
                        why = ex.toString();
                    }
                }
                if (rejected.merge(reason, 1, Integer::sum) == 1) {
                    err.println(file + ":" + lineNo + ": rejected (" + reason + "): " + why);
                }
            });
        }
        progress.readDone(file, rejected.isEmpty() ? "all events valid" : "rejected events by reason: " + rejected);
    }

    private void writeJson(List<ConnectionResult> results, Path file) throws IOException {
        ObjectMapper mapper = new ObjectMapper().disable(SerializationFeature.INDENT_OUTPUT);
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (ConnectionResult r : results) {
                Map<String, Object> o = new LinkedHashMap<>(r.profileColumns());
                o.put("exchanges", r.exchanges().stream().map(x -> x.columns()).toList());
                o.put("screen", r.verdict().columns());
                if (arcs) {
                    o.put("critical_path", r.arcColumns());
                }
                w.write(mapper.writeValueAsString(o));
                w.newLine();
            }
        }
    }
}
