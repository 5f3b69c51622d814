package dev.critpath.streaming;

import java.io.IOException;
import java.util.function.Supplier;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The snapshot of one of critpath's serializers, as a checkpoint keeps it: its version is the
 * format the state was written in. A restore refuses a format this build does not know (a
 * checkpoint of a newer critpath) with a message that says so, instead of misreading the bytes.
 */
abstract class VersionedSnapshot<T> implements TypeSerializerSnapshot<T> {
    private final String what;
    private final int currentFormat;
    private final Supplier<TypeSerializer<T>> serializer;

    /**
     * @param what          what the state holds, as the refusal names it
     * @param currentFormat the format the serializer writes; formats count from 1
     */
    VersionedSnapshot(String what, int currentFormat, Supplier<TypeSerializer<T>> serializer) {
        this.what = what;
        this.currentFormat = currentFormat;
        this.serializer = serializer;
    }

    @Override
    public int getCurrentVersion() {
        return currentFormat;
    }

    @Override
    public void writeSnapshot(DataOutputView out) {
        // the version Flink writes before it is the whole of it
    }

    @Override
    public void readSnapshot(int readVersion, DataInputView in, ClassLoader classLoader) throws IOException {
        if (readVersion < 1 || readVersion > currentFormat) {
            throw new IOException("the checkpoint holds " + what + " state in format " + readVersion + ", and this build of critpath reads "
                    + (currentFormat == 1 ? "format 1 only" : "formats 1 to " + currentFormat)
                    + ": resume it with the critpath that wrote it, or start afresh (critpath stream --no-resume)");
        }
    }

    @Override
    public TypeSerializer<T> restoreSerializer() {
        return serializer.get(); // format 1 is the only one yet; a second would return its reader here
    }

    @Override
    public TypeSerializerSchemaCompatibility<T> resolveSchemaCompatibility(TypeSerializerSnapshot<T> old) {
        // an old snapshot of this kind was read, so its format is one this build reads as it writes
        return old.getClass() == getClass() ? TypeSerializerSchemaCompatibility.compatibleAsIs() : TypeSerializerSchemaCompatibility.incompatible();
    }
}
