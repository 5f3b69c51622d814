package dev.critpath.cli;

import dev.critpath.core.event.SensorRole;
import dev.critpath.streaming.Replay;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** `critpath replay`: historical captures to any Kafka, as the sensors would have published them. */
@Command(name = "replay", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Publishes pcap/pcapng captures to Kafka as packet events, the records the Zeek sensors",
            "publish (schemas/packet-event.schema.json), in the order of the captures' timestamps."})
final class ReplayCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--bootstrap-servers", required = true, paramLabel = "HOST:PORT,...", description = "Kafka brokers.")
    String bootstrapServers;

    @Option(names = "--topic", paramLabel = "NAME", description = "Topic (default: ${DEFAULT-VALUE}).", defaultValue = "critpath-packets")
    String topic;

    @Option(names = "--client-pcap", paramLabel = "FILE", description = "Capture taken near the clients.")
    Path clientPcap;

    @Option(names = "--server-pcap", paramLabel = "FILE", description = "Capture taken near the servers.")
    Path serverPcap;

    @Option(names = "--pcap", paramLabel = "FILE", description = "A capture whose position is left to inference (repeatable).")
    List<Path> pcaps = new ArrayList<>();

    @Option(names = "--sensor-prefix", paramLabel = "NAME", description = "Sensor names are PREFIX-client, PREFIX-server, PREFIX-N (default: ${DEFAULT-VALUE}).", defaultValue = "replay")
    String sensorPrefix;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        List<Replay.Capture> caps = new ArrayList<>();
        if (clientPcap != null) {
            caps.add(new Replay.Capture(clientPcap, sensorPrefix + "-client", SensorRole.CLIENT));
        }
        if (serverPcap != null) {
            caps.add(new Replay.Capture(serverPcap, sensorPrefix + "-server", SensorRole.SERVER));
        }
        for (int i = 0; i < pcaps.size(); i++) {
            caps.add(new Replay.Capture(pcaps.get(i), sensorPrefix + "-" + (i + 1), SensorRole.UNKNOWN));
        }
        if (caps.isEmpty()) {
            err.println("critpath replay: give at least one capture (--client-pcap, --server-pcap or --pcap)");
            return 2;
        }
        var events = Replay.events(caps);
        err.printf("replaying %,d packet events from %d capture(s) to %s on %s%n", events.size(), caps.size(), topic, bootstrapServers);
        Replay.publish(bootstrapServers, topic, Replay.json(events), n -> err.printf("  %,d sent%n", n));
        return 0;
    }
}
