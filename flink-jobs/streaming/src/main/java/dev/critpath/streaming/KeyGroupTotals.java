package dev.critpath.streaming;

import dev.critpath.core.lifecycle.ConnectionLifecycle;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

/**
 * The life cycle's totals (connections, buffered events, tombstones) split by the key groups of
 * one instance: rescaling moves key groups between instances, so a checkpoint keeps the totals per
 * key group and each instance takes back exactly those of the groups it gets, as it gets their flows.
 * The life cycle counts per instance; each call on a flow's key is attributed to that key's group
 * by what it changed.
 */
final class KeyGroupTotals {
    private static final int TOTALS = 3;
    private static final int ROW = 1 + TOTALS;

    private final int maxParallelism;
    private final KeyGroupRange range;
    /** Per key group of the range, from its start: connections, events, tombstones. */
    private final long[] byGroup;
    private long flowsBefore;
    private long eventsBefore;
    private long tombstonesBefore;

    KeyGroupTotals(int maxParallelism, KeyGroupRange range) {
        this.maxParallelism = maxParallelism;
        this.range = range;
        this.byGroup = new long[range.getNumberOfKeyGroups() * TOTALS];
    }

    /** The totals before a call on a flow (see {@link #attribute}). */
    void before(ConnectionLifecycle lifecycle) {
        flowsBefore = lifecycle.flowsHeld();
        eventsBefore = lifecycle.eventsBuffered();
        tombstonesBefore = lifecycle.tombstonesHeld();
    }

    /** What the call since {@link #before} changed, added to the group of the flow's key. */
    void attribute(String key, ConnectionLifecycle lifecycle) {
        long flows = lifecycle.flowsHeld() - flowsBefore;
        long events = lifecycle.eventsBuffered() - eventsBefore;
        long tombstones = lifecycle.tombstonesHeld() - tombstonesBefore;
        if ((flows | events | tombstones) != 0) {
            int at = (groupOf(key) - range.getStartKeyGroup()) * TOTALS;
            // never below zero: what was held before a checkpoint from an older critpath was counted in no group
            byGroup[at] = Math.max(0, byGroup[at] + flows);
            byGroup[at + 1] = Math.max(0, byGroup[at + 1] + events);
            byGroup[at + 2] = Math.max(0, byGroup[at + 2] + tombstones);
        }
    }

    /** Whether the key's group is this instance's: what it takes back of what every instance sees on restore. */
    boolean owns(String key) {
        return range.contains(groupOf(key));
    }

    private int groupOf(String key) {
        return KeyGroupRangeAssignment.assignToKeyGroup(key, maxParallelism);
    }

    /**
     * The groups holding anything as one array of rows {key group, connections, events,
     * tombstones}: one entry of union state per instance, as every instance reads them all on restore.
     */
    List<long[]> snapshot() {
        long[] rows = new long[byGroup.length / TOTALS * ROW];
        int n = 0;
        for (int at = 0; at < byGroup.length; at += TOTALS) {
            if ((byGroup[at] | byGroup[at + 1] | byGroup[at + 2]) != 0) {
                rows[n++] = range.getStartKeyGroup() + at / TOTALS;
                System.arraycopy(byGroup, at, rows, n, TOTALS);
                n += TOTALS;
            }
        }
        return n == 0 ? List.of() : List.of(Arrays.copyOf(rows, n));
    }

    /** Takes back the rows of a checkpoint's entry whose key groups are this instance's. */
    void restore(long[] rows, ConnectionLifecycle lifecycle) {
        for (int i = 0; i + ROW <= rows.length; i += ROW) {
            int group = (int) rows[i];
            if (range.contains(group)) {
                int at = (group - range.getStartKeyGroup()) * TOTALS;
                for (int k = 0; k < TOTALS; k++) {
                    byGroup[at + k] += rows[i + 1 + k];
                }
                lifecycle.restoreTotals(rows[i + 1], rows[i + 2], rows[i + 3]);
            }
        }
    }
}
