package dev.critpath.streaming;

import dev.critpath.core.lifecycle.FlowState;
import dev.critpath.core.lifecycle.PathState;
import java.io.IOException;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;

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

    /** A mutable value: a copy is its bytes read back (heap state copies only what a running checkpoint still reads). */
    abstract static class ValueSerializer<T> extends TypeSerializerSingleton<T> {
        abstract void write(T value, DataOutputView out) throws IOException;

        abstract T read(DataInputView in) throws IOException;

        @Override
        public boolean isImmutableType() {
            return false;
        }

        @Override
        public T copy(T from) {
            try {
                DataOutputSerializer bytes = new DataOutputSerializer(128);
                write(from, bytes);
                return read(new DataInputDeserializer(bytes.getSharedBuffer(), 0, bytes.length()));
            } catch (IOException e) {
                throw new IllegalStateException("copying state through an array cannot fail", e);
            }
        }

        @Override
        public T copy(T from, T reuse) {
            return copy(from);
        }

        @Override
        public int getLength() {
            return -1;
        }

        @Override
        public void serialize(T value, DataOutputView out) throws IOException {
            write(value, out);
        }

        @Override
        public T deserialize(DataInputView in) throws IOException {
            return read(in);
        }

        @Override
        public T deserialize(T reuse, DataInputView in) throws IOException {
            return read(in);
        }

        @Override
        public void copy(DataInputView in, DataOutputView out) throws IOException {
            write(read(in), out);
        }
    }

    static final class FlowStateSerializer extends ValueSerializer<FlowState> {
        static final FlowStateSerializer INSTANCE = new FlowStateSerializer();

        @Override
        void write(FlowState value, DataOutputView out) throws IOException {
            value.writeTo(out);
        }

        @Override
        FlowState read(DataInputView in) throws IOException {
            return FlowState.readFrom(in);
        }

        @Override
        public FlowState createInstance() {
            return new FlowState();
        }

        @Override
        public TypeSerializerSnapshot<FlowState> snapshotConfiguration() {
            return new FlowStateSnapshot();
        }
    }

    public static final class FlowStateSnapshot extends VersionedSnapshot<FlowState> {
        public FlowStateSnapshot() {
            super("flow", FlowState.FORMAT, () -> FlowStateSerializer.INSTANCE);
        }
    }

    static final class PathStateSerializer extends ValueSerializer<PathState> {
        static final PathStateSerializer INSTANCE = new PathStateSerializer();

        @Override
        void write(PathState value, DataOutputView out) throws IOException {
            value.writeTo(out);
        }

        @Override
        PathState read(DataInputView in) throws IOException {
            return PathState.readFrom(in);
        }

        @Override
        public PathState createInstance() {
            return new PathState();
        }

        @Override
        public TypeSerializerSnapshot<PathState> snapshotConfiguration() {
            return new PathStateSnapshot();
        }
    }

    public static final class PathStateSnapshot extends VersionedSnapshot<PathState> {
        public PathStateSnapshot() {
            super("network path", PathState.FORMAT, () -> PathStateSerializer.INSTANCE);
        }
    }
}
