package dev.critpath.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.lifecycle.FinishedConnection;
import dev.critpath.core.testing.Conversation;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The connection stage on Flink's own state and timers: what it leaves behind once a flow is done with. */
class ConnectionAssemblyFunctionTest {
    private KeyedOneInputStreamOperatorTestHarness<String, PacketEvent, FinishedConnection> harness;

    @BeforeEach
    void open() throws Exception {
        StreamConfig cfg = StreamConfig.defaults("localhost:9092", "unused");
        harness = new KeyedOneInputStreamOperatorTestHarness<>(new KeyedProcessOperator<>(new ConnectionAssemblyFunction(cfg)),
                PacketEvent::communityId, Types.STRING);
        // the job's own serializer for what it emits, as the job's graph uses it
        harness.setup(EventSerializers.FINISHED_CONNECTION.createSerializer(new org.apache.flink.api.common.ExecutionConfig()));
        harness.open();
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
        List<DeadLetter> dead = harness.getSideOutput(ConnectionAssemblyFunction.REJECTED).stream().map(StreamRecord::getValue).toList();
        assertEquals(List.of("half_open_connection"), dead.stream().map(DeadLetter::reason).toList());
        assertEquals("3 packet(s) 10.0.0.1:40000 > 10.0.0.2:80, no payload and no handshake completed", dead.get(0).detail());
        assertEquals(List.of(0, 0, 0), List.of(harness.extractOutputValues().size(), harness.numKeyedStateEntries(), harness.numEventTimeTimers()));
    }

    private void send(PacketEvent... events) throws Exception {
        for (PacketEvent e : events) {
            harness.processElement(new StreamRecord<>(e, e.tsUs() / 1000));
        }
    }
}
