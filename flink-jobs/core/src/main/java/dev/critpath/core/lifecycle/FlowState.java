package dev.critpath.core.lifecycle;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * One flow's bookkeeping beside its buffered events, between the events and timers that change
 * it. Only the {@link ConnectionLifecycle} changes it; drivers store it as they are told.
 */
public final class FlowState {
    /** Quiet time is measured from here (max of event time and watermark at each arrival). */
    long lastActivityMs = Long.MIN_VALUE;
    /** When the flow is finalised unless more events come: after the close grace or the idle timeout. */
    long dueMs;
    /** The flow's one timer; MIN_VALUE when none is set. */
    long timerMs = Long.MIN_VALUE;
    /** A FIN or RST was seen: the close grace applies instead of the idle timeout. */
    boolean closing;
    int bufferedCount;
    long overCap;
    /** After finalising: until when stragglers of the finished instance count as late. */
    long tombstoneUntilMs = Long.MIN_VALUE;
    long tombstoneClientIsn = -1;
    /** Long-lived connections: when the current instance began, when to try a cut, segments cut so far. */
    long firstActivityMs = Long.MIN_VALUE;
    long cutDueMs = Long.MIN_VALUE;
    int segments;
    /** After a cut: the path key, and how many buffered events are the restarted handshake. */
    String pathKey;
    int restartEvents;

    /** Nothing buffered and no segment handed on: only a tombstone (or nothing) is left. */
    boolean holdsNothing() {
        return bufferedCount == 0 && segments == 0;
    }

    public boolean isTombstone() {
        return holdsNothing() && tombstoneUntilMs != Long.MIN_VALUE;
    }

    public int bufferedCount() {
        return bufferedCount;
    }

    /** The layout writeTo writes; a new layout is a new format, and readFrom keeps reading the old ones. */
    public static final int FORMAT = 1;

    public void writeTo(DataOutput out) throws IOException {
        out.writeLong(lastActivityMs);
        out.writeLong(dueMs);
        out.writeLong(timerMs);
        out.writeBoolean(closing);
        out.writeInt(bufferedCount);
        out.writeLong(overCap);
        out.writeLong(tombstoneUntilMs);
        out.writeLong(tombstoneClientIsn);
        out.writeLong(firstActivityMs);
        out.writeLong(cutDueMs);
        out.writeInt(segments);
        out.writeBoolean(pathKey != null);
        if (pathKey != null) {
            out.writeUTF(pathKey);
        }
        out.writeInt(restartEvents);
    }

    public static FlowState readFrom(DataInput in) throws IOException {
        FlowState s = new FlowState();
        s.lastActivityMs = in.readLong();
        s.dueMs = in.readLong();
        s.timerMs = in.readLong();
        s.closing = in.readBoolean();
        s.bufferedCount = in.readInt();
        s.overCap = in.readLong();
        s.tombstoneUntilMs = in.readLong();
        s.tombstoneClientIsn = in.readLong();
        s.firstActivityMs = in.readLong();
        s.cutDueMs = in.readLong();
        s.segments = in.readInt();
        s.pathKey = in.readBoolean() ? in.readUTF() : null;
        s.restartEvents = in.readInt();
        return s;
    }
}
