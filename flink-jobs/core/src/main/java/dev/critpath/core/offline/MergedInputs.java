package dev.critpath.core.offline;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.TcpFlags;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Several inputs read on threads of their own (decoding runs beside the analysis) and merged into
 * one stream in the order of a common clock. Sensor clocks disagree, so each input's offset from
 * the first is estimated from the SYNs both saw among their first packets, and the merge orders by
 * corrected time; events themselves keep their own timestamps (the analysis aligns clocks itself).
 * Memory is a few batches per input.
 */
final class MergedInputs implements AutoCloseable {
    static final int BATCH = 1024;
    /** Packets of each input searched for SYNs seen by the first input too. */
    static final int OFFSET_PREFIX = 50_000;

    /** A batch of events, or the end of an input (with its failure, if reading failed). */
    private record Batch(PacketEvent[] events, int size, Exception failure) {
        boolean isEnd() {
            return events == null;
        }
    }

    /** An input read ahead by its thread. */
    private static final class Lane {
        final EventInput input;
        final BlockingQueue<Batch> queue = new ArrayBlockingQueue<>(8);
        final ArrayDeque<Batch> pending = new ArrayDeque<>();
        Batch current;
        int pos;
        boolean ended;
        long offsetUs;
        Thread thread;

        Lane(EventInput input) {
            this.input = input;
        }

        /** The next event without taking it, null at the end. */
        PacketEvent head() throws InputFailedException, InterruptedException {
            while (!ended && (current == null || pos == current.size())) {
                Batch b = pending.isEmpty() ? queue.take() : pending.poll();
                if (b.isEnd()) {
                    ended = true;
                    if (b.failure() != null) {
                        throw new InputFailedException(input, b.failure());
                    }
                } else {
                    current = b;
                    pos = 0;
                }
            }
            return ended ? null : current.events()[pos];
        }

        long correctedHeadUs() {
            return current.events()[pos].tsUs() - offsetUs;
        }
    }

    /** An array: looked at twice per event, where a list's iterator would be garbage each time. */
    private final Lane[] lanes;
    private final List<String> notes = new ArrayList<>();

    MergedInputs(List<EventInput> inputs) {
        lanes = new Lane[inputs.size()];
        for (int i = 0; i < lanes.length; i++) {
            EventInput in = inputs.get(i);
            Lane lane = new Lane(in);
            lane.thread = new Thread(() -> readInto(lane), "read " + in.name());
            lane.thread.setDaemon(true);
            lanes[i] = lane;
        }
    }

    /** Starts reading, and estimates the clock offsets from the inputs' first packets. */
    void start() throws InputFailedException, InterruptedException {
        for (Lane l : lanes) {
            l.thread.start();
        }
        if (lanes.length > 1) {
            estimateOffsets();
        }
    }

    /** What the merge found out (the offsets it corrected), for the user. */
    List<String> notes() {
        return notes;
    }

    /** The next event in corrected time order, null when every input has ended. */
    PacketEvent next() throws InputFailedException, InterruptedException {
        Lane best = null;
        for (Lane l : lanes) {
            if (l.head() != null && (best == null || l.correctedHeadUs() < best.correctedHeadUs())) {
                best = l;
            }
        }
        return best == null ? null : best.current.events()[best.pos++];
    }

    /**
     * The time no input will go back behind by more than the slack: the earliest of the inputs'
     * next events, on their own clocks (so an input whose clock runs behind is never late); Long.MAX_VALUE at the end.
     */
    long watermarkUs() throws InputFailedException, InterruptedException {
        long min = Long.MAX_VALUE;
        for (Lane l : lanes) {
            PacketEvent h = l.head();
            if (h != null) {
                min = Math.min(min, h.tsUs());
            }
        }
        return min;
    }

    long bytesRead() {
        long n = 0;
        for (Lane l : lanes) {
            n += l.input.bytesRead();
        }
        return n;
    }

    @Override
    public void close() {
        for (Lane l : lanes) {
            l.thread.interrupt();
        }
    }

    private static void readInto(Lane lane) {
        PacketEvent[][] batch = {new PacketEvent[BATCH]};
        int[] n = {0};
        Exception failure = null;
        try {
            lane.input.read(e -> {
                batch[0][n[0]++] = e;
                if (n[0] == BATCH) {
                    put(lane, new Batch(batch[0], BATCH, null));
                    batch[0] = new PacketEvent[BATCH];
                    n[0] = 0;
                }
            });
            if (n[0] > 0) {
                put(lane, new Batch(batch[0], n[0], null));
            }
        } catch (StoppedException e) {
            return; // closed early: nobody waits for the rest
        } catch (Exception e) {
            failure = e;
        }
        try {
            lane.queue.put(new Batch(null, 0, failure));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void put(Lane lane, Batch b) {
        try {
            lane.queue.put(b);
        } catch (InterruptedException e) {
            throw new StoppedException();
        }
    }

    /** Unwinds a reader whose merge was closed. */
    private static final class StoppedException extends RuntimeException {
        StoppedException() {
            super(null, null, false, false);
        }
    }

    /** Each input's offset from the first: the median difference of the SYNs both saw among their first packets. */
    private void estimateOffsets() throws InputFailedException, InterruptedException {
        List<Map<String, Long>> syns = new ArrayList<>();
        for (Lane l : lanes) {
            Map<String, Long> seen = new HashMap<>();
            int taken = 0;
            while (taken < OFFSET_PREFIX) {
                Batch b = l.queue.take();
                l.pending.add(b);
                if (b.isEnd()) {
                    break;
                }
                for (int i = 0; i < b.size(); i++) {
                    PacketEvent e = b.events()[i];
                    if (e.hasFlag(TcpFlags.SYN) && !e.hasFlag(TcpFlags.ACK)) {
                        seen.putIfAbsent(e.communityId() + "/" + e.seq(), e.tsUs());
                    }
                }
                taken += b.size();
            }
            syns.add(seen);
        }
        for (int i = 1; i < lanes.length; i++) {
            long[] diffs = syns.get(i).entrySet().stream().filter(e -> syns.get(0).containsKey(e.getKey()))
                    .mapToLong(e -> e.getValue() - syns.get(0).get(e.getKey())).toArray();
            Lane l = lanes[i];
            if (diffs.length == 0) {
                notes.add(l.input.name() + ": no SYN in its first " + OFFSET_PREFIX + " packets was also in "
                        + lanes[0].input.name() + "'s: merged by the files' own timestamps");
                continue;
            }
            Arrays.sort(diffs);
            l.offsetUs = diffs[diffs.length / 2];
            notes.add(String.format(java.util.Locale.ROOT, "%s: clock %+.3f s from %s's (median of %d SYNs both saw), merged on the corrected time",
                    l.input.name(), l.offsetUs / 1e6, lanes[0].input.name(), diffs.length));
        }
    }
}
