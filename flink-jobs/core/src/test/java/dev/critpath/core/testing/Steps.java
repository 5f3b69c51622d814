package dev.critpath.core.testing;

import dev.critpath.core.analysis.AnalysisConfig;
import dev.critpath.core.analysis.Direction;
import dev.critpath.core.analysis.PathPrior;
import dev.critpath.core.analysis.align.Timeline;
import dev.critpath.core.analysis.clean.SensorView;
import dev.critpath.core.analysis.clean.SequenceSpace;
import dev.critpath.core.analysis.path.CriticalPath;
import dev.critpath.core.analysis.rounds.Rounds;
import dev.critpath.core.analysis.sender.SenderMarks;
import dev.critpath.core.analysis.sender.SenderReplay;
import dev.critpath.core.analysis.sender.SenderSim;
import dev.critpath.core.trace.ConnectionTrace;
import java.util.ArrayList;
import java.util.List;

/** The analysis's steps run one after another as Analyzer runs them, each value kept for a step's own test. */
public record Steps(ConnectionTrace trace, SequenceSpace space, Timeline timeline, SenderReplay senders, Rounds rounds, CriticalPath path) {
    private static final AnalysisConfig CONFIG = AnalysisConfig.defaults();

    /** Cleaned and aligned: the timeline. */
    public static Timeline aligned(ConnectionTrace t, PathPrior prior) {
        return Timeline.align(cleaned(t, new SequenceSpace(t), CONFIG), CONFIG, prior);
    }

    /** The forward pass alone, under a configuration and with one segment size for both senders. */
    public static Forward forwardPass(ConnectionTrace t, AnalysisConfig cfg, int mss) {
        SequenceSpace space = new SequenceSpace(t);
        Timeline tl = Timeline.align(cleaned(t, space, cfg), cfg, PathPrior.NONE);
        SenderMarks marks = new SenderMarks(tl.txs.size());
        new SenderSim(tl.txs, Direction.C2S, cfg, mss, space.wscaleServer, space.sackPermitted, marks, tl.mode).run();
        new SenderSim(tl.txs, Direction.S2C, cfg, mss, space.wscaleClient, space.sackPermitted, marks, tl.mode).run();
        return new Forward(tl, marks);
    }

    /** The timeline and what the senders' replay marked on it. */
    public record Forward(Timeline timeline, SenderMarks marks) {
    }

    /** Every step before the profile. */
    public static Steps run(ConnectionTrace t) {
        SequenceSpace space = new SequenceSpace(t);
        Timeline tl = Timeline.align(cleaned(t, space, CONFIG), CONFIG, PathPrior.NONE);
        SenderReplay senders = SenderReplay.of(tl, space, CONFIG);
        Rounds rounds = Rounds.of(tl, senders.marks());
        return new Steps(t, space, tl, senders, rounds, CriticalPath.of(rounds));
    }

    private static List<SensorView> cleaned(ConnectionTrace t, SequenceSpace space, AnalysisConfig cfg) {
        List<SensorView> views = new ArrayList<>();
        t.captures().stream().filter(c -> !c.packets().isEmpty()).forEach(c -> views.add(SensorView.clean(c, space, cfg)));
        return views;
    }
}
