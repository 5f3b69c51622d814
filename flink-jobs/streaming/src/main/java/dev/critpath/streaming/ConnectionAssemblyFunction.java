package dev.critpath.streaming;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.lifecycle.ConnectionLifecycle;
import dev.critpath.core.lifecycle.FinishedConnection;
import dev.critpath.core.lifecycle.FlowState;
import dev.critpath.core.lifecycle.LifecycleActions;
import dev.critpath.core.lifecycle.Rejection;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.FlinkRuntimeException;
import org.apache.flink.util.OutputTag;

/**
 * Stage 1, keyed by flow (Community ID): the core's connection life cycle
 * ({@link ConnectionLifecycle}: what to buffer, when to finalise, cut or forget, what is late) on
 * Flink's keyed state and event-time timers. The flow's packets wait in keyed list state, its
 * bookkeeping in keyed value state; the instance's totals and half-open flows in operator state.
 * State TTL is a safety net behind the event-time timers.
 */
final class ConnectionAssemblyFunction extends KeyedProcessFunction<String, PacketEvent, FinishedConnection>
        implements CheckpointedFunction {
    static final OutputTag<DeadLetter> REJECTED = new OutputTag<>("connection-rejects", TypeInformation.of(DeadLetter.class));

    private final StreamConfig cfg;
    private transient ConnectionLifecycle lifecycle;
    private transient ListState<PacketEvent> buffered;
    private transient ValueState<FlowState> flow;
    private transient Counter cappedEvents;
    private transient Counter connections;
    private transient Counter segmentsCut;
    private transient Map<String, Counter> rejections;
    /** This instance's totals by key group, kept in operator state so that a restore, rescaled or not, resumes them. */
    private transient KeyGroupTotals byKeyGroup;
    private transient ListState<long[]> heldTotals;
    private transient ListState<PacketEvent> halfOpenState;

    ConnectionAssemblyFunction(StreamConfig cfg) {
        this.cfg = cfg;
    }

    @Override
    public void open(OpenContext ctx) {
        // processing-time TTL only guards against a key whose timer was somehow lost
        StateTtlConfig ttl = StateTtlConfig.newBuilder(java.time.Duration.ofHours(24)).cleanupFullSnapshot()
                .disableCleanupInBackground().build(); // background cleanup walked whole buffers on every access
        ListStateDescriptor<PacketEvent> b = new ListStateDescriptor<>("buffered", EventSerializers.PACKET_EVENT);
        b.enableTimeToLive(ttl);
        ValueStateDescriptor<FlowState> f = new ValueStateDescriptor<>("flow", StateSerializers.FLOW_STATE);
        f.enableTimeToLive(ttl);
        buffered = getRuntimeContext().getListState(b);
        flow = getRuntimeContext().getState(f);
        var metrics = getRuntimeContext().getMetricGroup().addGroup("critpath");
        cappedEvents = metrics.counter("events_over_cap");
        connections = metrics.counter("connections_finalised");
        segmentsCut = metrics.counter("segments_cut");
        rejections = Map.of(Rejection.LATE_EVENT, metrics.counter("late_events"), Rejection.HALF_OPEN, metrics.counter("half_open_connections"),
                Rejection.FLOW_TABLE_FULL, metrics.counter("flows_refused"));
        metrics.gauge("flows_held", () -> lifecycle.flowsHeld());
        metrics.gauge("tombstones_held", () -> lifecycle.tombstonesHeld());
        metrics.gauge("events_buffered", () -> lifecycle.eventsBuffered());
        metrics.gauge("half_open_flows_held", () -> lifecycle.halfOpenFlowsHeld());
    }

    @Override
    public void initializeState(FunctionInitializationContext ctx) throws Exception {
        lifecycle = new ConnectionLifecycle(cfg.lifecycle(), t -> PathKey.of(t, cfg.clientPrefixV4(), cfg.clientPrefixV6()));
        var task = getRuntimeContext().getTaskInfo();
        byKeyGroup = new KeyGroupTotals(task.getMaxNumberOfParallelSubtasks(), KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                task.getMaxNumberOfParallelSubtasks(), task.getNumberOfParallelSubtasks(), task.getIndexOfThisSubtask()));
        // every instance sees every key group's totals on restore and takes back those of its own
        heldTotals = ctx.getOperatorStateStore().getUnionListState(new ListStateDescriptor<>("held-totals-by-key-group",
                PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO));
        for (long[] rows : heldTotals.get()) {
            byKeyGroup.restore(rows, lifecycle);
        }
        // an older critpath's totals per instance are not taken back (after rescaling they match no one
        // instance's flows): counts start at zero, and are exact again once the connections then held have ended
        ctx.getOperatorStateStore().getListState(new ListStateDescriptor<>("held-totals", PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO)).clear();
        // every instance sees every half-open packet on restore and keeps those of its own key groups
        halfOpenState = ctx.getOperatorStateStore().getUnionListState(new ListStateDescriptor<>("half-open", EventSerializers.PACKET_EVENT));
        for (PacketEvent e : halfOpenState.get()) {
            if (byKeyGroup.owns(e.communityId())) {
                lifecycle.restoreHalfOpen(e);
            }
        }
    }

    @Override
    public void snapshotState(FunctionSnapshotContext ctx) throws Exception {
        heldTotals.update(byKeyGroup.snapshot());
        halfOpenState.update(lifecycle.halfOpenEvents());
    }

    @Override
    public void processElement(PacketEvent e, Context ctx, Collector<FinishedConnection> out) throws Exception {
        byKeyGroup.before(lifecycle);
        lifecycle.onEvent(ctx.getCurrentKey(), flow.value(), e, ctx.timerService().currentWatermark(), new OnFlinkState(ctx, ctx.timerService(), out));
        byKeyGroup.attribute(ctx.getCurrentKey(), lifecycle);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<FinishedConnection> out) throws Exception {
        byKeyGroup.before(lifecycle);
        lifecycle.onTimer(ctx.getCurrentKey(), flow.value(), timestamp, ctx.timerService().currentWatermark(), this::bufferedEvents,
                new OnFlinkState(ctx, ctx.timerService(), out));
        byKeyGroup.attribute(ctx.getCurrentKey(), lifecycle);
    }

    private Iterable<PacketEvent> bufferedEvents() {
        try {
            return buffered.get();
        } catch (Exception e) {
            throw new FlinkRuntimeException("reading a flow's buffered events", e);
        }
    }

    /** The life cycle's actions on the current key's state, its timers and the outputs. */
    private final class OnFlinkState implements LifecycleActions {
        private final Context ctx;
        private final TimerService timers;
        private final Collector<FinishedConnection> out;

        OnFlinkState(Context ctx, TimerService timers, Collector<FinishedConnection> out) {
            this.ctx = ctx;
            this.timers = timers;
            this.out = out;
        }

        @Override
        public void buffer(PacketEvent e) {
            update(() -> buffered.add(e));
        }

        @Override
        public void countOverCap(PacketEvent e) {
            cappedEvents.inc();
        }

        @Override
        public void replaceBuffer(List<PacketEvent> events) {
            update(() -> buffered.update(events));
        }

        @Override
        public void clearBuffer() {
            buffered.clear();
        }

        @Override
        public void setTimer(long atMs) {
            timers.registerEventTimeTimer(atMs);
        }

        @Override
        public void deleteTimer(long atMs) {
            timers.deleteEventTimeTimer(atMs);
        }

        @Override
        public void store(FlowState state) {
            update(() -> flow.update(state));
        }

        @Override
        public void clear() {
            flow.clear();
        }

        @Override
        public void emit(FinishedConnection connection) {
            out.collect(connection);
        }

        @Override
        public void finalised() {
            connections.inc();
        }

        @Override
        public void segmentCut() {
            segmentsCut.inc();
        }

        @Override
        public void reject(Rejection r) {
            rejections.get(r.reason()).inc();
            ctx.output(REJECTED, DeadLetter.of(r));
        }
    }

    /** Flink's state calls declare Exception; a failed one fails the task, as it did before. */
    private interface StateUpdate {
        void run() throws Exception;
    }

    private static void update(StateUpdate u) {
        try {
            u.run();
        } catch (Exception e) {
            throw new FlinkRuntimeException("updating a flow's state", e);
        }
    }
}
