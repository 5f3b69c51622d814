package dev.critpath.core.analysis.profile;

import dev.critpath.core.analysis.Direction;
import dev.critpath.core.analysis.DirectionStats;
import dev.critpath.core.analysis.InOrder;
import dev.critpath.core.analysis.align.Tx;
import java.util.ArrayList;
import java.util.List;

/**
 * Shepard's burstiness (paper 003, section 4.1): each data byte's instantaneous rate is its
 * packet's length over the time since the sender's previous data packet; the bytes sent at
 * {@value #FACTOR} times the direction's own throughput or faster are the ones sent in a burst
 * (his integrated histograms show such bytes at rates a hundred times the throughput and more,
 * the rest near zero). Counted into the direction's stats; the share is the profile's burstiness.
 */
final class Burstiness {
    /** How much faster than the direction's throughput a byte must leave to count as bursty. */
    static final int FACTOR = 10;

    private Burstiness() {
    }

    static void count(List<Tx> txs, Direction dir, long fromUs, DirectionStats stats) {
        List<Tx> data = new ArrayList<>();
        for (Tx t : txs) {
            if (t.direction() == dir && t.isData() && t.dep() != Tx.NONE && t.dep() >= fromUs) {
                data.add(t);
            }
        }
        if (data.size() < 2) {
            return;
        }
        InOrder.sortBy(data, Tx::dep);
        long span = data.get(data.size() - 1).dep() - data.get(0).dep();
        long rated = 0;
        for (Tx t : data.subList(1, data.size())) {
            rated += t.p.len;
        }
        long bursty = 0;
        for (int i = 1; i < data.size(); i++) {
            long gap = data.get(i).dep() - data.get(i - 1).dep();
            long len = data.get(i).p.len;
            // len / gap >= FACTOR * rated / span, kept in integers
            if (gap == 0 || (double) len * span >= (double) FACTOR * rated * gap) {
                bursty += len;
            }
        }
        stats.ratedBytes += rated;
        stats.burstBytes += bursty;
    }
}
