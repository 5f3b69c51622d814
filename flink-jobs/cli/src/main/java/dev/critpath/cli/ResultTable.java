package dev.critpath.cli;

import dev.critpath.core.analysis.Category;
import dev.critpath.core.analysis.ConnectionProfile;
import dev.critpath.core.analysis.Direction;
import dev.critpath.core.analysis.PathArc;
import dev.critpath.core.screen.ConnectionResult;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The per-connection table `critpath analyze` prints: time split in ms and %, and the verdict.
 * Results come one at a time and are kept as compact rows, at most {@link #MAX_ROWS} of them (the
 * highest screen scores), so a capture of any number of connections prints in bounded memory.
 */
final class ResultTable {
    /** Column headings; CategoryListsTest checks that every category has one. */
    static final Map<Category, String> HEADERS = new EnumMap<>(Map.ofEntries(
            Map.entry(Category.SERVER, "server"), Map.entry(Category.CLIENT, "client"),
            Map.entry(Category.PROPAGATION, "propagation"), Map.entry(Category.QUEUING, "queuing"),
            Map.entry(Category.LOSS_TIMEOUT, "loss:timeout"), Map.entry(Category.LOSS_FAST_RETRANSMIT, "loss:fast-rtx"),
            Map.entry(Category.LOSS_BACKOFF, "loss:backoff"), Map.entry(Category.IDLE, "idle"),
            Map.entry(Category.SERVER_OR_QUEUING, "server|queuing"), Map.entry(Category.CLIENT_OR_QUEUING, "client|queuing"),
            Map.entry(Category.UNKNOWN, "unknown")));
    /** Rows kept for printing at most; the files (--json, --parquet) have every connection. */
    static final int MAX_ROWS = 10_000;
    /** Below this many connections the boring ones are printed too. */
    static final int SMALL = 50;

    /** What a printed row needs of a result. */
    private record Row(long startUs, String connection, String mode, long durationUs, long[] times, boolean boring,
            List<String> findings, String explanation, long scoreUs, List<String> arcLines, String warning) {
    }

    /** Worth a look before boring, then by score: the first rows to print, the last to drop. */
    private static final Comparator<Row> PRIORITY = Comparator.comparing(Row::boring)
            .thenComparing(Comparator.comparingLong(Row::scoreUs).reversed());

    private final PrintWriter out;
    private final Integer top;
    private final boolean all;
    private final boolean withArcs;
    /** The rows to print so far, the one to drop next at the head. */
    private final PriorityQueue<Row> kept = new PriorityQueue<>(PRIORITY.reversed());
    private long connections;
    private long boring;
    private long sideContradicted;
    private long sensorsColocated;

    ResultTable(PrintWriter out, Integer top, boolean all, boolean withArcs) {
        this.out = out;
        this.top = top;
        this.all = all;
        this.withArcs = withArcs;
    }

    void add(ConnectionResult r) {
        connections++;
        boring += r.verdict().boring() ? 1 : 0;
        sensorsColocated += r.profile().quality.sensorsColocated() ? 1 : 0;
        sideContradicted += r.profile().quality.sideContradicted() && !r.profile().quality.sensorsColocated() ? 1 : 0;
        if (!all && connections == SMALL) {
            kept.removeIf(Row::boring); // no longer a small run: only what is worth a look
        }
        if (r.verdict().boring() && !all && connections >= SMALL) {
            return;
        }
        ConnectionProfile p = r.profile();
        long[] times = new long[Category.values().length];
        for (Category c : Category.values()) {
            times[c.ordinal()] = p.times.get(c);
        }
        kept.add(new Row(p.startUs, p.clientAddr + ":" + p.clientPort + " > " + p.serverAddr + ":" + p.serverPort,
                modeLabel(p), p.durationUs(), times, r.verdict().boring(), r.verdict().findings(),
                r.verdict().explanation(), r.verdict().scoreUs(), withArcs ? arcLines(r) : List.of(), warning(p)));
        if (kept.size() > (top != null ? top : MAX_ROWS)) {
            kept.poll();
        }
    }

    void print() {
        List<Row> shown = new ArrayList<>(kept);
        shown.sort(top != null ? PRIORITY : Comparator.comparingLong(Row::startUs));
        List<Category> cols = new ArrayList<>();
        for (Category c : Category.values()) {
            if (shown.stream().anyMatch(r -> r.times()[c.ordinal()] > 0)) {
                cols.add(c);
            }
        }
        StringBuilder h = new StringBuilder(String.format(Locale.ROOT, "%-4s %-46s %-11s %11s", "#", "connection (client > server)", "sensors", "duration"));
        for (Category c : cols) {
            h.append(String.format(Locale.ROOT, " %16s", HEADERS.get(c)));
        }
        h.append("  verdict");
        out.println(h);
        int n = 0;
        for (Row r : shown) {
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%-4d %-46s %-11s %8.1f ms", ++n, r.connection(), r.mode(), r.durationUs() / 1000.0));
            for (Category c : cols) {
                long us = r.times()[c.ordinal()];
                row.append(String.format(Locale.ROOT, " %16s", us == 0 ? "-" : String.format(Locale.ROOT, "%.1f (%.0f%%)", us / 1000.0, 100.0 * us / Math.max(1, r.durationUs()))));
            }
            row.append("  ").append(r.boring() ? "boring" : "LOOK: " + String.join(", ", r.findings()));
            out.println(row);
            if (r.warning() != null) {
                out.println("       WARNING: " + r.warning());
            }
            if (!r.boring()) {
                out.println("       why: " + r.explanation());
            }
            r.arcLines().forEach(out::println);
        }
        out.printf(Locale.ROOT, "%n%d connections, %d boring, %d worth a look%s%n", connections, boring, connections - boring,
                shown.size() < connections ? " (" + shown.size() + " shown; " + (shown.size() < MAX_ROWS || top != null
                        ? "--all shows every connection)" : "the highest screen scores; --json or --parquet has every connection)") : "");
        if (sensorsColocated > 0) {
            out.printf(Locale.ROOT, "WARNING: %d connection(s) seen by both captures at one point (the same file twice, or two taps on one link): "
                    + "each analysed as one capture alone%n", sensorsColocated);
        }
        if (sideContradicted > 0) {
            out.printf(Locale.ROOT, "WARNING: %d connection(s) captured on the other side than the one given: their packets (TTLs, handshake) "
                    + "say so, and their server and client blame are likely swapped%n", sideContradicted);
        }
        out.flush();
    }

    /** The capture mode as the table prints it: client-side, server-side, two-point. */
    private static String modeLabel(ConnectionProfile p) {
        return p.mode.key().replace('_', '-');
    }

    /** What a row must say before its figures are read, or null. */
    private static String warning(ConnectionProfile p) {
        if (p.quality.sensorsColocated()) {
            return "both captures saw it at one point (its packets crossed from one to the other in a twentieth of its round trip): analysed as the "
                    + modeLabel(p) + " capture alone";
        }
        return p.quality.sideContradicted() ? contradiction(p.mode.key()) : null;
    }

    /** The side a capture was given as (the row's mode) and where its packets put it. */
    private static String contradiction(String mode) {
        boolean givenServer = mode.startsWith("server");
        return "given as the " + (givenServer ? "server" : "client") + "'s capture, but its packets (TTLs, handshake) say it was taken next to the "
                + (givenServer ? "client" : "server") + ": the " + (givenServer ? "server" : "client") + " time here is likely the round trip";
    }

    private static List<String> arcLines(ConnectionResult r) {
        long t0 = r.profile().startUs;
        List<String> lines = new ArrayList<>();
        for (PathArc a : r.arcs()) {
            lines.add(String.format(Locale.ROOT, "       %9.3f ms %-8s %-7s %-20s %9.3f ms  %s %s seq %d len %d%s",
                    (a.fromUs() - t0) / 1000.0, a.kind().key(), a.endpoint().key(), a.category().key(), a.durationUs() / 1000.0,
                    a.direction() == Direction.C2S ? "C>S" : "S>C", a.flags(), a.seq(), a.len(), a.estimated() ? " (estimated)" : ""));
        }
        return lines;
    }
}
