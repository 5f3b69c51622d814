package dev.critpath.core.analysis;

/**
 * One arc of the critical path: from a packet event to the event that depended on it. Network
 * arcs split into propagation and queuing; the other kinds carry one category.
 *
 * @param fromUs     time of the earlier event, µs on the client timeline
 * @param kind       network, host or loss (tcpeval's arc types), unknown before a mid-stream start
 * @param category   the category of a host/loss arc; for network arcs the larger part
 * @param times      the arc's microseconds per category
 * @param endpoint   where a host or loss arc happens, or the receiver of a network arc
 * @param direction  of the packet at the arc's end
 * @param flags      tcpdump-style flags of that packet
 * @param seq        its relative sequence number (first data byte = 1)
 * @param len        its payload length
 * @param ack        its relative acknowledgement number (where it sits on the other direction's time-sequence plot)
 * @param txIndex    its transmission's number on the timeline (the `packets` table's tx_index)
 * @param estimated  true when an end of the arc is an estimate (a capture did not see it)
 */
public record PathArc(
        int index,
        long fromUs,
        long toUs,
        Kind kind,
        Category category,
        CategoryTimes times,
        Endpoint endpoint,
        Direction direction,
        String flags,
        long seq,
        int len,
        long ack,
        int txIndex,
        boolean estimated) {

    public long durationUs() {
        return toUs - fromUs;
    }

    /** tcpeval's arc types. */
    public enum Kind {
        NETWORK, HOST, LOSS, UNKNOWN;

        private final String key = name().toLowerCase(java.util.Locale.ROOT);

        public String key() {
            return key;
        }
    }
}
