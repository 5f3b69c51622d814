package dev.critpath.core.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** Runs the peer analysers (tshark, tcptrace) that the accuracy tests compare against. */
public final class Peers {
    private Peers() {
    }

    public static boolean available(String tool) {
        return onPath(tool).isPresent();
    }

    /** The tool's executable in the first PATH directory that has one. */
    public static Optional<Path> onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            Path p = Path.of(dir, tool);
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** Runs a command and returns its standard output lines; fails the test on a non-zero exit. */
    public static List<String> run(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            List<String> lines = new ArrayList<>();
            try (var r = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                }
            }
            if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed with exit " + p.exitValue());
            }
            return lines;
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + command[0], e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The public captures under ../shared/traces/public that libpcap can read. */
    public static List<Path> publicCaptures() throws IOException {
        return publicFiles().stream()
                .filter(f -> !f.getFileName().toString().endsWith(".snoop") && !f.getFileName().toString().endsWith(".snp"))
                .toList();
    }

    /** Every capture under ../shared/traces/public, the Solaris snoop files libpcap cannot read included. */
    public static List<Path> publicFiles() throws IOException {
        Path dir = Repo.shared("traces/public");
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (var s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).filter(f -> !f.getFileName().toString().endsWith(".md")).sorted().toList();
        }
    }
}
