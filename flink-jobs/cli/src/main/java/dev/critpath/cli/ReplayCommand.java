package dev.critpath.cli;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.kafka.Replay;
import dev.critpath.kafka.KafkaClientProperties;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.kafka.common.errors.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** `critpath replay`: historical captures to any Kafka, as the sensors would have published them. */
@Command(name = "replay", mixinStandardHelpOptions = true, sortOptions = false,
        header = "Publishes captures to Kafka as the sensors' packet events.",
        description = {"Publishes pcap/pcapng captures to Kafka as the packet events the Zeek sensors publish "
            + "(schemas/packet-event.schema.json, or packet-event.avsc with --encoding avro), in the order of the captures' timestamps."})
final class ReplayCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--bootstrap-servers", required = true, paramLabel = "HOST:PORT,...", description = "Kafka brokers.")
    String bootstrapServers;

    @Mixin
    KafkaConfigOption kafkaConfig;

    @Option(names = "--topic", paramLabel = "NAME", description = "Topic (default: ${DEFAULT-VALUE}).", defaultValue = "critpath-packets")
    String topic;

    @Option(names = "--encoding", paramLabel = "FORMAT", description = "json (default), or avro: Avro single-object records, "
        + "as the compiled Zeek sensor writes them with CritPath::encoding=AVRO. The job reads either, record by record.", defaultValue = "json")
    Replay.Encoding encoding;

    @Mixin
    CaptureOptions captures;

    @Option(names = "--lab-runs", paramLabel = "DIR", description = "Also the trace lab's runs under DIR (each a directory with client.pcap and "
        + "server.pcap), as `critpath demo` replays them, e.g. testdata/lab.")
    Path labRuns;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        KafkaClientProperties client = kafkaConfig.properties(); // before the captures are read: a bad file fails at once
        List<Replay.Capture> caps = captures.captures();
        List<Path> runs = labRuns == null ? List.of() : Replay.labRunsUnder(labRuns);
        if (caps.isEmpty() && runs.isEmpty()) {
            err.println("critpath replay: give at least one capture (--client-pcap, --server-pcap, --pcap) or --lab-runs with runs in it");
            return 2;
        }
        List<PacketEvent> events = Replay.events(caps, (file, stats) -> { // a list of its own, sorted by time
            err.println(file + ": " + stats);
            if (stats.partialRead("replayed") != null) {
                err.println("critpath replay: " + file + ": " + stats.partialRead("replayed"));
            }
        });
        events.addAll(Replay.labRuns(runs));
        events.sort(Comparator.comparingLong(PacketEvent::tsUs)); // as the captures' timestamps go
        err.printf("replaying %,d packet events (%s) from %d capture(s) and %d lab run(s) to %s on %s%n", events.size(), encoding, caps.size(),
                runs.size(), topic, bootstrapServers);
        try {
            Replay.publish(bootstrapServers, client, topic, encoding.encode(events), n -> err.printf("  %,d sent%n", n));
        } catch (IllegalStateException e) {
            if (e.getCause() instanceof TimeoutException && kafkaConfig.file == null) {
                // a listener that authenticates just drops a client without credentials, which then waits for its timeout
                throw new IllegalStateException(e.getMessage() + " If the brokers' listener authenticates, give the client settings with --kafka-config.", e);
            }
            throw e;
        }
        return 0;
    }
}
