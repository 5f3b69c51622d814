package dev.critpath.streaming;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.PacketEventJson;
import dev.critpath.core.event.TcpFlags;
import dev.critpath.core.trace.ConnectionAssembler;
import dev.critpath.core.trace.ConnectionSegments;
import dev.critpath.core.trace.ConnectionTrace;
import dev.critpath.core.trace.SensorCapture;
import dev.critpath.streaming.HalfOpenFlows.SetAside;
import java.util.ArrayList;
import java.util.List;
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
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Stage 1, keyed by flow (Community ID): buffers every sensor's packets of the flow until it has
 * been quiet for the close grace (after FIN/RST) or the idle timeout, then hands each connection
 * instance in it (reused port pairs are told apart by the assembler) to the per-path stage.
 *
 * <p>Time. Sensor clocks disagree by up to seconds, so a sensor running behind delivers events that
 * are already older than the watermark. Quiet periods are therefore measured from max(event time,
 * watermark) at arrival: a connection is finalised only after the watermark itself has moved on by
 * the grace period since its last event from any sensor.
 *
 * <p>Long-lived connections. Once a connection has been open for {@code segments.after}, or holds
 * half the cap, each quiet period (no event from any sensor for {@code segments.quiet}, so with
 * sensor clocks s apart the connection must idle for s more) after which everything was
 * acknowledged cuts it once the watermark has passed: what came before goes on as a segment and
 * only the restarted handshake stays (see ConnectionSegments).
 *
 * <p>Floods. At most {@code maxEventsPerConnection} events are kept per flow; the rest are counted
 * and the connection is flagged. Half-open flows (no answer, no payload) are not analysed: they
 * become one dead letter each. Until an answer or payload comes, a flow waits in a bounded table
 * of its own (HalfOpenFlows, in operator state), not in keyed state: a SYN flood beyond it sets
 * the oldest half-open flows aside first, and never touches the connections held. Each parallel
 * instance counts the connections and events it holds (StreamConfig.Caps); at a cap, new
 * connections are flow_table_full dead letters. State TTL is a safety net behind the event-time
 * timers.
 */
final class ConnectionAssemblyFunction extends KeyedProcessFunction<String, PacketEvent, FinishedConnection>
        implements CheckpointedFunction {
    static final OutputTag<DeadLetter> REJECTED = new OutputTag<>("connection-rejects", TypeInformation.of(DeadLetter.class));

    private final StreamConfig cfg;
    private transient ListState<PacketEvent> buffered;
    private transient ValueState<FlowState> flow;
    private transient Counter lateEvents;
    private transient Counter cappedEvents;
    private transient Counter halfOpen;
    private transient Counter connections;
    private transient Counter segmentsCut;
    private transient Counter refused;
    /** This instance's totals, kept in operator state so that a restore resumes them. */
    private transient ListState<long[]> heldTotals;
    private transient long flowsHeld;
    private transient long eventsBuffered;
    private transient HalfOpenFlows halfOpenFlows;
    private transient ListState<PacketEvent> halfOpenState;
    /** When the one timer that sweeps the half-open table fires; MIN_VALUE when none is set. */
    private transient long sweepAtMs;

    ConnectionAssemblyFunction(StreamConfig cfg) {
        this.cfg = cfg;
    }

    /** Per-flow bookkeeping beside the buffer. */
    public static final class FlowState {
        public long lastActivityMs = Long.MIN_VALUE;
        public long dueMs;
        public long timerMs = Long.MIN_VALUE;
        public boolean closing;
        public int bufferedCount;
        public long overCap;
        /** After finalising: until when stragglers of the finished instance count as late. */
        public long tombstoneUntilMs = Long.MIN_VALUE;
        public long tombstoneClientIsn = -1;
        /** Long-lived connections: when the current instance began, when to try a cut, segments cut so far. */
        public long firstActivityMs = Long.MIN_VALUE;
        public long cutDueMs = Long.MIN_VALUE;
        public int segments;
        /** After a cut: the path key, and how many buffered events are the restarted handshake. */
        public String pathKey;
        public int restartEvents;
    }

    @Override
    public void open(OpenContext ctx) {
        // processing-time TTL only guards against a key whose timer was somehow lost
        StateTtlConfig ttl = StateTtlConfig.newBuilder(java.time.Duration.ofHours(24)).cleanupFullSnapshot()
                .disableCleanupInBackground().build(); // background cleanup walked whole buffers on every access
        ListStateDescriptor<PacketEvent> b = new ListStateDescriptor<>("buffered", EventSerializers.PACKET_EVENT);
        b.enableTimeToLive(ttl);
        ValueStateDescriptor<FlowState> f = new ValueStateDescriptor<>("flow", TypeInformation.of(FlowState.class));
        f.enableTimeToLive(ttl);
        buffered = getRuntimeContext().getListState(b);
        flow = getRuntimeContext().getState(f);
        var metrics = getRuntimeContext().getMetricGroup().addGroup("critpath");
        lateEvents = metrics.counter("late_events");
        cappedEvents = metrics.counter("events_over_cap");
        halfOpen = metrics.counter("half_open_connections");
        connections = metrics.counter("connections_finalised");
        segmentsCut = metrics.counter("segments_cut");
        refused = metrics.counter("flows_refused");
        metrics.gauge("flows_held", () -> flowsHeld);
        metrics.gauge("events_buffered", () -> eventsBuffered);
        metrics.gauge("half_open_flows_held", () -> halfOpenFlows.size());
    }

    @Override
    public void initializeState(FunctionInitializationContext ctx) throws Exception {
        heldTotals = ctx.getOperatorStateStore().getListState(new ListStateDescriptor<>("held-totals",
                PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO));
        for (long[] t : heldTotals.get()) { // after rescaling, an instance may get several
            flowsHeld += t[0];
            eventsBuffered += t[1];
        }
        halfOpenFlows = new HalfOpenFlows(cfg.caps().halfOpenFlows());
        sweepAtMs = Long.MIN_VALUE;
        // every instance sees every half-open packet on restore and keeps those of its own key groups
        halfOpenState = ctx.getOperatorStateStore().getUnionListState(new ListStateDescriptor<>("half-open", EventSerializers.PACKET_EVENT));
        var task = getRuntimeContext().getTaskInfo();
        for (PacketEvent e : halfOpenState.get()) {
            if (KeyGroupRangeAssignment.assignKeyToParallelOperator(e.communityId(), task.getMaxNumberOfParallelSubtasks(),
                    task.getNumberOfParallelSubtasks()) == task.getIndexOfThisSubtask()) {
                halfOpenFlows.add(e.communityId(), e, Math.floorDiv(e.tsUs(), 1000));
            }
        }
    }

    @Override
    public void snapshotState(FunctionSnapshotContext ctx) throws Exception {
        heldTotals.update(List.of(new long[] {flowsHeld, eventsBuffered}));
        halfOpenState.update(halfOpenFlows.snapshot());
    }

    @Override
    public void processElement(PacketEvent e, Context ctx, Collector<FinishedConnection> out) throws Exception {
        FlowState s = flow.value();
        long wm = ctx.timerService().currentWatermark();
        long tsMs = Math.floorDiv(e.tsUs(), 1000);
        boolean freshSyn = e.hasFlag(TcpFlags.SYN) && !e.hasFlag(TcpFlags.ACK);
        if (s == null) {
            if (wm != Long.MIN_VALUE && tsMs < wm - cfg.allowedLateness().toMillis()) {
                late(e, ctx, "no connection of this flow is held any more");
                return;
            }
            String key = ctx.getCurrentKey();
            if (!e.engagesFlow()) { // half-open so far
                SetAside evicted = halfOpenFlows.add(key, e, activity(tsMs, wm));
                if (evicted != null) {
                    setAside(evicted, ctx);
                }
                if (sweepAtMs == Long.MIN_VALUE) { // also the first half-open packet after a restore
                    scheduleSweep(ctx);
                }
                return;
            }
            if (flowsHeld >= cfg.caps().flows() || eventsBuffered >= cfg.caps().bufferedEvents()) {
                refuse(e, ctx);
                return;
            }
            s = new FlowState();
            flowsHeld++;
            if (halfOpenFlows.holds(key)) { // the answer came: the flow's first packets join its connection
                for (PacketEvent held : halfOpenFlows.take(key)) {
                    hold(held, s, wm, ctx);
                }
            }
        } else if (s.bufferedCount == 0 && s.segments == 0 && s.tombstoneUntilMs != Long.MIN_VALUE) {
            if (!(freshSyn && e.seq() != s.tombstoneClientIsn)) {
                late(e, ctx, "its connection was already analysed");
                return;
            }
            s.tombstoneUntilMs = Long.MIN_VALUE; // a new connection reuses the port pair
        }
        hold(e, s, wm, ctx);
    }

    /** Keeps the event in its connection's buffer (or counts it over a cap) and moves the flow's timer. */
    private void hold(PacketEvent e, FlowState s, long wm, Context ctx) throws Exception {
        long tsMs = Math.floorDiv(e.tsUs(), 1000);
        if (s.bufferedCount < cfg.maxEventsPerConnection() && eventsBuffered < cfg.caps().bufferedEvents()) {
            buffered.add(e);
            s.bufferedCount++;
            eventsBuffered++;
        } else {
            s.overCap++;
            cappedEvents.inc();
        }
        s.closing |= e.hasFlag(TcpFlags.FIN) || e.hasFlag(TcpFlags.RST);
        s.lastActivityMs = Math.max(s.lastActivityMs, activity(tsMs, wm));
        s.firstActivityMs = s.firstActivityMs == Long.MIN_VALUE ? s.lastActivityMs : s.firstActivityMs;
        s.dueMs = s.lastActivityMs + (s.closing ? cfg.closeGrace() : cfg.idleTimeout()).toMillis();
        s.cutDueMs = !s.closing && longLived(s) ? s.lastActivityMs + cfg.segments().quiet().toMillis() : Long.MIN_VALUE;
        // one timer per flow: later due times move it when it fires, an earlier one (a FIN, a cut) moves it now
        long wake = nextWake(s);
        if (s.timerMs == Long.MIN_VALUE || wake < s.timerMs) {
            if (s.timerMs != Long.MIN_VALUE && s.timerMs != sweepAtMs) { // a timer of the same key and time is one timer
                ctx.timerService().deleteEventTimeTimer(s.timerMs);
            }
            s.timerMs = wake;
            ctx.timerService().registerEventTimeTimer(s.timerMs);
        }
        flow.update(s);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<FinishedConnection> out) throws Exception {
        // a restored job's sweep timer is not the one sweepAtMs names: any timer sweeps what is due
        if (timestamp == sweepAtMs || halfOpenFlows.oldestActivityMs() <= ctx.timerService().currentWatermark() - cfg.idleTimeout().toMillis()) {
            sweep(ctx);
        }
        FlowState s = flow.value();
        if (s == null || timestamp != s.timerMs) {
            return; // the half-open sweep's timer, set under whichever key was current
        }
        if (s.bufferedCount == 0 && s.segments == 0) { // the tombstone's own timer: forget the flow
            forget();
            return;
        }
        if (s.dueMs <= timestamp) {
            finalise(timestamp, s, ctx, out);
            return;
        }
        if (!s.closing && longLived(s)) {
            cut(s, ctx.timerService().currentWatermark(), ctx, out);
        }
        if (s.cutDueMs <= timestamp) {
            s.cutDueMs = Long.MIN_VALUE; // until more events come
        }
        s.timerMs = nextWake(s); // more events came: one timer per flow, moved lazily
        ctx.timerService().registerEventTimeTimer(s.timerMs);
        flow.update(s);
    }

    private boolean longLived(FlowState s) {
        return s.lastActivityMs - s.firstActivityMs >= cfg.segments().after().toMillis()
                || s.bufferedCount >= cfg.maxEventsPerConnection() / 2;
    }

    private static long nextWake(FlowState s) {
        return s.cutDueMs == Long.MIN_VALUE ? s.dueMs : Math.min(s.dueMs, s.cutDueMs);
    }

    /**
     * A long-lived connection that went quiet: hand on what came before the latest quiet period
     * the watermark has passed, keep only the restarted handshake and what came after.
     */
    private void cut(FlowState s, long watermarkMs, OnTimerContext ctx, Collector<FinishedConnection> out) throws Exception {
        List<PacketEvent> held = new ArrayList<>(s.bufferedCount);
        buffered.get().forEach(held::add);
        held.sort(PacketEvent.CAPTURE_ORDER);
        int n = ConnectionSegments.cutPoint(held, cfg.segments().quiet().toNanos() / 1000, watermarkMs * 1000);
        if (n == 0) {
            return;
        }
        List<PacketEvent> done = held.subList(0, n);
        ConnectionAssembler assembler = new ConnectionAssembler();
        done.forEach(assembler::add);
        List<ConnectionTrace> traces = assembler.connections();
        if (traces.size() != 1) {
            return; // a new connection on the same port pair: wait for the end
        }
        s.pathKey = PathKey.of(traces.get(0), cfg.clientPrefixV4(), cfg.clientPrefixV6());
        out.collect(new FinishedConnection(s.pathKey, done.toArray(PacketEvent[]::new), s.overCap, ctx.getCurrentKey(), s.segments++, false));
        segmentsCut.inc();
        List<PacketEvent> kept = new ArrayList<>(ConnectionSegments.restartedHandshake(done));
        s.restartEvents = kept.size();
        kept.addAll(held.subList(n, held.size()));
        buffered.update(kept);
        eventsBuffered -= s.bufferedCount - kept.size();
        s.bufferedCount = kept.size();
        s.overCap = 0;
    }

    private void finalise(long timestamp, FlowState s, OnTimerContext ctx, Collector<FinishedConnection> out) throws Exception {
        ConnectionAssembler assembler = new ConnectionAssembler();
        for (PacketEvent e : buffered.get()) {
            assembler.add(e);
        }
        List<ConnectionTrace> traces = assembler.connections();
        long lastIsn = -1;
        boolean analysed = false;
        for (int i = 0; i < traces.size(); i++) {
            lastIsn = clientIsn(traces.get(i), lastIsn);
            analysed |= emit(traces.get(i), s, i == 0 && s.segments > 0, ctx, out);
        }
        if (traces.isEmpty() && s.segments > 0) { // cut mid-stream, nothing since
            out.collect(new FinishedConnection(s.pathKey, new PacketEvent[0], 0, ctx.getCurrentKey(), s.segments, true));
            analysed = true;
        }
        buffered.clear();
        eventsBuffered -= s.bufferedCount;
        if (!analysed) { // half-open only: no tombstone, a flood must not leave one per SYN
            forget();
            return;
        }
        s.bufferedCount = 0;
        s.overCap = 0;
        s.closing = false;
        s.firstActivityMs = Long.MIN_VALUE;
        s.cutDueMs = Long.MIN_VALUE;
        s.segments = 0;
        s.restartEvents = 0;
        s.pathKey = null;
        s.tombstoneClientIsn = lastIsn;
        s.tombstoneUntilMs = timestamp + cfg.allowedLateness().toMillis();
        s.timerMs = s.tombstoneUntilMs;
        ctx.timerService().registerEventTimeTimer(s.timerMs);
        flow.update(s);
    }

    /** Quiet time is measured from max(event time, watermark) at arrival (see the class comment). */
    private static long activity(long tsMs, long wm) {
        return wm == Long.MIN_VALUE ? tsMs : Math.max(tsMs, wm);
    }

    /** Sets aside the half-open flows quiet for the idle timeout; one timer at a time does it for all. */
    private void sweep(OnTimerContext ctx) {
        for (SetAside quiet : halfOpenFlows.expire(ctx.timerService().currentWatermark() - cfg.idleTimeout().toMillis() + 1)) {
            setAside(quiet, ctx);
        }
        sweepAtMs = Long.MIN_VALUE;
        if (halfOpenFlows.size() > 0) {
            scheduleSweep(ctx);
        }
    }

    private void scheduleSweep(Context ctx) {
        sweepAtMs = halfOpenFlows.oldestActivityMs() + cfg.idleTimeout().toMillis();
        ctx.timerService().registerEventTimeTimer(sweepAtMs);
    }

    private void setAside(SetAside h, Context ctx) {
        halfOpenDeadLetter(h.events().get(0), h.events().size() + h.uncounted(),
                h.evicted() ? "; set aside early: " + cfg.caps().halfOpenFlows() + " half-open flows held (--max-half-open-flows)" : "", ctx);
    }

    /** One dead letter for a flow without answer or payload, whether set aside from its table or found at finalising. */
    private void halfOpenDeadLetter(PacketEvent first, long packets, String note, Context ctx) {
        halfOpen.inc();
        ctx.output(REJECTED, new DeadLetter(first.tsUs(), "half_open_connection", packets + " packet(s) " + first.origH() + ":"
                + first.origP() + " > " + first.respH() + ":" + first.respP() + ", no answer and no payload" + note,
                first.sensor(), first.communityId(), null));
    }

    private void forget() {
        flow.clear();
        flowsHeld--;
    }

    private void refuse(PacketEvent e, Context ctx) {
        refused.inc();
        ctx.output(REJECTED, new DeadLetter(e.tsUs(), "flow_table_full", "this instance holds " + flowsHeld + " flows and " + eventsBuffered
                + " events, its caps are " + cfg.caps().flows() + " and " + cfg.caps().bufferedEvents() + " (--max-flows, --max-buffered-events)",
                e.sensor(), e.communityId(), PacketEventJson.toJson(e)));
    }

    /**
     * @param lastSegment the trace ends a connection cut into segments before
     * @return whether it goes on to be analysed (a half-open flow is a dead letter instead)
     */
    private boolean emit(ConnectionTrace t, FlowState s, boolean lastSegment, OnTimerContext ctx, Collector<FinishedConnection> out) {
        List<PacketEvent> events = new ArrayList<>(t.packetCount());
        for (SensorCapture c : t.captures()) {
            events.addAll(c.packets());
        }
        if (!lastSegment && t.isHalfOpen()) {
            halfOpenDeadLetter(events.get(0), events.size(), "", ctx);
            return false;
        }
        connections.inc();
        if (!lastSegment) {
            out.collect(new FinishedConnection(PathKey.of(t, cfg.clientPrefixV4(), cfg.clientPrefixV6()),
                    events.toArray(PacketEvent[]::new), s.overCap, ctx.getCurrentKey(), 0, true));
        } else {
            boolean nothingNew = events.size() == s.restartEvents;
            out.collect(new FinishedConnection(s.pathKey, nothingNew ? new PacketEvent[0] : events.toArray(PacketEvent[]::new),
                    s.overCap, ctx.getCurrentKey(), s.segments, true));
        }
        return true;
    }

    private void late(PacketEvent e, Context ctx, String why) {
        lateEvents.inc();
        ctx.output(REJECTED, new DeadLetter(e.tsUs(), "late_event", "arrived after the watermark passed it: " + why,
                e.sensor(), e.communityId(), PacketEventJson.toJson(e)));
    }

    private static long clientIsn(ConnectionTrace t, long fallback) {
        for (SensorCapture c : t.captures()) {
            for (PacketEvent e : c.packets()) {
                if (e.isOrig() && e.hasFlag(TcpFlags.SYN) && !e.hasFlag(TcpFlags.ACK)) {
                    return e.seq();
                }
            }
        }
        return fallback;
    }
}
