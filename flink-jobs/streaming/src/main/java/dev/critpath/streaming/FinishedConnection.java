package dev.critpath.streaming;

import dev.critpath.core.event.PacketEvent;

/**
 * One connection instance whose sensors have gone quiet, on its way to the per-path analysis.
 * Public fields and arrays keep it a Flink POJO (no Kryo on the hot path).
 */
public final class FinishedConnection {
    /** The network path it belongs to (see {@link PathKey}). */
    public String pathKey;
    /** Every sensor's packets of this instance. */
    public PacketEvent[] events;
    /** Events that arrived after the flow's cap and were counted, not kept. */
    public long eventsOverCap;

    public FinishedConnection() {
    }

    FinishedConnection(String pathKey, PacketEvent[] events, long eventsOverCap) {
        this.pathKey = pathKey;
        this.events = events;
        this.eventsOverCap = eventsOverCap;
    }
}
