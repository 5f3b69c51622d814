package dev.critpath.cli;

import dev.critpath.bench.OfflineBench;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** `critpath bench`: the options of {@link OfflineBench}, the lab runs of this checkout by default. */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
        header = "Measures the offline analysis speed next to tcptrace on a large capture.",
        description = {"Builds a large server-side capture from copies of the bundled lab captures, then times the "
            + "core engine alone on one thread, critpath end to end from the file, and tcptrace -l -n on the same file "
            + "(if installed). Prints a table; docs/performance.md records the figures."})
final class BenchCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--copies", paramLabel = "N", description = "Copies of the lab's server-side captures (default: ${DEFAULT-VALUE}, about 2 million packets).", defaultValue = "190")
    int copies;

    @Option(names = "--iterations", paramLabel = "N", description = "Timed runs of each measurement after one warm-up (default: ${DEFAULT-VALUE}); fastest, median and slowest are reported.", defaultValue = "5")
    int iterations;

    @Option(names = "--work-dir", paramLabel = "DIR", description = "Where the capture is written (default: a temporary directory, removed afterwards).")
    Path workDir;

    @Option(names = "--fixtures", paramLabel = "DIR", description = "Lab runs to copy (default: testdata/lab of this checkout).")
    Path fixtures;

    @Override
    public Integer call() throws Exception {
        new OfflineBench(copies, iterations).run(fixtures != null ? fixtures : Checkout.labRuns(), workDir,
                spec.commandLine().getOut(), spec.commandLine().getErr());
        return 0;
    }
}
