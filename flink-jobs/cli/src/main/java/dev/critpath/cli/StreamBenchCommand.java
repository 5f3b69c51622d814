package dev.critpath.cli;

import dev.critpath.bench.StreamBench;
import dev.critpath.bench.StreamBench.Measurement;
import dev.critpath.kafka.Replay;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** `critpath bench-stream`: the options of {@link StreamBench}, the lab runs and the broker's jars of this checkout. */
@Command(name = "bench-stream", mixinStandardHelpOptions = true, sortOptions = false,
        header = "Measures the streaming job's throughput, latency and state size with a local broker.",
        description = {"Runs the streaming job with a local Kafka broker and MiniCluster on this machine, with copies "
            + "of the bundled lab connections as a fleet's traffic, and measures throughput from Kafka to committed "
            + "Parquet, end-of-connection to Parquet latency on a paced live stream, and state bytes per buffered packet "
            + "and per idle long-lived connection from the job's checkpoints. docs/performance.md records the figures."})
final class StreamBenchCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--measure", paramLabel = "WHAT", split = ",", description = "What to measure, any of ${COMPLETION-CANDIDATES} (default: all).",
            defaultValue = "throughput,latency,state")
    EnumSet<Measurement> measure;

    @Option(names = "--events", paramLabel = "N", description = "Packet events for the throughput run (default: ${DEFAULT-VALUE}).", defaultValue = "2000000")
    int events;

    @Option(names = "--passes", paramLabel = "N", description = "Passes of the job over the published events (default: ${DEFAULT-VALUE}): the JIT compiles the "
            + "job's code over the first ones; the sustained rate is the median of the last " + StreamBench.MEASURED + ".", defaultValue = "10")
    int passes;

    @Option(names = "--checkpoint-interval-ms", paramLabel = "MS", description = "Checkpoint interval of the throughput and latency runs (default: ${DEFAULT-VALUE}, the job's). "
            + "A pass lasts seconds: shorter intervals show what a long run's checkpoints cost.", defaultValue = "10000")
    long checkpointIntervalMs;

    @Option(names = "--interval-us", paramLabel = "US", description = "Event time between connection starts in the throughput run (default: ${DEFAULT-VALUE}).", defaultValue = "2000")
    long intervalUs;

    @Option(names = "--partitions", paramLabel = "N", description = "Partitions of the benchmark topics (default: ${DEFAULT-VALUE}).", defaultValue = "2")
    int partitions;

    @Option(names = "--parallelism", paramLabel = "N", description = "Parallelism of the job (default: ${DEFAULT-VALUE}).", defaultValue = "2")
    int parallelism;

    @Option(names = "--live-seconds", paramLabel = "S", description = "Length of the paced live stream for the latency measurement (default: ${DEFAULT-VALUE}).", defaultValue = "90")
    int liveSeconds;

    @Option(names = "--live-interval-ms", paramLabel = "MS", description = "Wall time between connection starts in the live stream (default: ${DEFAULT-VALUE}).", defaultValue = "20")
    long liveIntervalMs;

    @Option(names = "--state-connections", paramLabel = "N", description = "Connections held open for the state measurements (default: ${DEFAULT-VALUE}).", defaultValue = "3000")
    int stateConnections;

    @Option(names = "--encoding", paramLabel = "FORMAT", description = "How the events are written to Kafka: json (default) or avro.",
        defaultValue = "json")
    Replay.Encoding encoding;

    @Option(names = "--fixtures", paramLabel = "DIR", description = "Lab runs to copy (default: testdata/lab of this checkout).")
    Path fixtures;

    @Override
    public Integer call() throws Exception {
        if (passes < 2) {
            throw new ParameterException(spec.commandLine(), "--passes must be at least 2: the first pass is the JIT's");
        }
        StreamBench.Settings settings = new StreamBench.Settings(measure, events, passes, checkpointIntervalMs, intervalUs, partitions,
                parallelism, liveSeconds, liveIntervalMs, stateConnections, encoding);
        Path scratch = Files.createTempDirectory("critpath-bench-stream");
        try {
            StreamBench.run(settings, fixtures != null ? fixtures : Checkout.labRuns(), Checkout.kafkaBrokerLib(), scratch,
                    spec.commandLine().getOut(), spec.commandLine().getErr());
        } finally {
            DemoCommand.deleteTree(scratch);
        }
        return 0;
    }
}
