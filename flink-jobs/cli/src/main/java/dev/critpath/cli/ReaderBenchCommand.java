package dev.critpath.cli;

import dev.critpath.bench.ReaderBench;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** `critpath bench-readers`: the options of {@link ReaderBench}, on the capture `critpath bench` builds by default. */
@Command(name = "bench-readers", mixinStandardHelpOptions = true, sortOptions = false,
        header = "Measures critpath's pcap reader next to the Java pcap libraries (pkts, pcap4j).",
        description = {"Decodes every TCP packet of one large capture into the fields critpath's analysis needs, with "
            + "critpath's own reader and with each library, alternated in one process, and reports packets/s, "
            + "bytes allocated per packet and whether each decoded the same packets and fields as critpath; then how "
            + "many of a directory of real captures each reads. docs/performance.md records the figures."})
final class ReaderBenchCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--capture", paramLabel = "FILE", description = "The capture to read (default: --copies overlapping copies of the lab's server-side captures, as `critpath bench` writes).")
    Path capture;

    @Option(names = "--copies", paramLabel = "N", description = "Copies of the lab's server-side captures when no --capture is given (default: ${DEFAULT-VALUE}, about 4.9 million packets with the bundled lab captures).",
            defaultValue = "266")
    int copies;

    @Option(names = "--iterations", paramLabel = "N", description = "Timed rounds after one warm-up round (default: ${DEFAULT-VALUE}); fastest, median and slowest are reported.",
            defaultValue = "5")
    int iterations;

    @Option(names = "--captures", paramLabel = "DIR", description = "Real captures each reader should read (default: ../shared/traces/public next to the checkout, if there).")
    Path captures;

    @Override
    public Integer call() throws Exception {
        Path dir = captures != null ? captures : Checkout.root().resolveSibling("shared/traces/public");
        new ReaderBench(iterations).run(capture, Checkout.labRuns(), copies, captures != null || Files.isDirectory(dir) ? dir : null,
                spec.commandLine().getOut(), spec.commandLine().getErr());
        return 0;
    }
}
