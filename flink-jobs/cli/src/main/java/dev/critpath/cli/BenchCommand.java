package dev.critpath.cli;

import dev.critpath.bench.OfflineBench;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** `critpath bench`: the options of {@link OfflineBench}, the lab runs of this checkout by default. */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
        header = "Measures critpath analyze next to tcptrace -l -n on large captures, as whole processes.",
        description = {"Builds a large server-side capture of overlapping copies of the bundled lab captures, ones some times "
            + "as long with the same connections open at a time (--lengths), and a SYN flood; runs `critpath analyze` and `tcptrace -l -n` "
            + "(if installed) on each, alternated, and reports wall time, CPU time and peak memory of each process; critpath "
            + "alone on the flood answered by SYN cookies and on the flood with every handshake completed and left open; then the "
            + "core engine alone on one thread. Prints a table; docs/performance.md records the figures."})
final class BenchCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--copies", paramLabel = "N", description = "Copies of the lab's server-side captures (default: ${DEFAULT-VALUE}, about 4.9 million packets with the bundled lab captures).", defaultValue = "266")
    int copies;

    @Option(names = "--spacing-ms", paramLabel = "MS", description = "How far apart the copies start; below the lab captures' span they overlap (default: ${DEFAULT-VALUE}).", defaultValue = "5")
    double spacingMs;

    @Option(names = "--syn-flood", paramLabel = "N", description = "SYNs in each flood capture; 0 for none (default: ${DEFAULT-VALUE}).", defaultValue = "1000000")
    int synFlood;

    @Option(names = "--lengths", paramLabel = "N", split = ",", description = "How many times as long as the capture the compared "
            + "captures are, with the same connections open at a time (default: ${DEFAULT-VALUE}; 8 and 16 write 4.5 and 9 GB with the bundled "
            + "lab captures, one at a time).", defaultValue = "1,2")
    List<Integer> lengths;

    @Option(names = "--iterations", paramLabel = "N", description = "Timed runs of each measurement after one warm-up (default: ${DEFAULT-VALUE}); fastest, median and slowest are reported.", defaultValue = "3")
    int iterations;

    @Option(names = "--work-dir", paramLabel = "DIR", description = "Where the captures are written (default: a temporary directory, removed afterwards).")
    Path workDir;

    @Option(names = "--fixtures", paramLabel = "DIR", description = "Lab runs to copy (default: testdata/lab of this checkout).")
    Path fixtures;

    @Override
    public Integer call() throws Exception {
        if (lengths.stream().anyMatch(n -> n < 1)) {
            spec.commandLine().getErr().println("critpath bench: --lengths are 1 or more, not " + lengths);
            return 2;
        }
        new OfflineBench(copies, Math.round(spacingMs * 1000), synFlood, iterations, lengths).run(fixtures != null ? fixtures : Checkout.labRuns(),
                critpathCommand(), workDir, spec.commandLine().getOut(), spec.commandLine().getErr());
        return 0;
    }

    /**
     * The checkout's launcher, which runs analyze as a user gets it (its JVM options and class
     * archive); without one, this JVM running this jar with the launcher's options. Null when not
     * running from a jar.
     */
    private static List<String> critpathCommand() throws Exception {
        Path jar = Path.of(BenchCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        if (!jar.toString().endsWith(".jar")) {
            return null;
        }
        Path launcher = jar.resolveSibling("../../../critpath").normalize(); // the jar is flink-jobs/cli/target/critpath.jar
        if (Files.isExecutable(launcher)) {
            return List.of(launcher.toString());
        }
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        String opts = System.getenv("CRITPATH_JAVA_OPTS");
        if (opts == null) { // the launcher's options for analyze
            try (InputStream in = BenchCommand.class.getResourceAsStream("/critpath/analyze.jvm-options")) {
                opts = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        }
        if (!opts.isBlank()) {
            command.addAll(List.of(opts.trim().split("\\s+")));
        }
        command.addAll(List.of("-jar", jar.toString()));
        return command;
    }
}
