package dev.critpath.core.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.testing.Conversation;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The connection life cycle as timelines: packets and watermarks in the order a stream delivers
 * them, and after each step what came out (connections, segments, dead letters). Every timeline
 * ends with the end of input, after which nothing may be held.
 */
class ConnectionLifecycleTest extends LifecycleTestBase {
    /** One step of a timeline, and what it must put out. */
    record Step(String what, Consumer<LifecycleLoop> action, List<String> out) {
        @Override
        public String toString() {
            return what;
        }
    }

    static Step send(PacketEvent e, String... out) {
        return new Step("event at " + e.tsUs() / 1000 + " ms", loop -> loop.add(e), List.of(out));
    }

    static Step watermark(long ms, String... out) {
        return new Step("watermark " + ms + " ms", loop -> loop.advanceWatermark(ms), List.of(out));
    }

    static Step end(String... out) {
        return new Step("end of input", LifecycleLoop::endOfInput, List.of(out));
    }

    /** What a step held afterwards: flows with state (connections, tombstones) and timers. */
    static Step holds(int flows, int timers) {
        return new Step("holds " + flows + " flows, " + timers + " timers", loop -> {
            assertEquals(flows, loop.flowsWithState(), "flows with state");
            assertEquals(timers, loop.timersSet(), "timers");
        }, List.of());
    }

    static Stream<Arguments> timelines() {
        Conversation closed = new Conversation();
        Conversation idle = new Conversation();
        Conversation client = new Conversation();
        Conversation serverBehind = new Conversation("server-site", 40_000, 1_000, -3_000);
        Conversation capped = new Conversation();
        Conversation straggling = new Conversation();
        Conversation first = new Conversation();
        Conversation reuse = new Conversation("client-site", 40_000, 9_000, 0);
        Conversation longLived = new Conversation();
        Conversation unanswered = new Conversation();
        Conversation answered = new Conversation();
        Conversation cookie = new Conversation();
        Conversation ackFlood = new Conversation();
        Conversation held = new Conversation();
        Conversation refused = new Conversation("client-site", 40_001, 1_000, 0);
        Conversation reset = new Conversation();
        Conversation halfClosed = new Conversation("client-site", 40_002, 1_000, 0);
        Conversation finUnacknowledged = new Conversation("client-site", 40_003, 1_000, 0);
        Conversation closedBefore = new Conversation("client-site", 40_004, 1_000, 0);
        Conversation openedAfter = new Conversation("client-site", 40_005, 1_000, 0);
        Conversation thirdClosed = new Conversation("client-site", 40_006, 1_000, 0);
        Conversation closedThenReused = new Conversation("client-site", 40_007, 1_000, 0);
        Conversation reusing = new Conversation("client-site", 40_007, 9_000, 0);
        Conversation filling = new Conversation("client-site", 40_008, 1_000, 0);
        return Stream.of(
                Arguments.of("close after FIN, once the watermark passed the close grace", defaults(), List.of(
                        send(closed.syn(1000)), send(closed.synAck(1010)), send(closed.ack(1020)), send(closed.request(1030)),
                        send(closed.response(1040)), send(closed.ack(1050)), send(closed.clientFin(1060)), send(closed.serverFin(1070)),
                        send(closed.ack(1080)), holds(1, 2), // the flow's timer, and the half-open sweep's its SYN set
                        watermark(6079), holds(1, 2), // the FIN's timer (6060) found later events and moved on
                        watermark(6080, "connection: 9 events"), holds(1, 2), // the tombstone and its timer
                        end())),
                Arguments.of("an RST closes as a FIN does", defaults(), List.of(
                        send(reset.syn(1000)), send(reset.synAck(1010)), send(reset.request(1020)), send(reset.rst(1030)),
                        watermark(6029), watermark(6030, "connection: 4 events"), end())),
                Arguments.of("a half-close stays open until the idle timeout, or the end of input", defaults(), List.of(
                        send(halfClosed.syn(1000)), send(halfClosed.synAck(1010)), send(halfClosed.request(1020)), send(halfClosed.clientFin(1030)),
                        watermark(6030), holds(1, 2), watermark(100_000), end("connection: 4 events"))), // and the half-open sweep's timer
                Arguments.of("a FIN not seen acknowledged keeps the connection until its ACK comes and the close grace passes", defaults(), List.of(
                        send(finUnacknowledged.syn(1000)), send(finUnacknowledged.synAck(1010)), send(finUnacknowledged.request(1020)),
                        send(finUnacknowledged.clientFin(1030)), send(finUnacknowledged.serverFin(1040)),
                        watermark(6040), holds(1, 2), // the server's FIN will be re-sent: open until quiet
                        send(finUnacknowledged.ack(50_000)), watermark(54_999), watermark(55_000, "connection: 6 events"), end())),
                Arguments.of("no FIN: finalised after the idle timeout", defaults(), List.of(
                        send(idle.syn(1000)), send(idle.synAck(1010)), send(idle.ack(1020)), send(idle.request(1030)),
                        send(idle.response(1040)), send(idle.ack(1050)),
                        watermark(121_049), watermark(121_050, "connection: 6 events"), end())),
                Arguments.of("a sensor running behind: its events, older than the watermark, count from the watermark", defaults(), List.of(
                        send(client.syn(1000)), send(client.synAck(1010)), send(client.ack(1020)), send(client.request(1030)),
                        watermark(5000),
                        send(serverBehind.syn(4000)), send(serverBehind.synAck(4010)), send(serverBehind.ack(4020)), send(serverBehind.request(4030)),
                        watermark(121_030), // the client site's last event alone would have been due here
                        watermark(124_999), watermark(125_000, "connection: 8 events"), end())),
                Arguments.of("an event too old for a flow no longer held is late", defaults(), List.of(
                        watermark(100_000), send(client.syn(39_999), "dead letter late_event"), holds(0, 0), end())),
                Arguments.of("at the per-connection cap, events are counted, not kept", withCaps(10, 200_000), List.of(
                        send(capped.syn(1000)), send(capped.synAck(1010)), send(capped.ack(1020)),
                        send(capped.request(1030)), send(capped.response(1040)), send(capped.request(1050)), send(capped.response(1060)),
                        send(capped.request(1070)), send(capped.response(1080)), send(capped.request(1090)), send(capped.response(1100)),
                        send(capped.request(1110)), send(capped.response(1120)),
                        send(capped.clientFin(1130)), send(capped.serverFin(1140)), send(capped.ack(1150)),
                        watermark(6149), watermark(6150, "connection: 10 events, 6 over the cap"), end())),
                Arguments.of("the tombstone swallows stragglers, then expires", defaults(), List.of(
                        send(straggling.syn(1000)), send(straggling.synAck(1010)), send(straggling.ack(1020)),
                        send(straggling.clientFin(1030)), send(straggling.serverFin(1040)), send(straggling.ack(1045)),
                        watermark(6045, "connection: 6 events"),
                        send(straggling.ack(7000), "dead letter late_event"),
                        send(straggling.syn(7100), "dead letter late_event"), // the same ISN: a re-sent SYN, not a new connection
                        holds(1, 2),
                        watermark(66_044), holds(1, 2),
                        watermark(66_045), holds(0, 1), // allowed lateness after finalising: forgotten (the sweep's timer is left)
                        send(straggling.ack(6_039), "dead letter late_event"), // no flow held, older than the allowed lateness
                        end())),
                Arguments.of("a fresh SYN with another ISN ends the tombstone at once", defaults(), List.of(
                        send(first.syn(1000)), send(first.synAck(1010)), send(first.clientFin(1020)), send(first.serverFin(1030)), send(first.ack(1035)),
                        watermark(6035, "connection: 5 events"),
                        send(reuse.syn(7000)), send(reuse.synAck(7010)), send(reuse.ack(7020)),
                        watermark(66_035), holds(1, 2), // the tombstone's timer found the new connection and moved on
                        watermark(127_019), watermark(127_020, "connection: 3 events"), end())),
                Arguments.of("a long-lived connection is cut where it went quiet, its handshake restarted", defaults(), List.of(
                        send(longLived.syn(1000)), send(longLived.synAck(1010)), send(longLived.ack(1020)),
                        send(longLived.request(1030)), send(longLived.response(1040)), send(longLived.ack(1050)),
                        send(longLived.request(31_000)), send(longLived.response(31_010)), send(longLived.ack(31_020)),
                        send(longLived.request(61_000)), send(longLived.response(61_010)), send(longLived.ack(61_020)), // open 60 s
                        watermark(62_019, "segment 0: 9 events"), // quiet for 1 s after 31,020 ms, everything acknowledged
                        watermark(62_020, "segment 1: 5 events"), // the restarted handshake and the exchange since, quiet in turn
                        send(longLived.request(90_000)), send(longLived.response(90_010)), send(longLived.ack(90_020)),
                        send(longLived.clientFin(90_030)), send(longLived.serverFin(90_040)), send(longLived.ack(90_050)),
                        watermark(95_050, "last segment 2: 8 events"), // the restarted SYN and SYN/ACK, and what came since
                        end())),
                Arguments.of("a SYN nobody answers is set aside after the idle timeout, holding no flow", defaults(), List.of(
                        send(unanswered.syn(1000)), send(unanswered.syn(2000)), holds(0, 1), // the half-open table's sweep timer
                        watermark(121_999), watermark(122_000, "dead letter half_open_connection"), holds(0, 0), end())),
                Arguments.of("a SYN answered by a SYN/ACK alone (a flood answered by SYN cookies) is half-open too", defaults(), List.of(
                        send(cookie.syn(1000)), send(cookie.synAck(1010)), holds(0, 1),
                        watermark(121_009), watermark(121_010, "dead letter half_open_connection"), holds(0, 0), end())),
                Arguments.of("the originator's ACK engages only a flow its SYN/ACK answered (an ACK flood is half-open)", defaults(), List.of(
                        send(ackFlood.ack(1000)), send(ackFlood.ack(1010)), holds(0, 1),
                        watermark(121_009), watermark(121_010, "dead letter half_open_connection"), holds(0, 0), end())),
                Arguments.of("the answer moves a half-open flow's packets into its connection", defaults(), List.of(
                        send(answered.syn(1000)), send(answered.syn(2000)), send(answered.synAck(2010)), send(answered.ack(2020)),
                        watermark(122_019), watermark(122_020, "connection: 4 events"), end())),
                Arguments.of("beyond the flow cap a new connection is refused", withCaps(200_000, 1), List.of(
                        send(held.syn(1000)), send(held.synAck(1010)), send(held.ack(1015)),
                        send(refused.syn(1020)), send(refused.synAck(1030)), send(refused.ack(1040), "dead letter flow_table_full"),
                        watermark(121_015, "connection: 3 events"),
                        end("dead letter half_open_connection"))), // the refused flow's SYN and SYN/ACK, its handshake's end refused
                Arguments.of("a tombstone is not a connection held: at the flow cap a closed connection makes room at once", withCaps(200_000, 1), List.of(
                        send(closedBefore.syn(1000)), send(closedBefore.synAck(1010)), send(closedBefore.clientFin(1020)),
                        send(closedBefore.serverFin(1030)), send(closedBefore.ack(1035)),
                        watermark(6035, "connection: 5 events"), holds(1, 2),
                        send(openedAfter.syn(7000)), send(openedAfter.synAck(7010)), send(openedAfter.ack(7020)),
                        watermark(127_020, "connection: 3 events"), end())),
                Arguments.of("beyond twice the flow cap in tombstones, a finalised connection leaves none", withCaps(200_000, 1), List.of(
                        send(closedBefore.syn(1000)), send(closedBefore.synAck(1010)), send(closedBefore.clientFin(1020)),
                        send(closedBefore.serverFin(1030)), send(closedBefore.ack(1035)),
                        watermark(6035, "connection: 5 events"),
                        send(openedAfter.syn(7000)), send(openedAfter.synAck(7010)), send(openedAfter.clientFin(7020)),
                        send(openedAfter.serverFin(7030)), send(openedAfter.ack(7035)),
                        watermark(12_035, "connection: 5 events"), holds(2, 3), // two tombstones, their timers and the sweep's
                        send(thirdClosed.syn(13_000)), send(thirdClosed.synAck(13_010)), send(thirdClosed.clientFin(13_020)),
                        send(thirdClosed.serverFin(13_030)), send(thirdClosed.ack(13_035)),
                        watermark(18_035, "connection: 5 events"), holds(2, 3),
                        end())),
                Arguments.of("at the flow cap a port pair's reuse is refused as a new flow, not late for the tombstone", withCaps(200_000, 1), List.of(
                        send(closedThenReused.syn(1000)), send(closedThenReused.synAck(1010)), send(closedThenReused.clientFin(1020)),
                        send(closedThenReused.serverFin(1030)), send(closedThenReused.ack(1035)),
                        watermark(6035, "connection: 5 events"),
                        send(filling.syn(7000)), send(filling.synAck(7010)), send(filling.ack(7020)),
                        send(reusing.syn(8000), "dead letter flow_table_full"), send(reusing.synAck(8010)),
                        send(reusing.ack(8020), "dead letter flow_table_full"),
                        watermark(127_020, "connection: 3 events"),
                        end("dead letter half_open_connection")))); // the reusing flow's SYN/ACK, its handshake's end refused
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("timelines")
    void timeline(String name, LifecycleConfig cfg, List<Step> steps) {
        List<String> out = new ArrayList<>();
        ConnectionLifecycle lifecycle = new ConnectionLifecycle(cfg, t -> t.serverAddr() + ":" + t.serverPort());
        LifecycleLoop loop = new LifecycleLoop(lifecycle, c -> out.add(describe(c)), r -> out.add("dead letter " + r.reason()));
        for (Step step : steps) {
            out.clear();
            step.action().accept(loop);
            assertEquals(step.out(), out, step.what());
        }
        assertEquals(List.of(0, 0, 0L, 0L, 0L, 0), List.of(loop.flowsWithState(), loop.timersSet(), lifecycle.flowsHeld(),
                lifecycle.tombstonesHeld(), lifecycle.eventsBuffered(), lifecycle.halfOpenFlowsHeld()), "nothing held after the end of input");
    }

    /** The first packet that engages a flow sets its idle timer; a FIN moves it to the close grace now, not when it fires. */
    @Test
    void aResetMovesTheFlowsTimerForward() {
        ConnectionLifecycle lifecycle = new ConnectionLifecycle(defaults(), t -> "path");
        Conversation c = new Conversation();
        List<String> actions = new ArrayList<>();
        RecordedActions out = new RecordedActions(actions);
        FlowState s = null;
        lifecycle.onEvent(c.flow(), s, c.response(1000), Long.MIN_VALUE, out);
        assertEquals(List.of("buffer", "set timer 121000", "store"), actions);
        actions.clear();
        lifecycle.onEvent(c.flow(), out.stored, c.rst(2000), 1500, out);
        assertEquals(List.of("buffer", "delete timer 121000", "set timer 7000", "store"), actions);
        actions.clear();
        lifecycle.onTimer(c.flow(), out.stored, 7000, 7000, () -> List.of(c.response(1000), c.rst(2000)), out);
        assertEquals(List.of("connection finalised", "emit", "clear buffer", "set timer 67000", "store"), actions, "the tombstone");
    }

    /** A tombstone restored with its count, or without (an instance added by rescaling, an older checkpoint), leaves nothing counted once it expires. */
    @Test
    void aTombstoneRestoredWithOrWithoutItsCountLeavesNothingCounted() {
        Conversation c = new Conversation();
        RecordedActions out = new RecordedActions(new ArrayList<>());
        ConnectionLifecycle before = new ConnectionLifecycle(defaults(), t -> "path");
        before.onEvent(c.flow(), null, c.response(1000), Long.MIN_VALUE, out);
        before.onEvent(c.flow(), out.stored, c.rst(2000), 1500, out);
        before.onTimer(c.flow(), out.stored, 7000, 7000, () -> List.of(c.response(1000), c.rst(2000)), out);
        FlowState tombstone = out.stored;
        assertEquals(List.of(0L, 1L), List.of(before.flowsHeld(), before.tombstonesHeld()));
        for (long[] totals : List.of(new long[] {0, 0, 1}, new long[] {0, 0, 0})) {
            ConnectionLifecycle restored = new ConnectionLifecycle(defaults(), t -> "path");
            restored.restoreTotals(totals[0], totals[1], totals[2]);
            restored.onTimer(c.flow(), tombstone, 67_000, 67_000, List::of, out);
            assertEquals(List.of(0L, 0L), List.of(restored.flowsHeld(), restored.tombstonesHeld()), java.util.Arrays.toString(totals));
        }
    }

    /** A connection restored without its counts (a checkpoint of an older critpath) takes none below zero when it ends. */
    @Test
    void aConnectionRestoredWithoutItsCountsLeavesNoneBelowZero() {
        Conversation c = new Conversation();
        List<String> actions = new ArrayList<>();
        RecordedActions out = new RecordedActions(actions);
        ConnectionLifecycle before = new ConnectionLifecycle(defaults(), t -> "path");
        List<PacketEvent> events = List.of(c.request(1000), c.response(1010), c.clientFin(1020), c.serverFin(1030), c.ack(1040));
        for (PacketEvent e : events) {
            before.onEvent(c.flow(), out.stored, e, Long.MIN_VALUE, out);
        }
        assertEquals(List.of(1L, 5L), List.of(before.flowsHeld(), before.eventsBuffered()));
        ConnectionLifecycle restored = new ConnectionLifecycle(defaults(), t -> "path");
        actions.clear();
        while (!actions.contains("emit")) { // the flow's one timer, moved lazily, fires until the close grace has passed
            restored.onTimer(c.flow(), out.stored, out.stored.timerMs, out.stored.timerMs, () -> events, out);
        }
        assertEquals(List.of(0L, 0L, 1L), List.of(restored.flowsHeld(), restored.eventsBuffered(), restored.tombstonesHeld()));
    }

    /**
     * After a FIN from one side only the other side may go on sending, and a FIN not seen
     * acknowledged will be re-sent: the connection stays until both sides closed and acknowledged, or it goes quiet.
     */
    @Test
    void aConnectionIsClosedOnlyWhenBothFinsAreAcknowledged() {
        ConnectionLifecycle lifecycle = new ConnectionLifecycle(defaults(), t -> "path");
        Conversation c = new Conversation();
        List<String> actions = new ArrayList<>();
        RecordedActions out = new RecordedActions(actions);
        PacketEvent request = c.request(1000);
        PacketEvent clientFin = c.clientFin(2000);
        PacketEvent serverFin = c.serverFin(30_000); // acknowledges the client's FIN
        PacketEvent lastAck = c.ack(30_010);
        lifecycle.onEvent(c.flow(), null, request, Long.MIN_VALUE, out);
        lifecycle.onEvent(c.flow(), out.stored, clientFin, 1500, out);
        actions.clear();
        lifecycle.onTimer(c.flow(), out.stored, 7000, 7000, () -> List.of(request, clientFin), out);
        assertEquals(List.of("set timer 122000", "store"), actions, "a half-close: open until quiet for the idle timeout");
        actions.clear();
        lifecycle.onEvent(c.flow(), out.stored, serverFin, 30_000, out);
        assertEquals(List.of("buffer", "delete timer 122000", "set timer 35000", "store"), actions, "both sides closed: the close grace");
        actions.clear();
        lifecycle.onTimer(c.flow(), out.stored, 35_000, 35_000, () -> List.of(request, clientFin, serverFin), out);
        assertEquals(List.of("set timer 150000", "store"), actions, "the server's FIN was not seen acknowledged: it will be re-sent");
        actions.clear();
        lifecycle.onEvent(c.flow(), out.stored, lastAck, 35_000, out);
        assertEquals(List.of("buffer", "delete timer 150000", "set timer 40000", "store"), actions);
        actions.clear();
        lifecycle.onTimer(c.flow(), out.stored, 40_000, 40_000, () -> List.of(request, clientFin, serverFin, lastAck), out);
        assertEquals(List.of("connection finalised", "emit", "clear buffer", "set timer 100000", "store"), actions);
    }

    private static String describe(FinishedConnection c) {
        String events = c.events().length + " events" + (c.eventsOverCap() > 0 ? ", " + c.eventsOverCap() + " over the cap" : "");
        if (c.whole()) {
            return "connection: " + events;
        }
        return (c.last() ? "last segment " : "segment ") + c.segment() + ": " + events;
    }

    /** The actions as words, and the state last stored. */
    private static final class RecordedActions implements LifecycleActions {
        private final List<String> actions;
        FlowState stored;

        RecordedActions(List<String> actions) {
            this.actions = actions;
        }

        @Override
        public void buffer(PacketEvent e) {
            actions.add("buffer");
        }

        @Override
        public void countOverCap(PacketEvent e) {
            actions.add("over cap");
        }

        @Override
        public void replaceBuffer(List<PacketEvent> events) {
            actions.add("replace buffer");
        }

        @Override
        public void clearBuffer() {
            actions.add("clear buffer");
        }

        @Override
        public void setTimer(long atMs) {
            actions.add("set timer " + atMs);
        }

        @Override
        public void deleteTimer(long atMs) {
            actions.add("delete timer " + atMs);
        }

        @Override
        public void store(FlowState state) {
            stored = state;
            actions.add("store");
        }

        @Override
        public void clear() {
            actions.add("clear");
        }

        @Override
        public void emit(FinishedConnection connection) {
            actions.add("emit");
        }

        @Override
        public void finalised() {
            actions.add("connection finalised");
        }

        @Override
        public void segmentCut() {
            actions.add("segment cut");
        }

        @Override
        public void reject(Rejection rejection) {
            actions.add("dead letter " + rejection.reason());
        }
    }
}
