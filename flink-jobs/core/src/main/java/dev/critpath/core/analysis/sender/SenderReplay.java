package dev.critpath.core.analysis.sender;

import dev.critpath.core.analysis.AnalysisConfig;
import dev.critpath.core.analysis.Direction;
import dev.critpath.core.analysis.DirectionStats;
import dev.critpath.core.analysis.align.Timeline;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.analysis.clean.SequenceSpace;

/** The forward pass's result: both senders replayed, what each counted, and what it learned about every transmission. */
public record SenderReplay(DirectionStats c2s, DirectionStats s2c, SenderMarks marks) {

    /**
     * Replays the client's and the server's sender over the timeline, each with its own segment
     * size and its receiver's window scale. SACK is on when both SYNs offered it, or when SACK
     * blocks show it was (the handshake not captured).
     */
    public static SenderReplay of(Timeline tl, SequenceSpace space, AnalysisConfig cfg) {
        Transmissions txs = Transmissions.of(tl.txs);
        SenderMarks marks = new SenderMarks(tl.txs.size());
        boolean sack = space.sackPermitted || anySackBlocks(txs.c2s()) || anySackBlocks(txs.s2c());
        DirectionStats c2s = new SenderSim(txs, Direction.C2S, cfg, segmentSize(space.smssC2s, txs.c2s()),
                space.wscaleServer, sack, marks, tl.mode).run();
        DirectionStats s2c = new SenderSim(txs, Direction.S2C, cfg, segmentSize(space.smssS2c, txs.s2c()),
                space.wscaleClient, sack, marks, tl.mode).run();
        return new SenderReplay(c2s, s2c, marks);
    }

    /** The sender's segment size: MSS option minus timestamps, else the largest segment seen. */
    private static int segmentSize(int fromOptions, Tx[] sent) {
        if (fromOptions > 0) {
            return fromOptions;
        }
        int max = 0;
        for (Tx t : sent) {
            if (!t.p.offloadPiece) {
                max = Math.max(max, t.p.len);
            }
        }
        return max > 0 ? max : 1460;
    }

    private static boolean anySackBlocks(Tx[] txs) {
        for (Tx t : txs) {
            if (t.p.sack != null) {
                return true;
            }
        }
        return false;
    }
}
