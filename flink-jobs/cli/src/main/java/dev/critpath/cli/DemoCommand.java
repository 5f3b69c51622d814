package dev.critpath.cli;

import dev.critpath.core.analysis.Analyzer;
import dev.critpath.core.analysis.ConnectionResult;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.pcap.PcapEvents;
import dev.critpath.core.trace.ConnectionAssembler;
import dev.critpath.core.trace.ConnectionTrace;
import dev.critpath.warehouse.ParquetTables;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * `critpath demo`: the bundled two-point captures of the trace lab through the analysis into a
 * local warehouse, then the blame summary read back from it.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Runs critpath on its bundled two-point captures (testdata/lab: real Linux connections with",
            "injected delays and losses) and prints where their time went. No set-up needed."})
final class DemoCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--fixtures", paramLabel = "DIR", description = "Lab runs to replay (default: testdata/lab of this checkout).")
    Path fixtures;

    @Option(names = "--warehouse", paramLabel = "DIR", description = "Where the Parquet tables go (default: ${DEFAULT-VALUE}).", defaultValue = "warehouse/demo")
    Path warehouse;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        Path dir = fixtures != null ? fixtures : Checkout.root().resolve("testdata/lab");
        List<Path> runs;
        try (Stream<Path> s = Files.list(dir)) {
            runs = s.filter(d -> Files.isRegularFile(d.resolve("client.pcap")) && Files.isRegularFile(d.resolve("server.pcap"))).sorted().toList();
        }
        if (runs.isEmpty()) {
            err.println("critpath demo: no lab runs (client.pcap + server.pcap) under " + dir);
            return 2;
        }
        Analyzer analyzer = Analyzer.defaults();
        List<ConnectionResult> results = new ArrayList<>();
        for (Path run : runs) {
            ConnectionAssembler as = new ConnectionAssembler();
            PcapEvents.readAll(run.resolve("client.pcap"), "client-side", SensorRole.CLIENT).forEach(as::add);
            PcapEvents.readAll(run.resolve("server.pcap"), "server-side", SensorRole.SERVER).forEach(as::add);
            List<ConnectionTrace> conns = as.connections();
            for (ConnectionTrace t : conns) {
                results.add(analyzer.analyze(t));
            }
            err.printf("  %-24s %3d connection%s analysed%n", run.getFileName(), conns.size(), conns.size() == 1 ? "" : "s");
        }
        clean(warehouse);
        ParquetTables.write(warehouse, results);
        BlameSummary.print(warehouse, spec.commandLine().getOut());
        return 0;
    }

    /** The demo owns its warehouse directory: start from empty so counts are this run's. */
    private static void clean(Path warehouse) throws java.io.IOException {
        if (!Files.exists(warehouse)) {
            return;
        }
        try (Stream<Path> s = Files.walk(warehouse)) {
            for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
