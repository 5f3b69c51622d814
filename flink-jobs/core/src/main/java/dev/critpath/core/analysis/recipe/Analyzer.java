package dev.critpath.core.analysis.recipe;

import dev.critpath.core.analysis.AnalysisConfig;
import dev.critpath.core.analysis.ConnectionAnalysis;
import dev.critpath.core.analysis.PathPrior;
import dev.critpath.core.analysis.SegmentStart;
import dev.critpath.core.analysis.align.Timeline;
import dev.critpath.core.analysis.clean.SensorView;
import dev.critpath.core.analysis.clean.SequenceSpace;
import dev.critpath.core.analysis.path.CriticalPath;
import dev.critpath.core.analysis.profile.Profiler;
import dev.critpath.core.analysis.rounds.Rounds;
import dev.critpath.core.analysis.sender.SenderReplay;
import dev.critpath.core.trace.ConnectionTrace;
import dev.critpath.core.trace.SensorCapture;
import java.util.ArrayList;
import java.util.List;

/**
 * Critical path analysis of one connection: clean each sensor's view, align them on the client's
 * timeline, replay both senders' windows (forward pass), walk the dependence graph back from the
 * client's last packet (backward pass), and profile the path into delay categories.
 */
public final class Analyzer {
    private final AnalysisConfig cfg;

    public Analyzer(AnalysisConfig cfg) {
        this.cfg = cfg;
    }

    public static Analyzer defaults() {
        return new Analyzer(AnalysisConfig.defaults());
    }

    public AnalysisConfig config() {
        return cfg;
    }

    public ConnectionAnalysis analyze(ConnectionTrace trace) {
        return analyze(trace, PathPrior.NONE);
    }

    public ConnectionAnalysis analyze(ConnectionTrace trace, PathPrior prior) {
        return analyze(trace, SegmentStart.WHOLE, prior);
    }

    /**
     * One segment of a long-lived connection (see {@link SegmentedConnection}): the trace holds the
     * connection's handshake restarted just before the segment's packets; times, arcs, exchanges
     * and counts cover only what happened from {@code start.fromUs()} on.
     */
    public ConnectionAnalysis analyze(ConnectionTrace trace, SegmentStart start, PathPrior prior) {
        SequenceSpace bases = new SequenceSpace(trace);
        List<SensorView> views = new ArrayList<>();
        for (SensorCapture c : trace.captures()) {
            if (!c.packets().isEmpty()) {
                views.add(SensorView.clean(c, bases, cfg));
            }
        }
        Timeline tl = Timeline.align(views, cfg, prior);
        SenderReplay senders = SenderReplay.of(tl, bases, cfg);
        CriticalPath path = CriticalPath.of(Rounds.of(tl, senders.marks()));
        return new Profiler(cfg, prior).profile(trace, bases, tl, senders, path, start);
    }
}
