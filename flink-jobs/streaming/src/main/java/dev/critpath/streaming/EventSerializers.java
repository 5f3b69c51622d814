package dev.critpath.streaming;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.event.StringCache;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Predicate;
import dev.critpath.core.lifecycle.FinishedConnection;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializers for what every packet crosses: the shuffle to connection assembly, the assembly's
 * buffer in state, the shuffle to path analysis. Flink's POJO serializer reads each field by
 * reflection and writes strings a character at a time; these write the fields in order and
 * strings as UTF-8 bytes, and a connection's events name their sensor, flow and addresses once,
 * not once per packet.
 */
final class EventSerializers {
    static final TypeInformation<PacketEvent> PACKET_EVENT = new SerializerTypeInfo<>(PacketEvent.class, PacketEventSerializer.INSTANCE);
    static final TypeInformation<FinishedConnection> FINISHED_CONNECTION =
            new SerializerTypeInfo<>(FinishedConnection.class, FinishedConnectionSerializer.INSTANCE);

    /** The layout of {@link #write}; a finished connection's adds its own fields around its events. */
    private static final int FORMAT = 1;
    private static final int NULL = -1;
    private static final int SAME_AS_BEFORE = -2;
    /** values() copies its array on every call: once per event read, it was a twentieth of the analysis. */
    private static final SensorRole[] ROLES = SensorRole.values();
    /**
     * Where a record is put together before it goes to a stream that is not an array (checkpoint
     * files): such streams take each byte of writeInt and writeLong in a call of its own.
     */
    private static final ThreadLocal<DataOutputSerializer> STAGING = ThreadLocal.withInitial(() -> new DataOutputSerializer(4096));

    private EventSerializers() {
    }

    private interface RecordWriter<T> {
        void write(T record, DataOutputView out) throws IOException;
    }

    /** Writes the record straight into an array-backed view, else through {@link #STAGING}. */
    private static <T> void staged(T record, DataOutputView out, RecordWriter<T> writer) throws IOException {
        if (out instanceof DataOutputSerializer) {
            writer.write(record, out);
        } else {
            DataOutputSerializer staging = STAGING.get();
            staging.clear();
            writer.write(record, staging);
            out.write(staging.getSharedBuffer(), 0, staging.length());
        }
    }

    /** Writes s, or a mark when it equals the previous event's value (then read back as that very string). */
    private static void writeString(DataOutputView out, String s, String before) throws IOException {
        if (s == null) {
            out.writeInt(NULL);
        } else if (s.equals(before)) {
            out.writeInt(SAME_AS_BEFORE);
        } else {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            out.writeInt(b.length);
            out.write(b);
        }
    }

    /** A reading thread's scratch bytes and recently read strings. */
    private static final class Reading {
        byte[] bytes = new byte[64];
        final StringCache strings = new StringCache(1 << 14);
    }

    /**
     * Without it every buffered packet holds copies of its flow's sensor, Community ID and
     * addresses (four strings, more bytes than the packet's own fields), which the garbage
     * collector copies with it.
     */
    private static final ThreadLocal<Reading> READING = ThreadLocal.withInitial(Reading::new);
    /** What was written was checked when it was first read. */
    private static final Predicate<String> ANY_STRING = s -> true;

    private static String readString(DataInputView in, String before, Reading r) throws IOException {
        int n = in.readInt();
        if (n == NULL) {
            return null;
        }
        if (n == SAME_AS_BEFORE) {
            return before;
        }
        if (r.bytes.length < n) {
            r.bytes = new byte[Math.max(n, 2 * r.bytes.length)];
        }
        in.readFully(r.bytes, 0, n);
        return r.strings.intern(0, r.bytes, 0, n, ANY_STRING);
    }

    /** One event; strings equal to {@code before}'s (an earlier event of the same record, or null) are not repeated. */
    static void write(PacketEvent e, DataOutputView out, PacketEvent before) throws IOException {
        writeString(out, e.sensor(), before == null ? null : before.sensor());
        out.writeByte(e.sensorRole() == null ? NULL : e.sensorRole().ordinal()); // sensor_role is optional
        out.writeLong(e.tsUs());
        writeString(out, e.communityId(), before == null ? null : before.communityId());
        writeString(out, e.origH(), before == null ? null : before.origH());
        out.writeInt(e.origP());
        writeString(out, e.respH(), before == null ? null : before.respH());
        out.writeInt(e.respP());
        out.writeBoolean(e.isOrig());
        out.writeInt(e.flags());
        out.writeLong(e.seq());
        out.writeLong(e.ack());
        out.writeInt(e.len());
        out.writeInt(e.win());
        out.writeInt(e.wscale());
        out.writeInt(e.mss());
        out.writeByte(e.sackOk() == null ? 2 : e.sackOk() ? 1 : 0);
        long[] sack = e.sack();
        out.writeInt(sack == null ? NULL : sack.length);
        if (sack != null) {
            for (long v : sack) {
                out.writeLong(v);
            }
        }
        out.writeLong(e.tsval());
        out.writeLong(e.tsecr());
        out.writeInt(e.ipId());
        out.writeInt(e.ttl());
        out.writeLong(e.captureIndex());
    }

    static PacketEvent read(DataInputView in, PacketEvent before, Reading r) throws IOException {
        String sensor = readString(in, before == null ? null : before.sensor(), r);
        byte roleOrdinal = in.readByte();
        SensorRole role = roleOrdinal == NULL ? null : ROLES[roleOrdinal];
        long tsUs = in.readLong();
        String communityId = readString(in, before == null ? null : before.communityId(), r);
        String origH = readString(in, before == null ? null : before.origH(), r);
        int origP = in.readInt();
        String respH = readString(in, before == null ? null : before.respH(), r);
        int respP = in.readInt();
        boolean isOrig = in.readBoolean();
        int flags = in.readInt();
        long seq = in.readLong();
        long ack = in.readLong();
        int len = in.readInt();
        int win = in.readInt();
        int wscale = in.readInt();
        int mss = in.readInt();
        byte sackOk = in.readByte();
        int sackLength = in.readInt();
        long[] sack = sackLength == NULL ? null : new long[sackLength];
        for (int i = 0; sack != null && i < sackLength; i++) {
            sack[i] = in.readLong();
        }
        return new PacketEvent(sensor, role, tsUs, communityId, origH, origP, respH, respP, isOrig, flags, seq, ack, len, win, wscale, mss,
                sackOk == 2 ? null : sackOk == 1, sack, in.readLong(), in.readLong(), in.readInt(), in.readInt(), in.readLong());
    }

    /** Packet events are immutable: copies are the event itself. */
    static final class PacketEventSerializer extends WholeRecordSerializer<PacketEvent> {
        static final PacketEventSerializer INSTANCE = new PacketEventSerializer();

        @Override
        public boolean isImmutableType() {
            return true;
        }

        @Override
        public PacketEvent copy(PacketEvent from) {
            return from;
        }

        @Override
        public void serialize(PacketEvent e, DataOutputView out) throws IOException {
            staged(e, out, (event, o) -> write(event, o, null));
        }

        @Override
        public PacketEvent deserialize(DataInputView in) throws IOException {
            return read(in, null, READING.get());
        }

        @Override
        public TypeSerializerSnapshot<PacketEvent> snapshotConfiguration() {
            return new PacketEventSnapshot();
        }
    }

    public static final class PacketEventSnapshot extends VersionedSnapshot<PacketEvent> {
        public PacketEventSnapshot() {
            super("packet event", FORMAT, () -> PacketEventSerializer.INSTANCE);
        }
    }

    /** A finished connection's events share their strings: each is written once per record. */
    static final class FinishedConnectionSerializer extends WholeRecordSerializer<FinishedConnection> {
        static final FinishedConnectionSerializer INSTANCE = new FinishedConnectionSerializer();

        @Override
        public boolean isImmutableType() {
            return false;
        }

        @Override
        public FinishedConnection copy(FinishedConnection from) {
            // the events are immutable; the array is the only part to copy
            return new FinishedConnection(from.pathKey(), from.events() == null ? null : from.events().clone(), from.eventsOverCap(), from.flow(),
                    from.segment(), from.last());
        }

        @Override
        public void serialize(FinishedConnection c, DataOutputView out) throws IOException {
            staged(c, out, FinishedConnectionSerializer::writeFields);
        }

        private static void writeFields(FinishedConnection c, DataOutputView out) throws IOException {
            writeString(out, c.pathKey(), null);
            PacketEvent[] events = c.events();
            out.writeInt(events == null ? NULL : events.length);
            PacketEvent before = null;
            for (int i = 0; events != null && i < events.length; i++) {
                write(events[i], out, before);
                before = events[i];
            }
            out.writeLong(c.eventsOverCap());
            writeString(out, c.flow(), null);
            out.writeInt(c.segment());
            out.writeBoolean(c.last());
        }

        @Override
        public FinishedConnection deserialize(DataInputView in) throws IOException {
            Reading r = READING.get();
            String pathKey = readString(in, null, r);
            int n = in.readInt();
            PacketEvent[] events = n == NULL ? null : new PacketEvent[n];
            PacketEvent before = null;
            for (int i = 0; i < n; i++) {
                events[i] = read(in, before, r);
                before = events[i];
            }
            return new FinishedConnection(pathKey, events, in.readLong(), readString(in, null, r), in.readInt(), in.readBoolean());
        }

        @Override
        public TypeSerializerSnapshot<FinishedConnection> snapshotConfiguration() {
            return new FinishedConnectionSnapshot();
        }
    }

    public static final class FinishedConnectionSnapshot extends VersionedSnapshot<FinishedConnection> {
        public FinishedConnectionSnapshot() {
            super("finished connection", FORMAT, () -> FinishedConnectionSerializer.INSTANCE);
        }
    }
}
