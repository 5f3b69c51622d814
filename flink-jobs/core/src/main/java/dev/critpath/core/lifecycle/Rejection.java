package dev.critpath.core.lifecycle;

import dev.critpath.core.event.PacketEvent;

/**
 * Input the stream could not use: a dead letter.
 *
 * @param event the event it concerns (for a half-open flow, its first)
 * @param raw   the event as its sensor's JSON record, or null where the reason needs none
 */
public record Rejection(String reason, String detail, PacketEvent event, String raw) {
    /** Arrived after its connection was analysed, or too old for a flow no longer held. */
    public static final String LATE_EVENT = "late_event";
    /** A flow with no payload and no handshake completed (PacketEvent.engagesFlow). */
    public static final String HALF_OPEN = "half_open_connection";
    /** A new connection while the instance held all the flows or events it may. */
    public static final String FLOW_TABLE_FULL = "flow_table_full";
    /** The connection would cost work out of proportion to its packets. */
    public static final String ANALYSIS_BUDGET_EXCEEDED = "analysis_budget_exceeded";
    /** The engine threw on an odd trace. */
    public static final String ANALYSIS_FAILED = "analysis_failed";
}
