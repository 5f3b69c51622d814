package dev.critpath.core.lifecycle;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.trace.ConnectionTrace;

/**
 * One connection instance whose sensors have gone quiet, or one segment of a long-lived one, on
 * its way to the per-path analysis.
 *
 * @param pathKey       the network path it belongs to (the life cycle's path function names it)
 * @param events        every sensor's packets of this instance or segment; empty for a last
 *                      segment with nothing new
 * @param eventsOverCap events that arrived after the flow's cap and were counted, not kept
 * @param flow          the flow (Community ID) whose segments these are
 * @param segment       0 for the first (or only) piece of a connection, then 1, 2, ...
 * @param last          no more segments follow: the connection's profile can be written
 * @param assembled     the events as the life cycle assembled them, handed on within one process so
 *                      the analysis does not assemble them again; null for a segment, and after
 *                      serialisation (the stream carries only the events)
 */
public record FinishedConnection(String pathKey, PacketEvent[] events, long eventsOverCap, String flow, int segment, boolean last,
        ConnectionTrace assembled) {

    /** Without the assembled trace: the analysis assembles the events. */
    public FinishedConnection(String pathKey, PacketEvent[] events, long eventsOverCap, String flow, int segment, boolean last) {
        this(pathKey, events, eventsOverCap, flow, segment, last, null);
    }

    /** A connection analysed in one piece. */
    public boolean whole() {
        return segment == 0 && last;
    }
}
