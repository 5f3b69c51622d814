package dev.critpath.core.analysis.sender;

import dev.critpath.core.analysis.DirectionStats;

/**
 * Runs of data segments the same ACK liberated, sent back to back (paper 003's bursts): the
 * first flight and the longest burst after it, into the direction's counts.
 */
final class Bursts {
    private static final long NONE = Long.MIN_VALUE;

    private final DirectionStats stats;
    private final long gapUs;
    private int liberator = Integer.MIN_VALUE;
    private long length;
    private long lastDep = NONE;
    private boolean fromFlowStart;

    /** @param gapUs the longest pause within a burst */
    Bursts(DirectionStats stats, long gapUs) {
        this.stats = stats;
        this.gapUs = gapUs;
    }

    /**
     * A data segment left at {@code t}, liberated by {@code byTx} (-1: nothing seen).
     *
     * @param opensFlow the liberating ACK opened the connection's first flight
     */
    void sent(int byTx, long t, boolean opensFlow) {
        if (byTx == liberator && lastDep != NONE && t - lastDep <= gapUs) {
            length++;
        } else {
            liberator = byTx;
            length = 1;
            fromFlowStart = opensFlow;
        }
        lastDep = t;
        if (fromFlowStart) {
            stats.initialFlight = Math.max(stats.initialFlight, length);
        } else {
            stats.longestBurst = Math.max(stats.longestBurst, length);
        }
    }
}
