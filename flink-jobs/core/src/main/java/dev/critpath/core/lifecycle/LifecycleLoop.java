package dev.critpath.core.lifecycle;

import dev.critpath.core.event.PacketEvent;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * Drives a {@link ConnectionLifecycle} from a plain loop, holding what a keyed stream would: each
 * flow's state, buffer and timers. Give it events in time order with the watermark moved between
 * them as the input allows, then {@link #endOfInput()}.
 */
public final class LifecycleLoop {
    private record Timer(long atMs, String flow) {
    }

    private final ConnectionLifecycle lifecycle;
    private final Consumer<FinishedConnection> finished;
    private final Consumer<Rejection> rejected;
    private final Map<String, FlowState> states = new HashMap<>();
    private final Map<String, List<PacketEvent>> buffers = new HashMap<>();
    /** Like Flink's: one per flow and time, fired in time order. */
    private final TreeSet<Timer> timers = new TreeSet<>(Comparator.comparingLong(Timer::atMs).thenComparing(Timer::flow));
    private long watermarkMs = Long.MIN_VALUE;

    public LifecycleLoop(ConnectionLifecycle lifecycle, Consumer<FinishedConnection> finished, Consumer<Rejection> rejected) {
        this.lifecycle = lifecycle;
        this.finished = finished;
        this.rejected = rejected;
    }

    public void add(PacketEvent e) {
        String flow = e.communityId();
        lifecycle.onEvent(flow, states.get(flow), e, watermarkMs, new FlowActions(flow));
    }

    /** Moves the watermark (never back) and fires the timers it reached, in time order. */
    public void advanceWatermark(long ms) {
        if (ms <= watermarkMs) {
            return;
        }
        watermarkMs = ms;
        while (!timers.isEmpty() && timers.first().atMs() <= ms) {
            Timer t = timers.pollFirst();
            lifecycle.onTimer(t.flow(), states.get(t.flow()), t.atMs(), ms, () -> buffers.getOrDefault(t.flow(), List.of()),
                    new FlowActions(t.flow()));
        }
    }

    /** Everything still held is finalised, and every tombstone expires. */
    public void endOfInput() {
        advanceWatermark(Long.MAX_VALUE);
    }

    /** Flows with state (connections and tombstones). */
    public int flowsWithState() {
        return states.size();
    }

    public int timersSet() {
        return timers.size();
    }

    /** The flow's state, null when none is held. */
    public FlowState stateOf(String flow) {
        return states.get(flow);
    }

    /** The actions on one flow, carried out on the maps. */
    private final class FlowActions implements LifecycleActions {
        private final String flow;

        FlowActions(String flow) {
            this.flow = flow;
        }

        @Override
        public void buffer(PacketEvent e) {
            buffers.computeIfAbsent(flow, k -> new ArrayList<>()).add(e);
        }

        @Override
        public void countOverCap(PacketEvent e) {
        }

        @Override
        public void replaceBuffer(List<PacketEvent> events) {
            buffers.put(flow, new ArrayList<>(events));
        }

        @Override
        public void clearBuffer() {
            buffers.remove(flow);
        }

        @Override
        public void setTimer(long atMs) {
            timers.add(new Timer(atMs, flow));
        }

        @Override
        public void deleteTimer(long atMs) {
            timers.remove(new Timer(atMs, flow));
        }

        @Override
        public void store(FlowState state) {
            states.put(flow, state);
        }

        @Override
        public void clear() {
            states.remove(flow);
            buffers.remove(flow);
        }

        @Override
        public void emit(FinishedConnection connection) {
            finished.accept(connection);
        }

        @Override
        public void finalised() {
        }

        @Override
        public void segmentCut() {
        }

        @Override
        public void reject(Rejection rejection) {
            rejected.accept(rejection);
        }
    }
}
