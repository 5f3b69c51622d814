package dev.critpath.cli;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.streaming.CritpathJob;
import dev.critpath.kafka.Replay;
import dev.critpath.streaming.StreamConfig;
import dev.critpath.kafka.LocalKafka;
import dev.critpath.warehouse.WarehouseReader;
import dev.critpath.warehouse.WarehouseTable;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * `critpath demo`: the whole pipeline on one machine. A real Kafka broker (KRaft) from the
 * project's build, the bundled two-point lab captures replayed into it as the two sensors'
 * packet events, the streaming job on a local Flink MiniCluster until they are all analysed,
 * then the blame summary read back from the Parquet warehouse.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, sortOptions = false,
        header = "Runs the whole pipeline on this machine over the bundled lab captures and prints where the time went.",
        description = {"Starts a local Kafka broker, replays the bundled two-point captures into it (testdata/lab: real "
            + "Linux connections with deliberately injected delays, drops, stalls and slow readers), runs the Flink job on a "
            + "local MiniCluster until every connection is in the Parquet warehouse, then prints the blame summary."})
final class DemoCommand implements Callable<Integer> {
    private static final String TOPIC = "critpath-packets";

    @Spec
    CommandSpec spec;

    @Option(names = "--fixtures", paramLabel = "DIR", description = "Lab runs to replay (default: testdata/lab of this checkout).")
    Path fixtures;

    @Option(names = "--warehouse", paramLabel = "DIR", description = "Where the Parquet tables go (default: ${DEFAULT-VALUE}).", defaultValue = "warehouse/demo")
    Path warehouse;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        Path dir = fixtures != null ? fixtures : Checkout.labRuns();
        List<Path> runs = Replay.labRunsUnder(dir);
        if (runs.isEmpty()) {
            err.println("critpath demo: no lab runs (client.pcap + server.pcap) under " + dir);
            return 2;
        }
        List<PacketEvent> events = Replay.labRuns(runs);
        long connections = events.stream().map(PacketEvent::communityId).distinct().count();
        deleteTree(warehouse);
        Path scratch = Files.createTempDirectory("critpath-demo");
        try {
            say(err, "starting a Kafka broker (KRaft, single node) ...");
            try (LocalKafka kafka = LocalKafka.start(Checkout.kafkaBrokerLib(), scratch.resolve("kafka"))) {
                say(err, "  ready at " + kafka.bootstrapServers());
                kafka.createTopic(TOPIC, 3);
                say(err, String.format(java.util.Locale.ROOT, "replaying %d lab runs as two sensors: %,d packet events, %d connections", runs.size(), events.size(), connections));
                Replay.publish(kafka.bootstrapServers(), TOPIC, Replay.json(events), n -> { });
                say(err, "streaming job on a local Flink MiniCluster (reads the topic to its end, then stops) ...");
                runJob(kafka.bootstrapServers(), scratch.resolve("checkpoints"), connections, err);
            }
        } finally {
            deleteTree(scratch);
        }
        say(err, "warehouse: " + warehouse.toAbsolutePath());
        BlameSummary.print(warehouse, "The bundled lab connections are troubled on purpose (injected delays, drops, "
                + "server stalls, slow readers), so most fail a rule; in a fleet most are boring.", spec.commandLine().getOut());
        return 0;
    }

    private void runJob(String bootstrap, Path checkpoints, long connections, PrintWriter err) throws Exception {
        StreamConfig cfg = StreamConfig.defaults(bootstrap, warehouse.toAbsolutePath().toString()).withBounded(true)
                .withCheckpointing(Duration.ofSeconds(2), checkpoints.toUri().toString());
        CritpathJob job = CritpathJob.kafkaToParquet(cfg);
        StreamExecutionEnvironment env = job.localEnvironment();
        job.build(env);
        JobClient client = env.executeAsync("critpath demo");
        var result = client.getJobExecutionResult(); // fails if the job does
        long committed = -1;
        while (!result.isDone()) {
            Thread.sleep(1000);
            committed = reportCommitted(committed, connections, err);
        }
        result.get();
        reportCommitted(committed, connections, err); // the last commit can land after the last poll
    }

    private long reportCommitted(long before, long connections, PrintWriter err) throws IOException {
        long now = WarehouseReader.read(warehouse, WarehouseTable.PROFILES).size();
        if (now != before) {
            say(err, String.format(java.util.Locale.ROOT, "  %d of %d connections profiled and committed", now, connections));
        }
        return now;
    }

    private static void say(PrintWriter err, String line) {
        err.println(line);
        err.flush();
    }

    /** The demo owns its directories: start from empty so counts are this run's. */
    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
