package dev.critpath.cli;

import dev.critpath.core.offline.OfflineAnalysis;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Progress lines on stderr for long analyses, at most one every two seconds: packets and their
 * rate, bytes done, time left, connections open and analysed.
 */
final class Progress implements Consumer<OfflineAnalysis.Progress> {
    private static final long INTERVAL_NS = 2_000_000_000L;
    private final PrintWriter err;
    private long lastReportNs;

    Progress(PrintWriter err) {
        this.err = err;
    }

    @Override
    public void accept(OfflineAnalysis.Progress p) {
        if (!p.done() && p.nanos() - lastReportNs < INTERVAL_NS) {
            return;
        }
        lastReportNs = p.nanos();
        err.println(line(p));
        err.flush();
    }

    static String line(OfflineAnalysis.Progress p) {
        double s = p.nanos() / 1e9;
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%,d packets (%,.0f/s), %s", p.events(), p.events() / s, mb(p.bytesRead())));
        if (p.bytesTotal() > 0) {
            double done = Math.min(1.0, (double) p.bytesRead() / p.bytesTotal());
            b.append(String.format(Locale.ROOT, " of %s (%.0f%%)", mb(p.bytesTotal()), 100 * done));
            if (done > 0) {
                b.append(String.format(Locale.ROOT, ", about %.0f s left", s * (1 - done) / done));
            }
        }
        return b.append(String.format(Locale.ROOT, ", %,d connections open, %,d analysed", p.connectionsHeld(), p.connectionsDone())).toString();
    }

    private static String mb(long bytes) {
        return String.format(Locale.ROOT, "%,.1f MB", bytes / 1e6);
    }
}
