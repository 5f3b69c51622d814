package dev.critpath.core.analysis.profile;

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

    /**
     * Both directions at once, into their stats.
     *
     * @param dataByDep every data transmission whose departure is known, in departure order
     */
    static void count(Tx[] dataByDep, long fromUs, DirectionStats c2s, DirectionStats s2c) {
        // per direction, C2S first: the first and last data sent, and the bytes after the first
        Tx[] first = new Tx[2];
        Tx[] last = new Tx[2];
        long[] rated = new long[2];
        for (Tx t : dataByDep) {
            if (t.dep() < fromUs) {
                continue;
            }
            int d = t.c2s() ? 0 : 1;
            if (first[d] == null) {
                first[d] = t;
            } else {
                rated[d] += t.p.len;
            }
            last[d] = t;
        }
        long[] span = new long[2];
        for (int d = 0; d < 2; d++) {
            span[d] = first[d] == null ? 0 : last[d].dep() - first[d].dep();
        }
        long[] bursty = new long[2];
        Tx[] prev = new Tx[2];
        for (Tx t : dataByDep) {
            if (t.dep() < fromUs) {
                continue;
            }
            int d = t.c2s() ? 0 : 1;
            if (prev[d] != null) {
                long gap = t.dep() - prev[d].dep();
                long len = t.p.len;
                // len / gap >= FACTOR * rated / span, kept in integers
                if (gap == 0 || (double) len * span[d] >= (double) FACTOR * rated[d] * gap) {
                    bursty[d] += len;
                }
            }
            prev[d] = t;
        }
        DirectionStats[] stats = {c2s, s2c};
        for (int d = 0; d < 2; d++) {
            if (first[d] != last[d]) { // two data packets or more
                stats[d].ratedBytes += rated[d];
                stats[d].burstBytes += bursty[d];
            }
        }
    }
}
