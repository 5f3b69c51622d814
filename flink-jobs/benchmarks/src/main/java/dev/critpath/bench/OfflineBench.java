package dev.critpath.bench;

import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.pcap.PcapEvents;
import dev.critpath.core.trace.ConnectionAssembler;
import dev.critpath.core.trace.ConnectionTrace;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * What `critpath bench` measures. As a user runs them, whole processes (JVM start included):
 * `critpath analyze --quiet --top 5 --server-pcap` against `tcptrace -l -n` on the same capture,
 * alternated, wall time, CPU time and peak resident memory of each; on a capture of overlapping
 * copies of the lab's server-side captures and on ones some times as long with the same
 * connections open at a time, and on a SYN flood; critpath alone on the same flood answered by SYN cookies and with
 * every handshake completed and left open. Then the core alone on one thread (events in memory,
 * no reading).
 * tcptrace runs with -n: without it, it spends its time on reverse DNS lookups, which measures
 * the resolver, not the analysis.
 *
 * @param copies     copies of the lab's server-side captures in the measured capture
 * @param spacingUs  how far apart the copies start (below the originals' span, they overlap)
 * @param synFlood   SYNs in the SYN-flood capture; 0 for none
 * @param iterations timed runs of each measurement after one warm-up
 * @param lengths    how many times as long as the capture the compared ones are (1 is the capture)
 */
public record OfflineBench(int copies, long spacingUs, int synFlood, int iterations, List<Integer> lengths) {
    /** One whole-process run: wall and CPU seconds, peak resident memory in KiB. */
    private record ProcessRun(double wall, double cpu, long maxRssKib) {
    }

    /**
     * Writes the captures, measures, prints progress to {@code err} and the table to {@code out}.
     *
     * @param fixtures the lab runs whose server.pcap are copied
     * @param critpath the command that runs critpath (java -jar critpath.jar), null to skip the whole-process rows
     * @param workDir  where the captures are written; null: a temporary directory, removed afterwards
     */
    public void run(Path fixtures, List<String> critpath, Path workDir, PrintWriter out, PrintWriter err) throws Exception {
        SyntheticCapture capture = SyntheticCapture.ofLabServerSides(fixtures);
        Path work = workDir != null ? Files.createDirectories(workDir) : Files.createTempDirectory("critpath-bench");
        Path pcap = work.resolve("bench-server-side.pcap");
        Path flood = work.resolve("bench-syn-flood.pcap");
        Path answered = work.resolve("bench-syn-flood-answered.pcap");
        Path opened = work.resolve("bench-connection-flood.pcap");
        try {
            err.printf(Locale.ROOT, "writing %,d copies of %,d lab frames, %.1f ms apart, to %s ...%n",
                    copies, capture.framesPerCopy(), spacingUs / 1000.0, pcap);
            err.flush();
            capture.write(pcap, copies, spacingUs, 1);
            if (synFlood > 0) {
                SyntheticCapture.writeFlood(flood, synFlood, SyntheticCapture.Handshake.SYN);
                SyntheticCapture.writeFlood(answered, synFlood, SyntheticCapture.Handshake.ANSWERED);
                SyntheticCapture.writeFlood(opened, synFlood, SyntheticCapture.Handshake.COMPLETED);
            }
            List<PacketEvent> events = PcapEvents.readAll(pcap, "server-side", SensorRole.SERVER);
            long packets = events.size();
            err.printf(Locale.ROOT, "%,d TCP packets, %,d bytes; warming up, then %d timed runs each%n", packets, Files.size(pcap), iterations);
            err.flush();
            boolean tcptrace = onPath("tcptrace");
            out.printf(Locale.ROOT, "%-72s %22s %10s %14s %14s%n", "whole process (as a user runs it)", "wall s min/median/max", "CPU s", "peak RSS MiB", "packets/s");
            if (critpath != null) {
                for (int length : lengths) {
                    compareLonger(capture, length, pcap, work, workDir == null, critpath, tcptrace, packets, out, err);
                }
                if (synFlood > 0) {
                    compare(out, err, String.format(Locale.ROOT, "%,d-SYN flood", synFlood), flood, critpath, tcptrace, synFlood);
                    // tcptrace's half minute and 8 GB per flood once is enough
                    compare(out, err, "the same answered by SYN cookies", answered, critpath, false, 2L * synFlood);
                    compare(out, err, "the same, handshakes completed and left open", opened, critpath, false, 3L * synFlood);
                }
            } else {
                out.println("(critpath is not running from its jar: no whole-process rows)");
            }
            if (!tcptrace) {
                out.println("tcptrace not installed: no comparison");
            }
            Timing core = time(() -> analyse(events));
            out.printf(Locale.ROOT, "%-72s %22s %10s %14s %,14.0f%n", "critpath core alone, one thread (events in memory)",
                    String.format(Locale.ROOT, "%.2f / %.2f / %.2f", core.min(), core.median(), core.max()), "", "", packets / core.median());
        } finally {
            if (workDir == null) {
                Files.deleteIfExists(pcap);
                Files.deleteIfExists(flood);
                Files.deleteIfExists(answered);
                Files.deleteIfExists(opened);
                Files.deleteIfExists(work);
            }
        }
    }

    /** The capture {@code length} times as long (the same connections open at a time), written, compared, and removed if temporary. */
    private void compareLonger(SyntheticCapture capture, int length, Path pcap, Path work, boolean temporary, List<String> critpath,
            boolean tcptrace, long packets, PrintWriter out, PrintWriter err) throws Exception {
        if (length == 1) {
            compare(out, err, "capture", pcap, critpath, tcptrace, packets);
            return;
        }
        Path longer = work.resolve(length == 2 ? "bench-server-side-twice-as-long.pcap" : "bench-server-side-" + length + "-times-as-long.pcap");
        err.printf(Locale.ROOT, "writing the capture %d times over to %s ...%n", length, longer);
        err.flush();
        capture.write(longer, copies, spacingUs, length);
        try {
            compare(out, err, (length == 2 ? "twice" : length + " times") + " as long, same connections open at a time", longer, critpath,
                    tcptrace, length * packets);
        } finally {
            if (temporary) {
                Files.deleteIfExists(longer);
            }
        }
    }

    /** critpath and tcptrace on one capture, alternated run by run, each after one warm-up. */
    private void compare(PrintWriter out, PrintWriter err, String what, Path pcap, List<String> critpath, boolean tcptrace, long packets)
            throws Exception {
        List<String> analyze = new ArrayList<>(critpath);
        analyze.addAll(List.of("analyze", "--quiet", "--top", "5", "--server-pcap", pcap.toString()));
        List<String> peer = List.of("tcptrace", "-l", "-n", pcap.toString());
        measure(analyze);
        if (tcptrace) {
            measure(peer);
        }
        List<ProcessRun> ours = new ArrayList<>();
        List<ProcessRun> theirs = new ArrayList<>();
        for (int i = 0; i < iterations; i++) {
            ours.add(measure(analyze));
            if (tcptrace) {
                theirs.add(measure(peer));
            }
            err.printf(Locale.ROOT, "  %s: run %d of %d%n", what, i + 1, iterations);
            err.flush();
        }
        row(out, "critpath analyze: " + what, ours, packets);
        if (tcptrace) {
            row(out, "tcptrace -l -n: " + what, theirs, packets);
        }
        out.flush();
    }

    /** Runs a command under GNU time, output discarded. */
    private static ProcessRun measure(List<String> command) throws Exception {
        Path times = Files.createTempFile("critpath-bench", ".time");
        try {
            List<String> timed = new ArrayList<>(List.of("/usr/bin/time", "-o", times.toString(), "-f", "%e %U %S %M"));
            timed.addAll(command);
            Process p = new ProcessBuilder(timed).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(60, TimeUnit.MINUTES) || p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed");
            }
            List<String> lines = Files.readAllLines(times);
            String[] f = lines.get(lines.size() - 1).trim().split(" ");
            return new ProcessRun(Double.parseDouble(f[0]), Double.parseDouble(f[1]) + Double.parseDouble(f[2]), Long.parseLong(f[3]));
        } finally {
            Files.deleteIfExists(times);
        }
    }

    private static void row(PrintWriter out, String what, List<ProcessRun> runs, long packets) {
        double wall = median(runs, ProcessRun::wall);
        out.printf(Locale.ROOT, "%-72s %22s %10.2f %,14.0f %,14.0f%n", what,
                String.format(Locale.ROOT, "%.2f / %.2f / %.2f", min(runs, ProcessRun::wall), wall, max(runs, ProcessRun::wall)),
                median(runs, ProcessRun::cpu), median(runs, r -> r.maxRssKib() / 1024.0), packets / wall);
    }

    private static double median(List<ProcessRun> runs, ToDoubleFunction<ProcessRun> f) {
        List<Double> v = new ArrayList<>(runs.stream().map(f::applyAsDouble).toList());
        Collections.sort(v);
        return v.get(v.size() / 2);
    }

    private static double min(List<ProcessRun> runs, ToDoubleFunction<ProcessRun> f) {
        return runs.stream().mapToDouble(f).min().orElseThrow();
    }

    private static double max(List<ProcessRun> runs, ToDoubleFunction<ProcessRun> f) {
        return runs.stream().mapToDouble(f).max().orElseThrow();
    }

    private interface Run {
        void run() throws Exception;
    }

    /** Seconds per timed run: fastest, median, slowest. */
    private record Timing(double min, double median, double max) {
    }

    /** One untimed warm-up, then the timed runs. */
    private Timing time(Run r) throws Exception {
        r.run();
        List<Double> t = new ArrayList<>();
        for (int i = 0; i < iterations; i++) {
            System.gc(); // no run pays for the previous one's garbage (as JMH -gc true)
            long start = System.nanoTime();
            r.run();
            t.add((System.nanoTime() - start) / 1e9);
        }
        Collections.sort(t);
        return new Timing(t.get(0), t.get(t.size() / 2), t.get(t.size() - 1));
    }

    /** Assembly and analysis of every connection: what the core does per packet. */
    private static void analyse(List<PacketEvent> events) {
        ConnectionAssembler as = new ConnectionAssembler();
        for (PacketEvent e : events) {
            as.add(e);
        }
        Analyzer analyzer = Analyzer.defaults();
        long sum = 0;
        for (ConnectionTrace t : as.connections()) {
            sum += analyzer.analyze(t).profile().durationUs();
        }
        if (sum < 0) {
            throw new IllegalStateException("negative durations");
        }
    }

    private static boolean onPath(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(d, tool))) {
                return true;
            }
        }
        return false;
    }
}
