package dev.critpath.streaming;

import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Type information that is nothing but a given serializer. */
final class SerializerTypeInfo<T> extends TypeInformation<T> {
    private final Class<T> type;
    private final TypeSerializer<T> serializer;

    SerializerTypeInfo(Class<T> type, TypeSerializer<T> serializer) {
        this.type = type;
        this.serializer = serializer;
    }

    @Override
    public boolean isBasicType() {
        return false;
    }

    @Override
    public boolean isTupleType() {
        return false;
    }

    @Override
    public int getArity() {
        return 1;
    }

    @Override
    public int getTotalFields() {
        return 1;
    }

    @Override
    public Class<T> getTypeClass() {
        return type;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<T> createSerializer(SerializerConfig config) {
        return serializer;
    }

    @Override
    @Deprecated
    public TypeSerializer<T> createSerializer(org.apache.flink.api.common.ExecutionConfig config) {
        return serializer;
    }

    @Override
    public String toString() {
        return type.getSimpleName() + " (critpath serializer)";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SerializerTypeInfo<?> other && other.type == type;
    }

    @Override
    public int hashCode() {
        return type.hashCode();
    }

    @Override
    public boolean canEqual(Object o) {
        return o instanceof SerializerTypeInfo<?>;
    }
}
