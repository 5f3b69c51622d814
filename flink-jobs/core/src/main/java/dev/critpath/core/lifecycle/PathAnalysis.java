package dev.critpath.core.lifecycle;

import dev.critpath.core.analysis.AnalysisBudgetExceededException;
import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.analysis.recipe.SegmentedConnection;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.screen.ConnectionResult;
import dev.critpath.core.screen.Screen;
import dev.critpath.core.trace.ConnectionAssembler;
import dev.critpath.core.trace.ConnectionTrace;
import java.util.List;
import java.util.function.Supplier;

/**
 * The per-path stage's decisions: analyses each finished connection with what earlier connections
 * taught about its path, its minimum one-way delays (so propagation is the path's, and whatever a
 * connection waited above it is queuing) and the sensors' latest reliable clock offset (for
 * connections that cannot estimate their own); then learns from it. Segments of a long-lived
 * connection are analysed as they come, each from where the one before ended; the profile and
 * verdict come with the last.
 */
public final class PathAnalysis {
    /** Which rows of a result to write. */
    public enum Rows {
        /** A connection analysed in one piece: every table. */
        ALL,
        /** A segment: its critical path and the exchanges it completed. */
        SEGMENT,
        /** A long-lived connection's end: its profile, verdict and last exchange. */
        FINISH
    }

    /** What came of a finished connection. */
    public interface Outcomes {
        void analysed(ConnectionResult result, Rows rows);

        /** An odd trace costs one dead letter, never the job. */
        void failed(Rejection why);
    }

    private final Analyzer analyzer;
    private final Screen screen;

    public PathAnalysis(Analyzer analyzer, Screen screen) {
        this.analyzer = analyzer;
        this.screen = screen;
    }

    /** A connection analysed in one piece (it may hold several instances of a reused port pair). */
    public void whole(FinishedConnection c, PathState path, Outcomes out) {
        for (ConnectionTrace trace : traces(c)) {
            ConnectionResult r = analyse(c, out, () -> screen.apply(analyzer.analyze(trace.withEventsOverCap(c.eventsOverCap()), path.prior())));
            if (r != null) {
                path.learn(r.profile());
                out.analysed(r, Rows.ALL);
            }
        }
    }

    /**
     * One segment of a long-lived connection: its path and finished exchanges now, the profile with
     * the last.
     *
     * @param kept what the segments before left ({@link SegmentedConnection#toBytes}), null for the first
     * @return what to keep for the next segment, null after the last
     */
    public byte[] segment(FinishedConnection c, PathState path, byte[] kept, Outcomes out) {
        SegmentedConnection conn = kept == null ? new SegmentedConnection() : SegmentedConnection.fromBytes(kept);
        for (ConnectionTrace trace : traces(c)) {
            ConnectionResult r = analyse(c, out, () -> screen.apply(conn.add(analyzer, trace.withEventsOverCap(c.eventsOverCap()), path.prior())));
            if (r != null) {
                path.learn(r.profile());
                out.analysed(r, Rows.SEGMENT);
            }
        }
        if (!c.last()) {
            return conn.toBytes();
        }
        if (!conn.isEmpty()) {
            out.analysed(screen.apply(conn.finish()), Rows.FINISH);
        }
        return null;
    }

    private static List<ConnectionTrace> traces(FinishedConnection c) {
        if (c.assembled() != null) {
            return List.of(c.assembled());
        }
        ConnectionAssembler assembler = new ConnectionAssembler();
        for (PacketEvent e : c.events()) {
            assembler.add(e);
        }
        return assembler.connections();
    }

    /** The analysis, or null and a dead letter. */
    private static ConnectionResult analyse(FinishedConnection c, Outcomes out, Supplier<ConnectionResult> analysis) {
        String reason;
        Throwable failure;
        try {
            return analysis.get();
        } catch (AnalysisBudgetExceededException ex) {
            reason = Rejection.ANALYSIS_BUDGET_EXCEEDED;
            failure = ex;
        } catch (RuntimeException | StackOverflowError | OutOfMemoryError ex) {
            // the analysis's own allocations are garbage once it unwinds: the job can go on
            reason = Rejection.ANALYSIS_FAILED;
            failure = ex;
        }
        out.failed(new Rejection(reason, String.valueOf(failure), c.events()[0], null));
        return null;
    }
}
