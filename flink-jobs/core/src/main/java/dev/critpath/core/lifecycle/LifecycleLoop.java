package dev.critpath.core.lifecycle;

import dev.critpath.core.event.PacketEvent;
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
    /** Like Flink's: one per flow and time, fired in time order. */
    private record Timer(long atMs, String flow) implements Comparable<Timer> {
        @Override
        public int compareTo(Timer o) {
            int c = Long.compare(atMs, o.atMs);
            return c != 0 ? c : flow.compareTo(o.flow);
        }
    }

    private final ConnectionLifecycle lifecycle;
    private final Consumer<FinishedConnection> finished;
    private final Consumer<Rejection> rejected;
    /** Flows with state or buffered events: one lookup per event finds both. */
    private final Map<String, Flow> flows = new HashMap<>();
    private final TreeSet<Timer> timers = new TreeSet<>();
    private final PackedEvents.ChunkPool chunks = new PackedEvents.ChunkPool();
    private long watermarkMs = Long.MIN_VALUE;

    public LifecycleLoop(ConnectionLifecycle lifecycle, Consumer<FinishedConnection> finished, Consumer<Rejection> rejected) {
        this.lifecycle = lifecycle;
        this.finished = finished;
        this.rejected = rejected;
    }

    public void add(PacketEvent e) {
        String flow = e.communityId();
        Flow f = flows.get(flow);
        if (f == null) {
            f = new Flow(flow);
        }
        lifecycle.onEvent(flow, f.state, e, watermarkMs, f);
    }

    /** Moves the watermark (never back) and fires the timers it reached, in time order. */
    public void advanceWatermark(long ms) {
        if (ms <= watermarkMs) {
            return;
        }
        watermarkMs = ms;
        while (!timers.isEmpty() && timers.first().atMs() <= ms) {
            Timer t = timers.pollFirst();
            Flow f = flows.get(t.flow());
            if (f == null) {
                f = new Flow(t.flow());
            }
            lifecycle.onTimer(t.flow(), f.state, t.atMs(), ms, f, f);
        }
    }

    /** Everything still held is finalised, and every tombstone expires. */
    public void endOfInput() {
        advanceWatermark(Long.MAX_VALUE);
    }

    /** Flows with state (connections and tombstones). */
    public int flowsWithState() {
        int n = 0;
        for (Flow f : flows.values()) {
            if (f.state != null) {
                n++;
            }
        }
        return n;
    }

    public int timersSet() {
        return timers.size();
    }

    /** The flow's state, null when none is held. */
    public FlowState stateOf(String flow) {
        Flow f = flows.get(flow);
        return f == null ? null : f.state;
    }

    /** One flow's state and buffer, and the actions on them; in the map while it holds either. */
    private final class Flow implements LifecycleActions, ConnectionLifecycle.Buffer {
        private final String flow;
        FlowState state;
        PackedEvents buffer;
        /** Kept as events are buffered: the close grace's check reads none back. */
        private CloseEvidence closeEvidence = new CloseEvidence();
        private boolean inMap;

        Flow(String flow) {
            this.flow = flow;
        }

        /** Into the map when it first holds something, out when it holds nothing. */
        private void held() {
            boolean holds = state != null || buffer != null;
            if (holds != inMap) {
                if (holds) {
                    flows.put(flow, this);
                } else {
                    flows.remove(flow);
                }
                inMap = holds;
            }
        }

        @Override
        public Iterable<PacketEvent> events() {
            return buffer != null ? buffer : List.of();
        }

        @Override
        public boolean stillOpen() {
            return closeEvidence.stillOpen();
        }

        @Override
        public void buffer(PacketEvent e) {
            if (buffer == null) {
                buffer = new PackedEvents(chunks);
                held();
            }
            buffer.add(e);
            closeEvidence.add(e);
        }

        @Override
        public void countOverCap(PacketEvent e) {
        }

        @Override
        public void replaceBuffer(List<PacketEvent> events) {
            if (buffer != null) {
                buffer.release();
            }
            buffer = new PackedEvents(chunks);
            buffer.addAll(events);
            closeEvidence = new CloseEvidence();
            events.forEach(closeEvidence::add);
            held();
        }

        @Override
        public void clearBuffer() {
            if (buffer != null) {
                buffer.release();
            }
            buffer = null;
            closeEvidence = new CloseEvidence();
            held();
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
        public void store(FlowState s) {
            state = s;
            held();
        }

        @Override
        public void clear() {
            state = null;
            clearBuffer();
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
