package dev.critpath.core.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.critpath.core.event.InvalidEventException;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.PacketEventJson;
import dev.critpath.core.event.SensorRole;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Zeek with the critpath-sensor package of this checkout, run through the package's own tools
 * (zeek-scripts/tools: sensor-events for one capture, lab-events for the committed lab set) so
 * that the tests run Zeek exactly as those scripts do.
 */
public final class ZeekSensor {
    private ZeekSensor() {
    }

    /** What sensor-events printed (the events), Zeek's exit status and its complaints. */
    public record Run(int exit, byte[] output, String errors) {
        /** The events as JSON lines. */
        public List<String> events() {
            return new String(output, StandardCharsets.UTF_8).lines().toList();
        }
    }

    /**
     * The Zeek to run: the ZEEK environment variable (a path to the zeek binary), else zeek on
     * PATH; empty where there is neither. A ZEEK that names no executable is an error, not a skip.
     */
    public static Optional<Path> zeek() {
        String configured = System.getenv("ZEEK");
        if (configured == null || configured.isEmpty()) {
            return Peers.onPath("zeek");
        }
        Path p = Path.of(configured);
        if (!Files.isExecutable(p)) {
            throw new IllegalStateException("ZEEK=" + configured + " is not an executable file");
        }
        return Optional.of(p);
    }

    /** The package's events for one capture, its sensor named and placed as given. */
    public static Run events(Path zeek, Path capture, String sensor, SensorRole role) {
        return run(zeek, tool("sensor-events"), capture.toString(), sensor, role.name());
    }

    /** The same in the compiled sensor's Avro encoding (CritPath::encoding=AVRO): its records one after another. */
    public static Run avroEvents(Path zeek, Path capture, String sensor, SensorRole role) {
        return run(zeek, tool("sensor-events"), capture.toString(), sensor, role.name(), "AVRO");
    }

    /** Writes the lab set (SCENARIO/{client,server}.jsonl.gz) under dir, as the committed one is made. */
    public static void labEvents(Path zeek, Path dir) {
        Run run = run(zeek, tool("lab-events"), dir.toString());
        assertEquals(0, run.exit(), "lab-events failed: " + run.errors());
    }

    /** Parses JSON lines into events: every line must be a valid event. */
    public static List<PacketEvent> parse(List<String> lines) throws InvalidEventException {
        PacketEventJson codec = PacketEventJson.standard();
        List<PacketEvent> out = new ArrayList<>(lines.size());
        for (String line : lines) {
            out.add(codec.parse(line));
        }
        return out;
    }

    private static String tool(String name) {
        return Repo.root().resolve("zeek-scripts/tools").resolve(name).toString();
    }

    private static Run run(Path zeek, String... command) {
        try {
            Path errors = Files.createTempFile("zeek", ".err");
            try {
                ProcessBuilder pb = new ProcessBuilder(command).redirectError(errors.toFile());
                pb.environment().put("ZEEK", zeek.toString());
                Process p = pb.start();
                byte[] output;
                try (InputStream out = p.getInputStream()) {
                    output = out.readAllBytes();
                }
                if (!p.waitFor(10, TimeUnit.MINUTES)) {
                    p.destroyForcibly();
                    throw new IllegalStateException(String.join(" ", command) + " took more than 10 minutes");
                }
                return new Run(p.exitValue(), output, Files.readString(errors).strip());
            } finally {
                Files.delete(errors);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
