package dev.critpath.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.lifecycle.FinishedConnection;
import dev.critpath.core.testing.Conversation;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The connection stage on Flink's own state and timers: what it leaves behind once a flow is done with. */
class ConnectionAssemblyFunctionTest {
    private static final int MAX_PARALLELISM = 128;
    private KeyedOneInputStreamOperatorTestHarness<String, PacketEvent, FinishedConnection> harness;

    @BeforeEach
    void open() throws Exception {
        harness = harness(StreamConfig.defaults("localhost:9092", "unused"), MAX_PARALLELISM, 1, 0);
        harness.open();
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, PacketEvent, FinishedConnection> harness(StreamConfig cfg, int maxParallelism,
            int parallelism, int subtask) throws Exception {
        var h = new KeyedOneInputStreamOperatorTestHarness<>(new KeyedProcessOperator<>(new ConnectionAssemblyFunction(cfg)),
                PacketEvent::communityId, Types.STRING, maxParallelism, parallelism, subtask);
        // the job's own serializer for what it emits, as the job's graph uses it
        h.setup(EventSerializers.FINISHED_CONNECTION.createSerializer(new org.apache.flink.api.common.ExecutionConfig()));
        return h;
    }

    @AfterEach
    void close() throws Exception {
        harness.close();
    }

    /** A connection the sensors caught mid-stream (no SYN): its tombstone is all that stays, then nothing. */
    @Test
    void aFinalisedConnectionLeavesItsTombstoneUntilTheAllowedLatenessThenNothing() throws Exception {
        Conversation c = new Conversation();
        send(c.request(1000), c.response(1010), c.clientFin(1020), c.serverFin(1030), c.ack(1040));
        harness.processWatermark(new Watermark(6040)); // the close grace after the last packet
        assertEquals(1, harness.extractOutputValues().size(), "the connection went on to its path");
        assertEquals(List.of(1, 1), List.of(harness.numKeyedStateEntries(), harness.numEventTimeTimers()), "the tombstone and its timer");
        harness.processWatermark(new Watermark(66_040)); // the allowed lateness after finalising
        assertEquals(List.of(0, 0), List.of(harness.numKeyedStateEntries(), harness.numEventTimeTimers()), "nothing held");
    }

    /** Opened by a SYN, the flow set the half-open table's sweep timer too: once it fired, nothing is held. */
    @Test
    void aConnectionOpenedByASynLeavesNothingOnceTheSweepHasRun() throws Exception {
        Conversation c = new Conversation();
        send(c.syn(1000), c.synAck(1010), c.ack(1020), c.request(1030), c.response(1040), c.clientFin(1050), c.serverFin(1060), c.ack(1070));
        harness.processWatermark(new Watermark(6070));
        assertEquals(1, harness.extractOutputValues().size());
        assertEquals(List.of(1, 2), List.of(harness.numKeyedStateEntries(), harness.numEventTimeTimers()), "the tombstone, its timer and the sweep's");
        harness.processWatermark(new Watermark(121_000));
        assertEquals(List.of(0, 0), List.of(harness.numKeyedStateEntries(), harness.numEventTimeTimers()), "nothing held");
    }

    /** SYNs nobody answers never reach keyed state: one dead letter after the idle timeout, and nothing held. */
    @Test
    void aHalfOpenFlowIsOneDeadLetterAndHoldsNoKeyedState() throws Exception {
        Conversation c = new Conversation();
        send(c.syn(1000), c.syn(2000), c.syn(4000));
        assertEquals(List.of(0, 1), List.of(harness.numKeyedStateEntries(), harness.numEventTimeTimers()), "only the sweep's timer");
        harness.processWatermark(new Watermark(124_000));
        List<DeadLetter> dead = deadLetters(harness);
        assertEquals(List.of("half_open_connection"), dead.stream().map(DeadLetter::reason).toList());
        assertEquals("3 packet(s) 10.0.0.1:40000 > 10.0.0.2:80, no payload and no handshake completed", dead.get(0).detail());
        assertEquals(List.of(0, 0, 0), List.of(harness.extractOutputValues().size(), harness.numKeyedStateEntries(), harness.numEventTimeTimers()));
    }

    /**
     * Rescaled from one instance to two and back, each takes back the totals of the key groups it
     * gets, so its room under the cap on connections is what its own connections leave: the totals
     * split between instances as they came (one instance's whole count to one of them) left one
     * full with room to spare and let the other go over the cap.
     */
    @Test
    void rescaledEachInstanceCountsTheConnectionsOfItsKeyGroups() throws Exception {
        int cap = 6;
        StreamConfig cfg = StreamConfig.defaults("localhost:9092", "unused").withCaps(new StreamConfig.Caps(cap, 2_000_000, 100_000));
        var one = harness(cfg, MAX_PARALLELISM, 1, 0);
        one.open();
        int[] heldBy = new int[2];
        for (int port = 40_000; port < 40_000 + cap; port++) {
            Conversation c = new Conversation("sensor", port, 1000L * port, 0);
            send(one, c.syn(1000), c.synAck(1010), c.ack(1020), c.request(1030));
            if (port < 40_002) { // two of them close: their tombstones stay, the connections are no longer held
                send(one, c.response(1040), c.clientFin(1050), c.serverFin(1060), c.ack(1070));
            } else {
                heldBy[instanceOf(c)]++;
            }
        }
        one.processWatermark(new Watermark(7000));
        assertEquals(List.of(2, 0), List.of(one.extractOutputValues().size(), reasons(one).size()), "two finalised, none refused");
        OperatorSubtaskState checkpoint = one.snapshot(1, 7000);
        one.close();
        assertTrue(heldBy[0] > 0 && heldBy[1] > 0, "connections on both instances: " + Arrays.toString(heldBy));
        OperatorSubtaskState[] rescaled = new OperatorSubtaskState[2];
        for (int subtask = 0; subtask < 2; subtask++) {
            var h = harness(cfg, MAX_PARALLELISM, 2, subtask);
            h.initializeState(AbstractStreamOperatorTestHarness.repartitionOperatorState(checkpoint, MAX_PARALLELISM, 1, 2, subtask));
            h.open();
            rescaled[subtask] = h.snapshot(2, 7000);
            assertEquals(cap - heldBy[subtask], room(h, subtask, cap), "new connections instance " + subtask + " takes beside the "
                    + heldBy[subtask] + " it holds");
            h.close();
        }
        var back = harness(cfg, MAX_PARALLELISM, 1, 0);
        back.initializeState(AbstractStreamOperatorTestHarness.repartitionOperatorState(AbstractStreamOperatorTestHarness.repackageState(rescaled),
                MAX_PARALLELISM, 2, 1, 0));
        back.open();
        assertEquals(cap - heldBy[0] - heldBy[1], room(back, 0, cap), "back on one instance, the connections both held are counted");
        back.close();
    }

    /** Half-open flows (kept in operator state, which every instance reads on restore) end up on the instance their keys go to, once. */
    @Test
    void rescaledEachInstanceKeepsTheHalfOpenFlowsOfItsKeyGroups() throws Exception {
        var one = harness(StreamConfig.defaults("localhost:9092", "unused"), MAX_PARALLELISM, 1, 0);
        one.open();
        List<List<String>> expected = List.of(new ArrayList<>(), new ArrayList<>());
        for (int port = 41_000; port < 41_008; port++) {
            Conversation c = new Conversation("sensor", port, 1000L * port, 0);
            send(one, c.syn(1000), c.syn(2000));
            expected.get(instanceOf(c)).add("2 packet(s) 10.0.0.1:" + port + " > 10.0.0.2:80, no payload and no handshake completed");
        }
        assertTrue(!expected.get(0).isEmpty() && !expected.get(1).isEmpty(), "flows on both instances: " + expected);
        OperatorSubtaskState checkpoint = one.snapshot(1, 2000);
        one.close();
        for (int subtask = 0; subtask < 2; subtask++) {
            var h = harness(StreamConfig.defaults("localhost:9092", "unused"), MAX_PARALLELISM, 2, subtask);
            h.initializeState(AbstractStreamOperatorTestHarness.repartitionOperatorState(checkpoint, MAX_PARALLELISM, 1, 2, subtask));
            h.open();
            // a packet of a connection (not a half-open one, which schedules the sweep anyway) is the first after the restore;
            // the watermark passes the restored flows' idle timeout (2000 + 120,000 ms), not the connection's own timer
            Conversation next = new Conversation("sensor", portOn(subtask), 7, 0);
            send(h, next.request(3030));
            h.processWatermark(new Watermark(122_500));
            List<String> dead = deadLetters(h).stream().map(DeadLetter::detail).sorted().toList();
            assertEquals(expected.get(subtask), dead, "instance " + subtask);
            h.close();
        }
    }

    /** A client port whose flow goes to the instance (of two). */
    private static int portOn(int subtask) {
        int port = 43_000;
        while (instanceOf(new Conversation("sensor", port, 7, 0)) != subtask) {
            port++;
        }
        return port;
    }

    /** How many new connections of the instance's key groups it takes before one is refused at the cap. */
    private static int room(KeyedOneInputStreamOperatorTestHarness<String, PacketEvent, FinishedConnection> h, int subtask, int cap) throws Exception {
        int taken = 0;
        for (int port = 50_000; reasons(h).isEmpty() && taken <= cap; port++) {
            Conversation c = new Conversation("sensor", port, 1000L * port, 0);
            if (h.getEnvironment().getTaskInfo().getNumberOfParallelSubtasks() == 1 || instanceOf(c) == subtask) {
                send(h, c.syn(8000), c.synAck(8010), c.ack(8020));
                taken += reasons(h).isEmpty() ? 1 : 0;
            }
        }
        assertEquals(List.of("flow_table_full"), reasons(h), "instance " + subtask);
        return taken;
    }

    private static int instanceOf(Conversation c) {
        return KeyGroupRangeAssignment.assignKeyToParallelOperator(c.syn(0).communityId(), MAX_PARALLELISM, 2);
    }

    private static List<String> reasons(KeyedOneInputStreamOperatorTestHarness<String, PacketEvent, FinishedConnection> h) {
        return deadLetters(h).stream().map(DeadLetter::reason).toList();
    }

    /** What the instance rejected so far (none before its first rejection makes the side output). */
    private static List<DeadLetter> deadLetters(KeyedOneInputStreamOperatorTestHarness<String, PacketEvent, FinishedConnection> h) {
        var rejected = h.getSideOutput(ConnectionAssemblyFunction.REJECTED);
        return rejected == null ? List.of() : rejected.stream().map(StreamRecord::getValue).toList();
    }

    private void send(PacketEvent... events) throws Exception {
        send(harness, events);
    }

    private static void send(KeyedOneInputStreamOperatorTestHarness<String, PacketEvent, FinishedConnection> h, PacketEvent... events) throws Exception {
        for (PacketEvent e : events) {
            h.processElement(new StreamRecord<>(e, e.tsUs() / 1000));
        }
    }
}
