package dev.critpath.streaming;

import dev.critpath.core.event.PacketEvent;

/**
 * One connection instance whose sensors have gone quiet, or one segment of a long-lived one, on
 * its way to the per-path analysis. Public fields and arrays keep it a Flink POJO (no Kryo on the
 * hot path).
 */
public final class FinishedConnection {
    /** The network path it belongs to (see {@link PathKey}). */
    public String pathKey;
    /** Every sensor's packets of this instance or segment; empty for a last segment with nothing new. */
    public PacketEvent[] events;
    /** Events that arrived after the flow's cap and were counted, not kept. */
    public long eventsOverCap;
    /** The flow (Community ID) whose segments these are. */
    public String flow;
    /** 0 for the first (or only) piece of a connection, then 1, 2, ... */
    public int segment;
    /** No more segments follow: the connection's profile can be written. */
    public boolean last;

    public FinishedConnection() {
    }

    FinishedConnection(String pathKey, PacketEvent[] events, long eventsOverCap, String flow, int segment, boolean last) {
        this.pathKey = pathKey;
        this.events = events;
        this.eventsOverCap = eventsOverCap;
        this.flow = flow;
        this.segment = segment;
        this.last = last;
    }

    /** A connection analysed in one piece. */
    boolean whole() {
        return segment == 0 && last;
    }
}
