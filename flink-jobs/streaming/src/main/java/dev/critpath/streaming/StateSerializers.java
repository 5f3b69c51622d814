package dev.critpath.streaming;

import dev.critpath.core.lifecycle.FlowState;
import dev.critpath.core.lifecycle.PathState;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.io.Serializable;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.util.function.SerializableSupplier;

/**
 * Serializers for the core's state values in keyed state: each writes the value's own layout
 * ({@code writeTo}/{@code readFrom}), and its snapshot carries that layout's format, so that a
 * changed class is never read with Kryo's or the POJO serializer's guess.
 */
final class StateSerializers {
    static final TypeInformation<FlowState> FLOW_STATE = new SerializerTypeInfo<>(FlowState.class, FlowStateSerializer.INSTANCE);
    static final TypeInformation<PathState> PATH_STATE = new SerializerTypeInfo<>(PathState.class, PathStateSerializer.INSTANCE);

    private StateSerializers() {
    }

    /** How a state value writes and reads its own layout; serializable, as serializers are. */
    interface Writer<T> extends Serializable {
        void write(T value, DataOutput out) throws IOException;
    }

    interface Reader<T> extends Serializable {
        T read(DataInput in) throws IOException;
    }

    /** A mutable value: a copy is its bytes read back (heap state copies only what a running checkpoint still reads). */
    abstract static class ValueSerializer<T> extends WholeRecordSerializer<T> {
        private final Writer<T> writer;
        private final Reader<T> reader;
        private final SerializableSupplier<TypeSerializerSnapshot<T>> snapshot;

        ValueSerializer(Writer<T> writer, Reader<T> reader, SerializableSupplier<TypeSerializerSnapshot<T>> snapshot) {
            this.writer = writer;
            this.reader = reader;
            this.snapshot = snapshot;
        }

        @Override
        public boolean isImmutableType() {
            return false;
        }

        @Override
        public T copy(T from) {
            try {
                DataOutputSerializer bytes = new DataOutputSerializer(128);
                writer.write(from, bytes);
                return reader.read(new DataInputDeserializer(bytes.getSharedBuffer(), 0, bytes.length()));
            } catch (IOException e) {
                throw new IllegalStateException("copying state through an array cannot fail", e);
            }
        }

        @Override
        public void serialize(T value, DataOutputView out) throws IOException {
            writer.write(value, out);
        }

        @Override
        public T deserialize(DataInputView in) throws IOException {
            return reader.read(in);
        }

        @Override
        public TypeSerializerSnapshot<T> snapshotConfiguration() {
            return snapshot.get();
        }
    }

    static final class FlowStateSerializer extends ValueSerializer<FlowState> {
        static final FlowStateSerializer INSTANCE = new FlowStateSerializer();

        private FlowStateSerializer() {
            super(FlowState::writeTo, FlowState::readFrom, FlowStateSnapshot::new);
        }
    }

    public static final class FlowStateSnapshot extends VersionedSnapshot<FlowState> {
        public FlowStateSnapshot() {
            super("flow", FlowState.FORMAT, () -> FlowStateSerializer.INSTANCE);
        }
    }

    static final class PathStateSerializer extends ValueSerializer<PathState> {
        static final PathStateSerializer INSTANCE = new PathStateSerializer();

        private PathStateSerializer() {
            super(PathState::writeTo, PathState::readFrom, PathStateSnapshot::new);
        }
    }

    public static final class PathStateSnapshot extends VersionedSnapshot<PathState> {
        public PathStateSnapshot() {
            super("network path", PathState.FORMAT, () -> PathStateSerializer.INSTANCE);
        }
    }
}
