package dev.critpath.bench;

import com.sun.management.ThreadMXBean;
import dev.critpath.bench.CaptureDecoders.Decoder;
import dev.critpath.bench.CaptureDecoders.Tally;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;

/**
 * What `critpath bench-readers` measures: why critpath reads captures itself. Each reader of
 * {@link CaptureDecoders} decodes every TCP packet of one large capture into the fields the
 * analysis needs; all run in this process, one after the other in every round, so that load from
 * elsewhere on the machine falls on all of them alike. Reported per reader: packets/s of wall and
 * of this thread's CPU time and bytes allocated per packet (median of the timed rounds, after one
 * warm-up round), and whether it decoded the same packets and fields as critpath. Then, over a
 * directory of real captures, how many each reader reads without an error and with the same
 * packets and fields as critpath.
 *
 * @param iterations timed rounds after the warm-up round
 */
public record ReaderBench(int iterations) {
    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** One timed read: nanoseconds of wall and of this thread's CPU, bytes this thread allocated. */
    private record Run(long wallNs, long cpuNs, long allocated) {
    }

    /** Copies of the lab captures start this far apart, as in `critpath bench` by default. */
    private static final long SPACING_US = 5_000;

    /**
     * Measures the readers on {@code capture}, or when it is null on one of {@code copies} copies of
     * the server-side captures of the lab runs under {@code fixtures}; then (if {@code captures} is
     * not null) their coverage of the captures under that directory. Progress to {@code err},
     * tables to {@code out}.
     */
    public void run(Path capture, Path fixtures, int copies, Path captures, PrintWriter out, PrintWriter err) throws Exception {
        SyntheticCapture lab = SyntheticCapture.ofLabServerSides(fixtures);
        Path work = Files.createTempDirectory("critpath-bench-readers");
        try {
            Path pcap = capture;
            if (pcap == null) {
                pcap = work.resolve("bench-server-side.pcap");
                lab.write(pcap, copies, SPACING_US, 1);
            }
            measure(pcap, out, err);
            features(lab, work, out);
            if (captures != null) {
                coverage(captures, out, err);
            }
        } finally {
            try (Stream<Path> s = Files.list(work)) {
                for (Path f : s.toList()) {
                    Files.delete(f);
                }
            }
            Files.delete(work);
        }
    }

    /**
     * The lab's captures written with one feature each that real captures have, through every
     * reader; each should give the packets and fields critpath reads from the plain capture (the
     * cut one all but its last).
     */
    private static void features(SyntheticCapture lab, Path work, PrintWriter out) throws Exception {
        Path plain = work.resolve("lab.pcap");
        lab.writeOriginals(plain, false);
        Map<String, Path> variants = new LinkedHashMap<>();
        variants.put("gzip-compressed", work.resolve("lab.pcap.gz"));
        try (OutputStream gz = new GZIPOutputStream(Files.newOutputStream(variants.get("gzip-compressed")))) {
            Files.copy(plain, gz);
        }
        variants.put("pcapng, two interfaces (µs and ns)", work.resolve("lab-two-interfaces.pcapng"));
        lab.writePcapngTwoInterfaces(variants.get("pcapng, two interfaces (µs and ns)"));
        variants.put("802.1Q VLAN tags", work.resolve("lab-vlan.pcap"));
        lab.writeOriginals(variants.get("802.1Q VLAN tags"), true);
        variants.put("segments in two IPv4 fragments", work.resolve("lab-fragments.pcap"));
        lab.writeFragmented(variants.get("segments in two IPv4 fragments"));
        String cut = "cut inside its last record";
        variants.put(cut, work.resolve("lab-cut.pcap"));
        byte[] whole = Files.readAllBytes(plain);
        Files.write(variants.get(cut), java.util.Arrays.copyOf(whole, whole.length - 7));
        Tally reference = CaptureDecoders.ALL.get(0).read(plain);
        out.printf(Locale.ROOT, "%nthe lab's server-side captures (%,d TCP packets) written with one feature each: what each reader makes of them%n",
                reference.packets());
        out.printf(Locale.ROOT, "%-36s", "");
        for (Decoder d : CaptureDecoders.ALL) {
            out.printf(Locale.ROOT, " %-34s", d.name().replaceAll(" \\(.*", ""));
        }
        out.println();
        for (Map.Entry<String, Path> v : variants.entrySet()) {
            boolean isCut = v.getKey().equals(cut);
            out.printf(Locale.ROOT, "%-36s", v.getKey());
            for (Decoder d : CaptureDecoders.ALL) {
                String outcome;
                try {
                    Tally t = d.read(v.getValue());
                    outcome = isCut ? (t.packets() == reference.packets() - 1 ? "all packets before the cut" : t.packets() + " packets")
                            : t.equals(reference) ? "same packets and fields" : String.format(Locale.ROOT, "%,d packets%s", t.packets(),
                                    t.packets() == reference.packets() ? ", other fields" : "");
                } catch (Exception | LinkageError e) {
                    outcome = "error: " + e.getClass().getSimpleName();
                }
                out.printf(Locale.ROOT, " %-34s", outcome);
            }
            out.println();
        }
        out.flush();
    }

    private void measure(Path capture, PrintWriter out, PrintWriter err) throws Exception {
        List<Decoder> decoders = CaptureDecoders.ALL;
        err.printf(Locale.ROOT, "%s: %,d bytes; one warm-up round, then %d timed rounds, the readers alternated in each%n",
                capture, Files.size(capture), iterations);
        err.flush();
        Map<Decoder, Tally> decoded = new LinkedHashMap<>();
        for (Decoder d : decoders) {
            decoded.put(d, d.read(capture));
        }
        Map<Decoder, List<Run>> runs = new LinkedHashMap<>();
        for (int i = 0; i < iterations; i++) {
            for (Decoder d : decoders) {
                runs.computeIfAbsent(d, k -> new ArrayList<>()).add(timed(d, capture));
            }
            err.printf(Locale.ROOT, "  round %d of %d%n", i + 1, iterations);
            err.flush();
        }
        Tally reference = decoded.get(decoders.get(0));
        out.printf(Locale.ROOT, "%-44s %12s %-14s %26s %16s %14s%n", "reader", "TCP packets", "same fields", "packets/s wall min/med/max",
                "packets/CPU-s", "bytes/packet");
        for (Decoder d : decoders) {
            Tally t = decoded.get(d);
            List<Run> r = runs.get(d);
            long packets = t.packets();
            out.printf(Locale.ROOT, "%-44s %,12d %-14s %26s %,16.0f %,14.1f%n", d.name(), packets,
                    t.equals(reference) ? "yes" : t.packets() == reference.packets() ? "no (fields)" : "no (packets)",
                    String.format(Locale.ROOT, "%,.0f / %,.0f / %,.0f", rate(packets, max(r, Run::wallNs)), rate(packets, median(r, Run::wallNs)),
                            rate(packets, min(r, Run::wallNs))),
                    rate(packets, median(r, Run::cpuNs)), (double) median(r, Run::allocated) / Math.max(packets, 1));
        }
        out.flush();
    }

    private static Run timed(Decoder d, Path capture) throws Exception {
        System.gc(); // no run pays for the previous one's garbage
        long alloc = THREADS.getCurrentThreadAllocatedBytes();
        long cpu = THREADS.getCurrentThreadCpuTime();
        long start = System.nanoTime();
        d.read(capture);
        long wall = System.nanoTime() - start;
        return new Run(wall, THREADS.getCurrentThreadCpuTime() - cpu, THREADS.getCurrentThreadAllocatedBytes() - alloc);
    }

    /** Every file under {@code dir} through every reader: read without an error, and with critpath's packets and fields. */
    private static void coverage(Path dir, PrintWriter out, PrintWriter err) throws Exception {
        List<Decoder> decoders = CaptureDecoders.ALL;
        List<Path> files;
        try (Stream<Path> s = Files.walk(dir)) {
            files = s.filter(Files::isRegularFile).filter(f -> !f.getFileName().toString().endsWith(".md")).sorted().toList();
        }
        err.printf(Locale.ROOT, "reading the %d captures under %s with each reader%n", files.size(), dir);
        err.flush();
        int[] readable = new int[decoders.size()];
        int[] same = new int[decoders.size()];
        List<String> failures = new ArrayList<>();
        for (Path f : files) {
            Tally reference = null;
            for (int i = 0; i < decoders.size(); i++) {
                Decoder d = decoders.get(i);
                try {
                    Tally t = d.read(f);
                    readable[i]++;
                    if (i == 0) {
                        reference = t;
                    }
                    if (t.equals(reference)) {
                        same[i]++;
                    } else {
                        failures.add(String.format(Locale.ROOT, "  %s: %s: %,d TCP packets, critpath %s", dir.relativize(f), d.name(), t.packets(),
                                reference == null ? "cannot read it" : String.format(Locale.ROOT, "%,d%s", reference.packets(),
                                        t.packets() == reference.packets() ? ", other field values" : "")));
                    }
                } catch (Exception | LinkageError e) {
                    failures.add(String.format(Locale.ROOT, "  %s: %s: %s", dir.relativize(f), d.name(), e.toString().replace('\n', ' ')));
                }
            }
        }
        out.printf(Locale.ROOT, "%n%-44s %22s %36s%n", String.format(Locale.ROOT, "%d captures under %s", files.size(), dir.getFileName()),
                "read without an error", "same packets and fields as critpath");
        for (int i = 0; i < decoders.size(); i++) {
            out.printf(Locale.ROOT, "%-44s %22d %36d%n", decoders.get(i).name(), readable[i], same[i]);
        }
        out.println("where they differ:");
        failures.forEach(out::println);
        out.flush();
    }

    private interface Field {
        long of(Run r);
    }

    private static long median(List<Run> runs, Field f) {
        List<Long> v = new ArrayList<>(runs.stream().map(f::of).toList());
        Collections.sort(v);
        return v.get(v.size() / 2);
    }

    private static long min(List<Run> runs, Field f) {
        return runs.stream().mapToLong(f::of).min().orElseThrow();
    }

    private static long max(List<Run> runs, Field f) {
        return runs.stream().mapToLong(f::of).max().orElseThrow();
    }

    private static double rate(long packets, long ns) {
        return packets / (ns / 1e9);
    }
}
