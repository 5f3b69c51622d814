package dev.critpath.bench;

import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.event.IpText;
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
import java.util.stream.Stream;

/**
 * What `critpath bench` measures: packets analysed per second on one thread, for the core alone
 * (events in memory) and end to end from a pcap, next to `tcptrace -l -n` on the same pcap
 * (without -n tcptrace spends its time on reverse DNS lookups, which measures the resolver, not
 * the analysis).
 *
 * @param copies copies of the lab's server-side captures in the measured capture
 * @param iterations timed runs of each measurement after one warm-up
 */
public record OfflineBench(int copies, int iterations) {
    /**
     * Writes the capture, measures, prints progress to {@code err} and the table to {@code out}.
     *
     * @param fixtures the lab runs whose server.pcap are copied
     * @param workDir where the capture is written; null: a temporary directory, removed afterwards
     */
    public void run(Path fixtures, Path workDir, PrintWriter out, PrintWriter err) throws Exception {
        SyntheticCapture capture = new SyntheticCapture(IpText.parse("10.71.1.2"));
        try (Stream<Path> s = Files.list(fixtures)) {
            for (Path run : s.filter(d -> Files.isRegularFile(d.resolve("server.pcap"))).sorted().toList()) {
                capture.addOriginal(run.resolve("server.pcap"));
            }
        }
        Path work = workDir != null ? Files.createDirectories(workDir) : Files.createTempDirectory("critpath-bench");
        Path pcap = work.resolve("bench-server-side.pcap");
        err.printf(Locale.ROOT, "writing %,d copies of %,d lab frames to %s ...%n", copies, capture.framesPerCopy(), pcap);
        err.flush();
        capture.write(pcap, copies);
        try {
            List<PacketEvent> events = PcapEvents.readAll(pcap, "server-side", SensorRole.SERVER);
            long packets = events.size();
            err.printf(Locale.ROOT, "%,d TCP packets, %,d bytes; warming up, then %d timed runs each%n", packets, Files.size(pcap), iterations);
            err.flush();
            Timing core = time(() -> analyse(events));
            err.printf(Locale.ROOT, "  core alone: %.2f s%n", core.median());
            Timing endToEnd = time(() -> analyse(PcapEvents.readAll(pcap, "server-side", SensorRole.SERVER)));
            err.printf(Locale.ROOT, "  end to end: %.2f s%n", endToEnd.median());
            Timing tcptrace = onPath("tcptrace") ? time(() -> tcptrace(pcap)) : null;
            out.printf(Locale.ROOT, "%-34s %24s %16s %20s%n", "measurement (one thread)", "seconds min/median/max", "packets/s median", "packets/s best");
            row(out, "critpath core (events in memory)", core, packets);
            row(out, "critpath end to end (pcap file)", endToEnd, packets);
            if (tcptrace != null) {
                row(out, "tcptrace -l -n (same pcap)", tcptrace, packets);
            } else {
                out.println("tcptrace not installed: no comparison");
            }
            out.printf(Locale.ROOT, "peak resident memory of this JVM: %s%n", peakRss());
        } finally {
            if (workDir == null) {
                Files.deleteIfExists(pcap);
                Files.deleteIfExists(work);
            }
        }
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

    private static void tcptrace(Path pcap) throws Exception {
        Process p = new ProcessBuilder("tcptrace", "-l", "-n", pcap.toString()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!p.waitFor(30, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IllegalStateException("tcptrace -l -n failed on " + pcap);
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

    private static void row(PrintWriter out, String what, Timing t, long packets) {
        out.printf(Locale.ROOT, "%-34s %24s %,16.0f %,20.0f%n", what, String.format(Locale.ROOT, "%.2f / %.2f / %.2f", t.min(), t.median(), t.max()),
                packets / t.median(), packets / t.min());
    }

    private static String peakRss() throws java.io.IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmHWM:")) {
                return line.substring(6).trim();
            }
        }
        return "unknown";
    }
}
