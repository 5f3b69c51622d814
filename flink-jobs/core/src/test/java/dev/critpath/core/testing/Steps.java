package dev.critpath.core.testing;

import dev.critpath.core.analysis.AnalysisConfig;
import dev.critpath.core.analysis.PathPrior;
import dev.critpath.core.analysis.align.Timeline;
import dev.critpath.core.analysis.clean.SensorView;
import dev.critpath.core.analysis.clean.SequenceSpace;
import dev.critpath.core.analysis.path.CriticalPath;
import dev.critpath.core.analysis.sender.SenderSim;
import dev.critpath.core.trace.ConnectionTrace;
import java.util.ArrayList;
import java.util.List;

/** The analysis's steps run one after another as Analyzer runs them, each value kept for a step's own test. */
public record Steps(ConnectionTrace trace, SequenceSpace space, Timeline timeline, SenderSim c2s, SenderSim s2c, CriticalPath path) {
    private static final AnalysisConfig CONFIG = AnalysisConfig.defaults();

    /** Cleaned and aligned: the timeline. */
    public static Timeline aligned(ConnectionTrace t, PathPrior prior) {
        return Timeline.align(cleaned(t, new SequenceSpace(t)), CONFIG, prior);
    }

    /** Every step before the profile. */
    public static Steps run(ConnectionTrace t) {
        SequenceSpace space = new SequenceSpace(t);
        Timeline tl = Timeline.align(cleaned(t, space), CONFIG, PathPrior.NONE);
        SenderSim c2s = new SenderSim(tl.txs, true, CONFIG, SenderSim.segmentSize(space.smssC2s, tl.txs, true), space.wscaleServer,
                space.sackPermitted);
        SenderSim s2c = new SenderSim(tl.txs, false, CONFIG, SenderSim.segmentSize(space.smssS2c, tl.txs, false), space.wscaleClient,
                space.sackPermitted);
        c2s.run();
        s2c.run();
        return new Steps(t, space, tl, c2s, s2c, new CriticalPath(tl));
    }

    private static List<SensorView> cleaned(ConnectionTrace t, SequenceSpace space) {
        List<SensorView> views = new ArrayList<>();
        t.captures().stream().filter(c -> !c.packets().isEmpty()).forEach(c -> views.add(SensorView.clean(c, space, CONFIG)));
        return views;
    }
}
