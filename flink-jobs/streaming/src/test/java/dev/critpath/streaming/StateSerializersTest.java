package dev.critpath.streaming;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.lifecycle.ConnectionLifecycle;
import dev.critpath.core.lifecycle.FinishedConnection;
import dev.critpath.core.lifecycle.FlowState;
import dev.critpath.core.lifecycle.LifecycleLoop;
import dev.critpath.core.lifecycle.PathState;
import dev.critpath.core.testing.Conversation;
import dev.critpath.core.trace.ConnectionAssembler;
import java.io.IOException;
import java.util.List;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** Every state value written and read back, and every snapshot's format: kept, and refused when unknown. */
class StateSerializersTest {
    private static final List<TypeSerializer<?>> ALL = List.of(EventSerializers.PacketEventSerializer.INSTANCE,
            EventSerializers.FinishedConnectionSerializer.INSTANCE, StateSerializers.FlowStateSerializer.INSTANCE,
            StateSerializers.PathStateSerializer.INSTANCE);

    /** A connection held, then one cut into segments (which keeps its path key). */
    @Test
    void aFlowsStateComesBackByteForByte() throws Exception {
        Conversation c = new Conversation();
        LifecycleLoop loop = new LifecycleLoop(new ConnectionLifecycle(StreamConfig.defaults("k", "w").lifecycle(), t -> "path"), f -> { }, r -> { });
        for (PacketEvent e : List.of(c.syn(1000), c.synAck(1010), c.request(1020), c.response(1030), c.ack(1040))) {
            loop.add(e);
        }
        assertRoundTrip(StateSerializers.FlowStateSerializer.INSTANCE, loop.stateOf(c.flow()));
        for (PacketEvent e : List.of(c.request(61_000), c.response(61_010), c.ack(61_020))) {
            loop.add(e);
        }
        loop.advanceWatermark(62_020);
        FlowState cut = loop.stateOf(c.flow());
        assertRoundTrip(StateSerializers.FlowStateSerializer.INSTANCE, cut);
        assertEquals(cut.bufferedCount(), StateSerializers.FlowStateSerializer.INSTANCE.copy(cut).bufferedCount());
    }

    @Test
    void aPathsStateComesBackByteForByte() throws Exception {
        PathState path = new PathState();
        assertRoundTrip(StateSerializers.PathStateSerializer.INSTANCE, path);
        ConnectionAssembler assembler = new ConnectionAssembler();
        LabReplay.events(LabReplay.scenarios("think-100ms")).forEach(assembler::add);
        path.learn(Analyzer.defaults().analyze(assembler.connections().get(0)).profile());
        assertTrue(path.owdC2sUs() > 0, "learnt the path's delays");
        assertRoundTrip(StateSerializers.PathStateSerializer.INSTANCE, path);
        assertEquals(path.prior(), StateSerializers.PathStateSerializer.INSTANCE.copy(path).prior());
    }

    @Test
    void eventsAndFinishedConnectionsComeBackByteForByte() throws Exception {
        Conversation c = new Conversation();
        PacketEvent[] events = {c.syn(1000), c.synAck(1010), c.request(1020)};
        assertRoundTrip(EventSerializers.PacketEventSerializer.INSTANCE, events[2]);
        assertRoundTrip(EventSerializers.FinishedConnectionSerializer.INSTANCE, new FinishedConnection("path", events, 2, c.flow(), 1, false));
    }

    /** A checkpoint keeps each serializer's format; this build reads its own back as it is. */
    @Test
    void everySnapshotKeepsItsFormatAndReadsBackCompatible() throws Exception {
        for (TypeSerializer<?> serializer : ALL) {
            assertSnapshotReadsBack(serializer);
        }
    }

    /** A checkpoint written by a later critpath in a format this build does not know is refused, saying so. */
    @Test
    void anUnknownFormatIsRefusedWithAClearMessage() throws Exception {
        for (TypeSerializer<?> serializer : ALL) {
            DataOutputSerializer out = new DataOutputSerializer(64);
            out.writeUTF(serializer.snapshotConfiguration().getClass().getName()); // as Flink writes a snapshot: its class, its version
            out.writeInt(2);
            IOException refused = assertThrows(IOException.class, () -> TypeSerializerSnapshot.readVersionedSnapshot(
                    new DataInputDeserializer(out.getSharedBuffer(), 0, out.length()), getClass().getClassLoader()));
            assertTrue(refused.getMessage().matches("the checkpoint holds .+ state in format 2, and this build of critpath reads format 1 only: "
                    + "resume it with the critpath that wrote it, or start afresh \\(critpath stream --no-resume\\)"), refused.getMessage());
        }
    }

    private static <T> void assertSnapshotReadsBack(TypeSerializer<T> serializer) throws IOException {
        TypeSerializerSnapshot<T> written = serializer.snapshotConfiguration();
        assertEquals(1, written.getCurrentVersion(), "format 1");
        DataOutputSerializer out = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, written);
        TypeSerializerSnapshot<T> read = TypeSerializerSnapshot.readVersionedSnapshot(new DataInputDeserializer(out.getSharedBuffer(), 0, out.length()),
                StateSerializersTest.class.getClassLoader());
        assertSame(serializer, read.restoreSerializer());
        assertTrue(serializer.snapshotConfiguration().resolveSchemaCompatibility(read).isCompatibleAsIs(), serializer.getClass().getSimpleName());
    }

    private static <T> void assertRoundTrip(TypeSerializer<T> serializer, T value) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        serializer.serialize(value, out);
        byte[] written = out.getCopyOfBuffer();
        T back = serializer.deserialize(new DataInputDeserializer(written));
        DataOutputSerializer again = new DataOutputSerializer(64);
        serializer.serialize(back, again);
        assertArrayEquals(written, again.getCopyOfBuffer(), serializer.getClass().getSimpleName());
    }
}
