package dev.critpath.cli;

import dev.critpath.core.event.SensorRole;
import dev.critpath.kafka.Replay;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** Capture files and where they were taken, as `analyze` and `replay` take them. */
final class CaptureOptions {
    @Option(names = "--client-pcap", paramLabel = "FILE", description = "Capture taken near the client(s).")
    Path clientPcap;

    @Option(names = "--server-pcap", paramLabel = "FILE", description = "Capture taken near the server(s).")
    Path serverPcap;

    @Option(names = "--pcap", paramLabel = "FILE", description = "A capture whose side is inferred from timing; repeatable.")
    List<Path> pcaps = new ArrayList<>();

    /** The captures with their sensor names (client-side, server-side, or the file's name) and roles. */
    List<Replay.Capture> captures() {
        List<Replay.Capture> out = new ArrayList<>();
        if (clientPcap != null) {
            out.add(new Replay.Capture(clientPcap, "client-side", SensorRole.CLIENT));
        }
        if (serverPcap != null) {
            out.add(new Replay.Capture(serverPcap, "server-side", SensorRole.SERVER));
        }
        for (Path f : pcaps) {
            out.add(new Replay.Capture(f, f.getFileName().toString(), SensorRole.UNKNOWN));
        }
        return out;
    }
}
