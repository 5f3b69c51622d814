package dev.critpath.core.analysis;

import java.util.List;
import java.util.Map;

/**
 * What the analysis says about one connection: where its time went, its exchanges, the critical
 * path itself, and its packets as marked (made when asked for).
 */
public record ConnectionAnalysis(ConnectionProfile profile, List<ExchangeProfile> exchanges, List<PathArc> arcs, ConnectionPackets packets) {

    /** The same analysis keeping these packets. */
    public ConnectionAnalysis withPackets(ConnectionPackets kept) {
        return new ConnectionAnalysis(profile, exchanges, arcs, kept);
    }

    /** Rows of the warehouse's `packets` table, in the order of {@link PacketSighting#COLUMNS}. */
    public List<Object[]> packetValues() {
        return packets.sightings().stream().map(s -> s.values(profile.connUid, segmentStartUs())).toList();
    }

    private long segmentStartUs() {
        return packets.segmentStartUs() >= 0 ? packets.segmentStartUs() : profile.startUs;
    }

    /** The warehouse's `critical_path` table's columns, in its schema's order. */
    public static final List<String> ARC_COLUMNS = List.of("conn_uid", "arc_index", "from_us", "to_us", "duration_us", "arc_type", "category",
            "propagation_us", "queuing_us", "endpoint", "direction", "flags", "seq", "len", "ack", "tx_index", "estimated");

    /** Rows of the warehouse's `critical_path` table, by name. */
    public List<Map<String, Object>> arcColumns() {
        return arcValues().stream().map(values -> Columns.named(ARC_COLUMNS, values)).toList();
    }

    /** Rows of the warehouse's `critical_path` table, in the order of {@link #ARC_COLUMNS}. */
    public List<Object[]> arcValues() {
        return arcs.stream().map(a -> new Object[] {profile.connUid, a.index(), a.fromUs(), a.toUs(), a.durationUs(), a.kind().key(),
            a.category().key(), a.times().get(Category.PROPAGATION), a.times().get(Category.QUEUING), a.endpoint().key(),
            a.direction().key(), a.flags(), a.seq(), a.len(), a.ack(), a.txIndex(), a.estimated()}).toList();
    }
}
