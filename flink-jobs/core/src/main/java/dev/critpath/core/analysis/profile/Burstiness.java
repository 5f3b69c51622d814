package dev.critpath.core.analysis.profile;

import dev.critpath.core.analysis.Direction;
import dev.critpath.core.analysis.DirectionStats;
import dev.critpath.core.analysis.align.Tx;

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

    /** @param dataByDep every data transmission whose departure is known, in departure order */
    static void count(Tx[] dataByDep, Direction dir, long fromUs, DirectionStats stats) {
        boolean c2s = dir == Direction.C2S;
        Tx first = null;
        Tx last = null;
        long rated = 0;
        for (Tx t : dataByDep) {
            if (sent(t, c2s, fromUs)) {
                if (first == null) {
                    first = t;
                } else {
                    rated += t.p.len;
                }
                last = t;
            }
        }
        if (first == last) {
            return; // fewer than two
        }
        long span = last.dep() - first.dep();
        long bursty = 0;
        Tx prev = null;
        for (Tx t : dataByDep) {
            if (!sent(t, c2s, fromUs)) {
                continue;
            }
            if (prev != null) {
                long gap = t.dep() - prev.dep();
                long len = t.p.len;
                // len / gap >= FACTOR * rated / span, kept in integers
                if (gap == 0 || (double) len * span >= (double) FACTOR * rated * gap) {
                    bursty += len;
                }
            }
            prev = t;
        }
        stats.ratedBytes += rated;
        stats.burstBytes += bursty;
    }

    private static boolean sent(Tx t, boolean c2s, long fromUs) {
        return t.c2s() == c2s && t.dep() >= fromUs;
    }
}
