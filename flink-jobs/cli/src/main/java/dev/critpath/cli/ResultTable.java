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

/** The per-connection table `critpath analyze` prints: time split in ms and %, and the verdict. */
final class ResultTable {
    /** Column headings; CategoryListsTest checks that every category has one. */
    static final Map<Category, String> HEADERS = new EnumMap<>(Map.ofEntries(
            Map.entry(Category.SERVER, "server"), Map.entry(Category.CLIENT, "client"),
            Map.entry(Category.PROPAGATION, "propagation"), Map.entry(Category.QUEUING, "queuing"),
            Map.entry(Category.LOSS_TIMEOUT, "loss:timeout"), Map.entry(Category.LOSS_FAST_RETRANSMIT, "loss:fast-rtx"),
            Map.entry(Category.LOSS_BACKOFF, "loss:backoff"), Map.entry(Category.IDLE, "idle"),
            Map.entry(Category.SERVER_OR_QUEUING, "server|queuing"), Map.entry(Category.CLIENT_OR_QUEUING, "client|queuing"),
            Map.entry(Category.UNKNOWN, "unknown")));
    private final PrintWriter out;

    ResultTable(PrintWriter out) {
        this.out = out;
    }

    void print(List<ConnectionResult> results, Integer top, boolean includeBoring, boolean withArcs) {
        List<ConnectionResult> shown = new ArrayList<>();
        for (ConnectionResult r : results) {
            if (includeBoring || !r.verdict().boring()) {
                shown.add(r);
            }
        }
        if (top != null) {
            shown.sort(Comparator.comparing((ConnectionResult r) -> r.verdict().boring())
                    .thenComparing(Comparator.comparingLong((ConnectionResult r) -> r.verdict().scoreUs()).reversed()));
            shown = shown.subList(0, Math.min(top, shown.size()));
        }
        List<Category> cols = new ArrayList<>();
        for (Category c : Category.values()) {
            if (shown.stream().anyMatch(r -> r.profile().times.get(c) > 0)) {
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
        for (ConnectionResult r : shown) {
            ConnectionProfile p = r.profile();
            String conn = p.clientAddr + ":" + p.clientPort + " > " + p.serverAddr + ":" + p.serverPort;
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%-4d %-46s %-11s %8.1f ms", ++n, conn, p.mode.key().replace('_', '-'), p.durationUs() / 1000.0));
            for (Category c : cols) {
                long us = p.times.get(c);
                row.append(String.format(Locale.ROOT, " %16s", us == 0 ? "-" : String.format(Locale.ROOT, "%.1f (%.0f%%)", us / 1000.0, 100.0 * us / Math.max(1, p.durationUs()))));
            }
            // the rules are named for what a boring connection shows, so they are listed as failed, never bare
            row.append("  ").append(r.verdict().boring() ? "boring" : "LOOK, failed: " + String.join(",", r.verdict().failedRules()));
            out.println(row);
            if (!r.verdict().boring()) {
                out.println("       why: " + r.verdict().explanation());
            }
            if (withArcs) {
                printArcs(r);
            }
        }
        long boring = results.stream().filter(r -> r.verdict().boring()).count();
        out.printf(Locale.ROOT, "%n%d connections, %d boring, %d worth a look%s%n", results.size(), boring, results.size() - boring,
                shown.size() < results.size() ? " (" + shown.size() + " shown; --all shows every connection)" : "");
        out.flush();
    }

    private void printArcs(ConnectionResult r) {
        long t0 = r.profile().startUs;
        for (PathArc a : r.arcs()) {
            out.printf(Locale.ROOT, "       %9.3f ms %-8s %-7s %-20s %9.3f ms  %s %s seq %d len %d%s%n",
                    (a.fromUs() - t0) / 1000.0, a.kind().key(), a.endpoint().key(), a.category().key(), a.durationUs() / 1000.0,
                    a.direction() == Direction.C2S ? "C>S" : "S>C", a.flags(), a.seq(), a.len(), a.estimated() ? " (estimated)" : "");
        }
    }
}
