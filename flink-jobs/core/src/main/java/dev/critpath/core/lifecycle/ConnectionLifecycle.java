package dev.critpath.core.lifecycle;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.PacketEventJson;
import dev.critpath.core.event.TcpFlags;
import dev.critpath.core.lifecycle.HalfOpenFlows.SetAside;
import dev.critpath.core.trace.ConnectionAssembler;
import dev.critpath.core.trace.ConnectionSegments;
import dev.critpath.core.trace.ConnectionTrace;
import dev.critpath.core.trace.SensorCapture;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * A flow's life, from its first packet to its connections handed on and its tombstone gone: what
 * to keep, when to finalise, what is late. One per parallel instance of the stream's connection
 * stage (or per offline run): it holds the instance's totals and half-open flows; each flow's own
 * state comes in with each call and changes go out as {@link LifecycleActions}. Reused port pairs
 * are told apart by the assembler.
 *
 * <p>Closing. The close grace starts at a RST or a FIN; when it ends with the connection not closed
 * yet (a FIN from one side only, so the other may go on sending, or a FIN not seen acknowledged,
 * so it will be re-sent), the connection stays open until it goes quiet.
 *
 * <p>Time. Sensor clocks disagree by up to seconds, so a sensor running behind delivers events that
 * are already older than the watermark. Quiet periods are therefore measured from max(event time,
 * watermark) at arrival: a connection is finalised only after the watermark itself has moved on by
 * the close grace (after FIN/RST) or the idle timeout since its last event from any sensor.
 *
 * <p>Long-lived connections. Once a connection has been open for {@code segmentAfter}, or holds
 * half the cap, each quiet period (no event from any sensor for {@code segmentQuiet}, so with
 * sensor clocks s apart the connection must idle for s more) after which everything was
 * acknowledged cuts it once the watermark has passed: what came before goes on as a segment and
 * only the restarted handshake stays (see ConnectionSegments).
 *
 * <p>Floods. At most {@code maxEventsPerConnection} events are kept per flow; the rest are counted
 * and the connection is flagged. Half-open flows (no payload, no handshake completed) are not
 * analysed: they become one dead letter each. Until it engages ({@link PacketEvent#engagesFlow}),
 * a flow waits in a bounded table of its own (HalfOpenFlows), not in the flow's state: a SYN
 * flood beyond it sets the oldest half-open flows aside first, and never touches the connections
 * held. At the instance's caps on connections and events, new connections are flow_table_full
 * dead letters. Tombstones are counted apart, at most {@link #TOMBSTONES_PER_FLOW} times the cap
 * on connections, so that short connections fill that cap only while in their close grace; a
 * connection finalised beyond it leaves none (a straggler of it may then start a connection of
 * its own).
 *
 * <p>Driving it. Events go to {@link #onEvent} with the watermark before them; a timer the flow
 * set goes to {@link #onTimer} once the watermark reaches it. The end of input is the watermark
 * moving to Long.MAX_VALUE, as Flink's is at the end of a bounded stream.
 */
public final class ConnectionLifecycle {
    private static final long NONE = Long.MIN_VALUE;
    /** A tombstone costs a fraction of a held connection (a few hundred bytes against 1,500 offline). */
    private static final int TOMBSTONES_PER_FLOW = 2;

    private final LifecycleConfig cfg;
    /** The config's durations in ms, read for every event. */
    private final long closeGraceMs;
    private final long idleTimeoutMs;
    private final long allowedLatenessMs;
    private final long segmentAfterMs;
    private final long segmentQuietMs;
    private final Function<ConnectionTrace, String> pathOf;
    private final HalfOpenFlows halfOpenFlows;
    private long flowsHeld;
    private long tombstonesHeld;
    private long eventsBuffered;
    /** When the one timer that sweeps the half-open table fires; NONE when none is set. */
    private long sweepAtMs = NONE;

    /** @param pathOf the network path a connection belongs to, carried by what it hands on */
    public ConnectionLifecycle(LifecycleConfig cfg, Function<ConnectionTrace, String> pathOf) {
        this.cfg = cfg;
        this.closeGraceMs = cfg.closeGrace().toMillis();
        this.idleTimeoutMs = cfg.idleTimeout().toMillis();
        this.allowedLatenessMs = cfg.allowedLateness().toMillis();
        this.segmentAfterMs = cfg.segmentAfter().toMillis();
        this.segmentQuietMs = cfg.segmentQuiet().toMillis();
        this.pathOf = pathOf;
        this.halfOpenFlows = new HalfOpenFlows(cfg.maxHalfOpenFlows());
    }

    /** The flow's buffered events, read only when a decision needs them (a state backend may deserialise them all). */
    @FunctionalInterface
    public interface Buffer {
        Iterable<PacketEvent> events();

        /** Whether the events leave the connection open though a FIN came (see {@link CloseEvidence}); one pass over them unless the buffer keeps the answer. */
        default boolean stillOpen() {
            CloseEvidence evidence = new CloseEvidence();
            events().forEach(evidence::add);
            return evidence.stillOpen();
        }
    }

    /**
     * One event of {@code flow}, whose state is {@code s} (null when none is held).
     *
     * @param watermarkMs the watermark before the event; Long.MIN_VALUE before the first
     */
    public void onEvent(String flow, FlowState s, PacketEvent e, long watermarkMs, LifecycleActions out) {
        long tsMs = Math.floorDiv(e.tsUs(), 1000);
        sweepScheduled(out); // restored, the sweep's timer went with its flow's key group, if anywhere
        if (s == null) {
            if (watermarkMs != NONE && tsMs < watermarkMs - allowedLatenessMs) {
                late(e, "no connection of this flow is held any more", out);
                return;
            }
            if (!halfOpenFlows.engages(flow, e)) { // half-open so far
                SetAside evicted = halfOpenFlows.add(flow, e, activity(tsMs, watermarkMs));
                if (evicted != null) {
                    setAside(evicted, out);
                }
                sweepScheduled(out);
                return;
            }
            if (full()) {
                refuse(e, out);
                return;
            }
            s = new FlowState();
            flowsHeld++;
            if (halfOpenFlows.holds(flow)) { // the answer came: the flow's first packets join its connection
                for (PacketEvent held : halfOpenFlows.take(flow)) {
                    hold(held, s, Math.floorDiv(held.tsUs(), 1000), watermarkMs, out);
                }
            }
        } else if (s.isTombstone()) {
            if (!(isFreshSyn(e) && e.seq() != s.tombstoneClientIsn)) {
                late(e, "its connection was already analysed", out);
                return;
            }
            forgetTombstone(); // a new connection reuses the port pair
            if (full()) { // refused, and its next packets too, as a new flow's: not late for the tombstone
                out.clear();
                refuse(e, out);
                return;
            }
            s.tombstoneUntilMs = NONE;
            flowsHeld++;
        }
        hold(e, s, tsMs, watermarkMs, out);
        out.store(s);
    }

    /**
     * A timer set under {@code flow} fired; {@code s} is the flow's state (null when none is held).
     *
     * @param watermarkMs the watermark that reached the timer
     */
    public void onTimer(String flow, FlowState s, long timestampMs, long watermarkMs, Buffer buffer, LifecycleActions out) {
        // a restored job's sweep timer is not the one sweepAtMs names: any timer sweeps what is due
        if (timestampMs == sweepAtMs || halfOpenFlows.oldestActivityMs() <= watermarkMs - idleTimeoutMs) {
            sweep(watermarkMs, out);
        }
        if (s == null || timestampMs != s.timerMs) {
            return; // the half-open sweep's timer, set under whichever flow was current
        }
        if (s.holdsNothing()) { // the tombstone's own timer (or a flow whose every event went over a cap): forget the flow
            if (s.isTombstone()) {
                forgetTombstone();
                out.clear();
            } else {
                forget(out);
            }
            return;
        }
        long idleDueMs = s.lastActivityMs + idleTimeoutMs;
        // over its cap, what is missing cannot tell; quiet for the idle timeout, it is done either way
        if (s.dueMs <= timestampMs && s.closing && s.overCap == 0 && idleDueMs > timestampMs && buffer.stillOpen()) {
            // one side may still send, or re-send its FIN: open until it goes quiet, looked at again after each next packet's grace
            s.dueMs = idleDueMs;
        } else if (s.dueMs <= timestampMs) {
            finalise(flow, timestampMs, s, buffer, out);
            return;
        }
        if (!s.closing && longLived(s)) {
            cut(flow, s, watermarkMs, buffer, out);
        }
        if (s.cutDueMs <= timestampMs) {
            s.cutDueMs = NONE; // until more events come
        }
        s.timerMs = nextWake(s); // more events came: one timer per flow, moved lazily
        out.setTimer(s.timerMs);
        out.store(s);
    }

    /** Connections held (tombstones apart), and events buffered, by this instance. */
    public long flowsHeld() {
        return flowsHeld;
    }

    public long tombstonesHeld() {
        return tombstonesHeld;
    }

    public long eventsBuffered() {
        return eventsBuffered;
    }

    public int halfOpenFlowsHeld() {
        return halfOpenFlows.size();
    }

    /** Every half-open packet held, quiet longest first: what a checkpoint keeps. */
    public List<PacketEvent> halfOpenEvents() {
        return halfOpenFlows.snapshot();
    }

    /** Adds totals a checkpoint kept (the stream restores them a key group at a time, those of its own groups). */
    public void restoreTotals(long flows, long events, long tombstones) {
        flowsHeld += flows;
        eventsBuffered += events;
        tombstonesHeld += tombstones;
    }

    public void restoreHalfOpen(PacketEvent e) {
        halfOpenFlows.add(e.communityId(), e, Math.floorDiv(e.tsUs(), 1000));
    }

    /** Keeps the event in its connection's buffer (or counts it over a cap) and moves the flow's timer. */
    private void hold(PacketEvent e, FlowState s, long tsMs, long watermarkMs, LifecycleActions out) {
        if (s.bufferedCount < cfg.maxEventsPerConnection() && eventsBuffered < cfg.maxBufferedEvents()) {
            out.buffer(e);
            s.bufferedCount++;
            eventsBuffered++;
        } else {
            s.overCap++;
            out.countOverCap(e);
        }
        s.closing |= e.hasFlag(TcpFlags.FIN) || e.hasFlag(TcpFlags.RST);
        s.lastActivityMs = Math.max(s.lastActivityMs, activity(tsMs, watermarkMs));
        s.firstActivityMs = s.firstActivityMs == NONE ? s.lastActivityMs : s.firstActivityMs;
        s.dueMs = s.lastActivityMs + (s.closing ? closeGraceMs : idleTimeoutMs);
        s.cutDueMs = !s.closing && longLived(s) ? s.lastActivityMs + segmentQuietMs : NONE;
        // one timer per flow: later due times move it when it fires, an earlier one (a FIN, a cut) moves it now
        long wake = nextWake(s);
        if (s.timerMs == NONE || wake < s.timerMs) {
            if (s.timerMs != NONE && s.timerMs != sweepAtMs) { // a timer of the same flow and time is one timer
                out.deleteTimer(s.timerMs);
            }
            s.timerMs = wake;
            out.setTimer(s.timerMs);
        }
    }

    private boolean longLived(FlowState s) {
        return s.lastActivityMs - s.firstActivityMs >= segmentAfterMs
                || s.bufferedCount >= cfg.maxEventsPerConnection() / 2;
    }

    private static long nextWake(FlowState s) {
        return s.cutDueMs == NONE ? s.dueMs : Math.min(s.dueMs, s.cutDueMs);
    }

    /**
     * A long-lived connection that went quiet: hand on what came before the latest quiet period
     * the watermark has passed, keep only the restarted handshake and what came after.
     */
    private void cut(String flow, FlowState s, long watermarkMs, Buffer buffer, LifecycleActions out) {
        List<PacketEvent> held = new ArrayList<>(s.bufferedCount);
        buffer.events().forEach(held::add);
        held.sort(PacketEvent.CAPTURE_ORDER);
        int n = ConnectionSegments.cutPoint(held, cfg.segmentQuiet().toNanos() / 1000, watermarkMs * 1000);
        if (n == 0) {
            return;
        }
        List<PacketEvent> done = held.subList(0, n);
        List<ConnectionTrace> traces = assemble(done);
        if (traces.size() != 1) {
            return; // a new connection on the same port pair: wait for the end
        }
        s.pathKey = pathOf.apply(traces.get(0));
        out.emit(new FinishedConnection(s.pathKey, done.toArray(PacketEvent[]::new), s.overCap, flow, s.segments++, false));
        out.segmentCut();
        List<PacketEvent> kept = new ArrayList<>(ConnectionSegments.restartedHandshake(done));
        s.restartEvents = kept.size();
        kept.addAll(held.subList(n, held.size()));
        out.replaceBuffer(kept);
        eventsReleased(s.bufferedCount - kept.size());
        s.bufferedCount = kept.size();
        s.overCap = 0;
    }

    private void finalise(String flow, long timestampMs, FlowState s, Buffer buffer, LifecycleActions out) {
        List<ConnectionTrace> traces = assemble(buffer.events());
        long lastIsn = -1;
        boolean analysed = false;
        for (int i = 0; i < traces.size(); i++) {
            lastIsn = clientIsn(traces.get(i), lastIsn);
            analysed |= emit(flow, traces.get(i), s, i == 0 && s.segments > 0, out);
        }
        if (traces.isEmpty() && s.segments > 0) { // cut mid-stream, nothing since
            out.emit(new FinishedConnection(s.pathKey, new PacketEvent[0], 0, flow, s.segments, true));
            analysed = true;
        }
        out.clearBuffer();
        eventsReleased(s.bufferedCount);
        // no tombstone for a half-open flow (a flood must not leave one per SYN), nor beyond their cap
        if (!analysed || tombstonesHeld >= (long) TOMBSTONES_PER_FLOW * cfg.maxFlows()) {
            forget(out);
            return;
        }
        flowReleased();
        tombstonesHeld++;
        s.bufferedCount = 0;
        s.overCap = 0;
        s.closing = false;
        s.firstActivityMs = NONE;
        s.cutDueMs = NONE;
        s.segments = 0;
        s.restartEvents = 0;
        s.pathKey = null;
        s.tombstoneClientIsn = lastIsn;
        s.tombstoneUntilMs = timestampMs + allowedLatenessMs;
        s.timerMs = s.tombstoneUntilMs;
        out.setTimer(s.timerMs);
        out.store(s);
    }

    /**
     * @param lastSegment the trace ends a connection cut into segments before
     * @return whether it goes on to be analysed (a half-open flow is a dead letter instead)
     */
    private boolean emit(String flow, ConnectionTrace t, FlowState s, boolean lastSegment, LifecycleActions out) {
        PacketEvent[] events = new PacketEvent[t.packetCount()];
        int n = 0;
        for (SensorCapture c : t.captures()) {
            for (PacketEvent e : c.packets()) {
                events[n++] = e;
            }
        }
        if (!lastSegment && t.isHalfOpen()) {
            halfOpenDeadLetter(events[0], events.length, "", out);
            return false;
        }
        out.finalised();
        if (!lastSegment) {
            out.emit(new FinishedConnection(pathOf.apply(t), events, s.overCap, flow, 0, true, t));
        } else {
            boolean nothingNew = events.length == s.restartEvents;
            out.emit(new FinishedConnection(s.pathKey, nothingNew ? new PacketEvent[0] : events, s.overCap, flow, s.segments, true));
        }
        return true;
    }

    /** Quiet time is measured from max(event time, watermark) at arrival (see the class comment). */
    private static long activity(long tsMs, long watermarkMs) {
        return watermarkMs == NONE ? tsMs : Math.max(tsMs, watermarkMs);
    }

    /** Sets aside the half-open flows quiet for the idle timeout; one timer at a time does it for all. */
    private void sweep(long watermarkMs, LifecycleActions out) {
        for (SetAside quiet : halfOpenFlows.expire(watermarkMs - idleTimeoutMs + 1)) {
            setAside(quiet, out);
        }
        sweepAtMs = NONE;
        if (halfOpenFlows.size() > 0) {
            scheduleSweep(out);
        }
    }

    /** One sweep's timer while the half-open table holds anything. */
    private void sweepScheduled(LifecycleActions out) {
        if (sweepAtMs == NONE && halfOpenFlows.size() > 0) {
            scheduleSweep(out);
        }
    }

    private void scheduleSweep(LifecycleActions out) {
        sweepAtMs = halfOpenFlows.oldestActivityMs() + idleTimeoutMs;
        out.setTimer(sweepAtMs);
    }

    private void setAside(SetAside h, LifecycleActions out) {
        halfOpenDeadLetter(h.events().get(0), h.events().size() + h.uncounted(),
                h.evicted() ? "; set aside early: " + cfg.maxHalfOpenFlows() + " half-open flows held (--max-half-open-flows)" : "", out);
    }

    /** One dead letter for a half-open flow, whether set aside from its table or found at finalising. */
    private static void halfOpenDeadLetter(PacketEvent first, long packets, String note, LifecycleActions out) {
        out.reject(new Rejection(Rejection.HALF_OPEN, packets + " packet(s) " + first.origH() + ":" + first.origP() + " > "
                + first.respH() + ":" + first.respP() + ", no payload and no handshake completed" + note, first, null));
    }

    private void forget(LifecycleActions out) {
        out.clear();
        flowReleased();
    }

    /** Counts never go below zero: a checkpoint from before the stream kept them per key group restores none. */
    private void forgetTombstone() {
        tombstonesHeld = Math.max(0, tombstonesHeld - 1);
    }

    private void flowReleased() {
        flowsHeld = Math.max(0, flowsHeld - 1);
    }

    private void eventsReleased(long n) {
        eventsBuffered = Math.max(0, eventsBuffered - n);
    }

    private boolean full() {
        return flowsHeld >= cfg.maxFlows() || eventsBuffered >= cfg.maxBufferedEvents();
    }

    private void refuse(PacketEvent e, LifecycleActions out) {
        out.reject(new Rejection(Rejection.FLOW_TABLE_FULL, "this instance holds " + flowsHeld + " flows and " + eventsBuffered
                + " events, its caps are " + cfg.maxFlows() + " and " + cfg.maxBufferedEvents() + " (--max-flows, --max-buffered-events)",
                e, PacketEventJson.toJson(e)));
    }

    private static void late(PacketEvent e, String why, LifecycleActions out) {
        out.reject(new Rejection(Rejection.LATE_EVENT, "arrived after the watermark passed it: " + why, e, PacketEventJson.toJson(e)));
    }

    private static List<ConnectionTrace> assemble(Iterable<PacketEvent> events) {
        ConnectionAssembler assembler = new ConnectionAssembler();
        events.forEach(assembler::add);
        return assembler.connections();
    }

    private static boolean isFreshSyn(PacketEvent e) {
        return e.hasFlag(TcpFlags.SYN) && !e.hasFlag(TcpFlags.ACK);
    }

    private static long clientIsn(ConnectionTrace t, long fallback) {
        for (SensorCapture c : t.captures()) {
            for (PacketEvent e : c.packets()) {
                if (e.isOrig() && isFreshSyn(e)) {
                    return e.seq();
                }
            }
        }
        return fallback;
    }
}
