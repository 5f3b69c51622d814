package dev.critpath.streaming;

import dev.critpath.core.lifecycle.ConnectionLifecycle;
import java.util.ArrayList;
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
    private final int maxParallelism;
    private final KeyGroupRange range;
    /** Per key group of the range: connections, events, tombstones. */
    private final long[][] byGroup;
    private long flowsBefore;
    private long eventsBefore;
    private long tombstonesBefore;

    KeyGroupTotals(int maxParallelism, KeyGroupRange range) {
        this.maxParallelism = maxParallelism;
        this.range = range;
        this.byGroup = new long[range.getNumberOfKeyGroups()][3];
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
            long[] t = byGroup[KeyGroupRangeAssignment.assignToKeyGroup(key, maxParallelism) - range.getStartKeyGroup()];
            // never below zero: flows held before totals were kept per group were not counted in theirs
            t[0] = Math.max(0, t[0] + flows);
            t[1] = Math.max(0, t[1] + events);
            t[2] = Math.max(0, t[2] + tombstones);
        }
    }

    /** Rows {key group, connections, events, tombstones} for the groups holding anything. */
    List<long[]> snapshot() {
        List<long[]> rows = new ArrayList<>();
        for (int i = 0; i < byGroup.length; i++) {
            long[] t = byGroup[i];
            if ((t[0] | t[1] | t[2]) != 0) {
                rows.add(new long[] {range.getStartKeyGroup() + i, t[0], t[1], t[2]});
            }
        }
        return rows;
    }

    /** Takes back a checkpoint's row when its key group is this instance's. */
    void restore(long[] row, ConnectionLifecycle lifecycle) {
        int group = (int) row[0];
        if (!range.contains(group)) {
            return;
        }
        long[] t = byGroup[group - range.getStartKeyGroup()];
        t[0] += row[1];
        t[1] += row[2];
        t[2] += row[3];
        lifecycle.restoreTotals(row[1], row[2], row[3]);
    }
}
