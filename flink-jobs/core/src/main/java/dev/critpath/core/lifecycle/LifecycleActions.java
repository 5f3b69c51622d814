package dev.critpath.core.lifecycle;

import dev.critpath.core.event.PacketEvent;
import java.util.List;

/**
 * What the {@link ConnectionLifecycle} decided, for its driver to carry out on the current flow:
 * a Flink operator maps each to keyed state, timers and outputs; {@link LifecycleLoop} to maps.
 * Timers are per flow and time, as Flink's are: setting one that is set already sets nothing.
 */
public interface LifecycleActions {
    /** Keep the event in the flow's buffer. */
    void buffer(PacketEvent e);

    /** The flow is at a cap: the event is counted, not kept (metric events_over_cap). */
    void countOverCap(PacketEvent e);

    /** After a cut: the buffer holds these events instead. */
    void replaceBuffer(List<PacketEvent> events);

    void clearBuffer();

    void setTimer(long atMs);

    void deleteTimer(long atMs);

    /** Write the flow's state: a connection held, or the tombstone of one finalised. */
    void store(FlowState state);

    /** Forget the flow: no state, nothing buffered. */
    void clear();

    /** On to the per-path analysis: a whole connection, a segment, or a long-lived one's last. */
    void emit(FinishedConnection connection);

    /** A connection instance was finalised (metric connections_finalised). */
    void finalised();

    /** A long-lived connection's segment was handed on (metric segments_cut). */
    void segmentCut();

    /** A dead letter. */
    void reject(Rejection rejection);
}
