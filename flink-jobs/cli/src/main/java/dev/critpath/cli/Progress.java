package dev.critpath.cli;

import java.io.PrintWriter;
import java.nio.file.Path;

/** Progress lines on stderr for long reads and analyses, at most one every two seconds. */
final class Progress {
    private static final long INTERVAL_NS = 2_000_000_000L;
    private final PrintWriter err;
    private final boolean quiet;
    private long packets;
    private long lastReport = System.nanoTime();
    private final long started = System.nanoTime();

    Progress(PrintWriter err, boolean quiet) {
        this.err = err;
        this.quiet = quiet;
    }

    void reading(Path file) {
        say("reading " + file);
    }

    void packet() {
        packets++;
        if ((packets & 0xffff) == 0 && due()) {
            say(String.format(java.util.Locale.ROOT, "  %,d packets read (%.1f s)", packets, seconds()));
        }
    }

    void readDone(Path file, String stats) {
        say("  " + file.getFileName() + ": " + stats);
    }

    void analysed(int done, int total) {
        if (due() || done == total) {
            say(String.format(java.util.Locale.ROOT, "analysed %,d of %,d connections (%.1f s)", done, total, seconds()));
        }
    }

    void done() {
        err.flush();
    }

    private boolean due() {
        long now = System.nanoTime();
        if (now - lastReport >= INTERVAL_NS) {
            lastReport = now;
            return true;
        }
        return false;
    }

    private double seconds() {
        return (System.nanoTime() - started) / 1e9;
    }

    private void say(String s) {
        if (!quiet) {
            err.println(s);
            err.flush();
        }
    }
}
