package dev.critpath.streaming;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** `critpath` commands in a JVM of their own, as a user starts them. */
public final class StreamProcess {
    private StreamProcess() {
    }

    public static Process start(List<String> args, Path log, String... jvmOptions) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(List.of(jvmOptions));
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.critpath.cli.Main"));
        cmd.addAll(args);
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** The end of a log, for failure messages. */
    public static String tail(Path log) {
        try {
            String s = Files.readString(log, StandardCharsets.UTF_8);
            return s.substring(Math.max(0, s.length() - 3000));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    /** Bytes of the newest completed checkpoint under a checkpoint directory. */
    static long newestCheckpointBytes(Path checkpoints) throws IOException {
        Path newest = Checkpoints.latest(checkpoints.toString()).orElseThrow(() -> new IOException("no checkpoint under " + checkpoints));
        try (var files = Files.walk(newest)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
        }
    }

    /** The process's peak resident memory in MiB, from /proc. */
    static long peakRssMib(Process p) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(p.pid()), "status"))) {
            if (line.startsWith("VmHWM:")) {
                return Long.parseLong(line.replaceAll("\\D", "")) / 1024;
            }
        }
        throw new IOException("no VmHWM for process " + p.pid());
    }
}
