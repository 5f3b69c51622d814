package dev.critpath.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.critpath.core.analysis.AnalysisConfig;
import dev.critpath.core.analysis.ConnectionProfile;
import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.lifecycle.PathAnalysis;
import dev.critpath.core.lifecycle.Rejection;
import dev.critpath.core.offline.EventFileInput;
import dev.critpath.core.offline.EventInput;
import dev.critpath.core.offline.InputFailedException;
import dev.critpath.core.offline.OfflineAnalysis;
import dev.critpath.core.offline.PcapInput;
import dev.critpath.core.screen.ConnectionResult;
import dev.critpath.core.screen.Screen;
import dev.critpath.kafka.Replay;
import dev.critpath.warehouse.BackgroundTables;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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

/**
 * `critpath analyze`: offline critical path analysis of captures from one or two points, read once
 * as a stream: memory is bounded by the connections open at one time, not by the capture's length.
 */
@Command(name = "analyze", mixinStandardHelpOptions = true, sortOptions = false,
        header = "Analyses captures or packet-event files offline and prints where each connection's time went.",
        description = {"Analyses the TCP connections in pcap/pcapng captures (or packet events, JSON or Avro) and prints, "
            + "per connection, where its time went along the critical path and whether it is worth a look.",
            "",
            "Give a capture from near the client, near the server, or both (their clocks need not be synchronised).",
            "",
            "Captures of any length: packets are read once, and each connection is analysed when it closes or goes "
            + "quiet, written out and dropped, so memory is bounded by the connections open at one time "
            + "(--max-open-connections, --max-buffered-packets). Event files must each be one sensor's log in its own order."},
        footer = {"", "Examples:",
            "  critpath analyze --client-pcap client.pcap --server-pcap server.pcap",
            "  critpath analyze --server-pcap web01.pcap --top 20 --json out.jsonl",
            "  critpath analyze --events a.jsonl --events b.jsonl --sensor-role a=client"})
final class AnalyzeCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    CaptureOptions captures;

    @Option(names = "--events", paramLabel = "FILE", description = "Packet events as JSON lines (schemas/packet-event.schema.json) or Avro "
        + "single-object records one after another (packet-event.avsc, the compiled Zeek sensor's critpath_packets.avro), gzip or not; repeatable.")
    List<Path> eventFiles = new ArrayList<>();

    @Option(names = "--sensor-role", paramLabel = "SENSOR=ROLE", description = "Where a sensor of --events sits: client or server (default: inferred from timing).")
    Map<String, String> sensorRoles = new LinkedHashMap<>();

    @Option(names = "--json", paramLabel = "FILE", description = "Also write one JSON object per connection (profile, exchanges, verdict) to FILE.")
    Path jsonOut;

    @Option(names = "--parquet", paramLabel = "DIR", description = "Also write the warehouse tables (profiles, exchanges, critical_path, screening, and packets of the connections worth a look) as Parquet under DIR.")
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

    @Option(names = "--max-open-connections", paramLabel = "N",
            description = "Connections open at one time at most, each at most "
                    + OfflineAnalysis.Settings.BYTES_PER_OPEN_CONNECTION
                    + " bytes of heap besides its packets; beyond, new ones are refused and counted, and the capture reader keeps the orientation of as many flows (default: "
                    + OfflineAnalysis.Settings.MAX_OPEN_CONNECTIONS + ", or what a quarter of the Java heap holds if less).")
    Integer maxOpenConnections;

    @Option(names = "--max-buffered-packets", paramLabel = "N",
            description = "Packets held at one time at most, each at most " + OfflineAnalysis.Settings.BYTES_PER_BUFFERED_PACKET + " bytes of heap "
                    + "(default: " + OfflineAnalysis.Settings.MAX_BUFFERED_PACKETS + ", or what half the Java heap holds if less); "
                    + "with --max-open-connections this bounds the memory, whatever the capture's length.")
    Long maxBufferedPackets;

    @Option(names = "--idle-timeout", paramLabel = "SECONDS", defaultValue = "" + OfflineAnalysis.Settings.IDLE_TIMEOUT_S,
            description = "A connection quiet this long is analysed as it stands (default: ${DEFAULT-VALUE}).")
    long idleTimeoutS;

    @Option(names = "--close-grace", paramLabel = "SECONDS", defaultValue = "" + OfflineAnalysis.Settings.CLOSE_GRACE_S,
            description = "A closed connection waits this long for stray packets before it is analysed (default: ${DEFAULT-VALUE}).")
    long closeGraceS;

    @Option(names = "--threads", paramLabel = "N",
            description = "Threads analysing connections (default: one per core; 0 analyses on the reading thread).")
    Integer threads;

    @Option(names = "--quiet", description = "No progress or reading summaries.")
    boolean quiet;

    @Option(names = "--progress", description = "Progress lines even when stderr is not a terminal.")
    boolean progress;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (captures.captures().isEmpty() && eventFiles.isEmpty()) {
            err.println("critpath analyze: give --client-pcap, --server-pcap, --pcap and/or --events (see --help)");
            return 2;
        }
        if (maxOpenConnections != null && maxOpenConnections < 1 || maxBufferedPackets != null && maxBufferedPackets < 1) {
            err.println("critpath analyze: --max-open-connections and --max-buffered-packets are 1 or more");
            return 2;
        }
        long heap = Runtime.getRuntime().maxMemory();
        int maxOpen = maxOpenConnections != null ? maxOpenConnections : OfflineAnalysis.Settings.maxOpenConnections(heap);
        List<EventInput> inputs = new ArrayList<>();
        for (Replay.Capture c : captures.captures()) {
            inputs.add(new PcapInput(c.file(), c.sensor(), c.role(), Duration.ofSeconds(idleTimeoutS), maxOpen));
        }
        for (Path f : eventFiles) {
            inputs.add(new EventFileInput(f, err::println));
        }
        int analysisThreads = threads != null ? threads : Runtime.getRuntime().availableProcessors();
        OfflineAnalysis analysis = new OfflineAnalysis(new Analyzer(config()), screen(), new OfflineAnalysis.Settings(
                OfflineAnalysis.Settings.lifecycle(Duration.ofSeconds(closeGraceS), Duration.ofSeconds(idleTimeoutS), maxOpen,
                        maxBufferedPackets != null ? maxBufferedPackets : OfflineAnalysis.Settings.maxBufferedPackets(heap)), analysisThreads));
        ResultTable table = new ResultTable(out, top, all, arcs);
        Outputs outputs = new Outputs(table, err);
        OfflineAnalysis.Totals totals;
        try (outputs) {
            totals = analysis.run(inputs, outputs, progress || (!quiet && System.console() != null) ? new Progress(err) : p -> { });
        } catch (InputFailedException e) {
            err.println("critpath analyze: " + e.getMessage());
            return 2;
        }
        for (EventInput in : inputs) {
            if (!quiet) {
                err.println(in.name() + ": " + in.summary());
            }
            if (in.partialRead() != null) { // said even with --quiet: the capture is not all there
                err.println("critpath analyze: " + in.name() + ": " + in.partialRead());
            }
        }
        if (!quiet) {
            totals.notes().forEach(err::println);
        }
        sayRejections(totals.rejected(), err);
        if (totals.events() == 0) {
            err.println("critpath analyze: no TCP packets in the input");
            return 2;
        }
        table.print();
        if (jsonOut != null) {
            err.println("wrote " + outputs.jsonRows + " connections to " + jsonOut);
        }
        if (parquetOut != null) {
            err.println("wrote Parquet tables under " + parquetOut + ": " + outputs.parquet.written().entrySet().stream()
                    .map(e -> e.getKey().tableName() + " (" + e.getValue().size() + " file" + (e.getValue().size() == 1 ? "" : "s") + ")").toList());
        }
        return outputs.failures == 0 ? 0 : 1;
    }

    /** Input that was read but not analysed, said even with --quiet. */
    private static void sayRejections(Map<String, Long> rejected, PrintWriter err) {
        long halfOpen = rejected.getOrDefault(Rejection.HALF_OPEN, 0L);
        if (halfOpen > 0) {
            err.println("critpath analyze: " + halfOpen + " half-open flow" + (halfOpen == 1 ? "" : "s")
                    + " (no payload, no handshake completed: SYN floods, scans) set aside, not analysed");
        }
        long late = rejected.getOrDefault(Rejection.LATE_EVENT, 0L);
        if (late > 0) {
            err.println("critpath analyze: " + late + " packet" + (late == 1 ? "" : "s") + " came after their connection was analysed"
                    + " (more than --close-grace after its close, or --idle-timeout after its last packet): not analysed");
        }
        long refused = rejected.getOrDefault(Rejection.FLOW_TABLE_FULL, 0L);
        if (refused > 0) {
            err.println("critpath analyze: " + refused + " packet" + (refused == 1 ? "" : "s") + " of new connections refused while "
                    + "--max-open-connections or --max-buffered-packets was reached: not analysed; raise them (memory permitting)");
        }
    }

    /** Where each result goes as it comes: the table's rows, the JSON lines, the Parquet tables. */
    private final class Outputs implements OfflineAnalysis.Output, AutoCloseable {
        private final ResultTable table;
        private final PrintWriter err;
        /** Made only for --json: building one costs a tenth of a second of a short run's start. */
        private final ObjectMapper mapper;
        private final BufferedWriter json;
        final BackgroundTables parquet;
        long jsonRows;
        int failures;

        Outputs(ResultTable table, PrintWriter err) throws IOException {
            this.table = table;
            this.err = err;
            this.json = jsonOut == null ? null : Files.newBufferedWriter(jsonOut, StandardCharsets.UTF_8);
            this.mapper = jsonOut == null ? null : new ObjectMapper().disable(SerializationFeature.INDENT_OUTPUT);
            this.parquet = parquetOut == null ? null : new BackgroundTables(parquetOut);
        }

        @Override
        public void analysed(ConnectionResult r, PathAnalysis.Rows rows) throws IOException {
            if (parquet != null) {
                parquet.add(r, rows);
            }
            if (rows == PathAnalysis.Rows.SEGMENT) {
                return; // its exchanges and path are in the tables; the connection's row comes with its end
            }
            table.add(r);
            if (json != null) {
                writeJson(r);
            }
        }

        @Override
        public void rejected(Rejection r) {
            if (r.reason().equals(Rejection.ANALYSIS_FAILED) || r.reason().equals(Rejection.ANALYSIS_BUDGET_EXCEEDED)) {
                failures++; // over the work budget, or an engine bug on an odd trace
                err.println("critpath analyze: connection " + r.event().origH() + ":" + r.event().origP() + " > " + r.event().respH()
                        + ":" + r.event().respP() + " could not be analysed: " + r.detail());
            }
        }

        private void writeJson(ConnectionResult r) throws IOException {
            Map<String, Object> o = new LinkedHashMap<>(r.profileColumns());
            o.put("exchanges", r.exchanges().stream().map(x -> x.columns()).toList());
            o.put("screen", r.verdict().columns());
            if (arcs) {
                o.put("critical_path", r.arcColumns());
            }
            json.write(mapper.writeValueAsString(o));
            json.newLine();
            jsonRows++;
        }

        @Override
        public void close() throws IOException {
            if (json != null) {
                json.close();
            }
            if (parquet != null) {
                parquet.close();
            }
        }
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

    /** Packets are kept only for the warehouse's `packets` table: without --parquet nothing writes them. */
    private Screen screen() throws IOException {
        Screen screen;
        if (screenFile == null) {
            screen = Screen.defaults();
        } else {
            Properties p = new Properties();
            try (Reader r = Files.newBufferedReader(screenFile)) {
                p.load(r);
            }
            screen = Screen.fromProperties(p, ConnectionProfile.empty().columns());
        }
        return parquetOut != null ? screen : screen.keepingNoPackets();
    }
}
