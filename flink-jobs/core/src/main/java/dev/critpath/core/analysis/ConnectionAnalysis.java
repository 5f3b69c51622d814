package dev.critpath.core.analysis;

import java.util.LinkedHashMap;
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

    /** Rows of the warehouse's `packets` table, by name. */
    public List<Map<String, Object>> packetColumns() {
        return packets.sightings().stream().map(s -> s.columns(profile.connUid, segmentStartUs())).toList();
    }

    /** Rows of the warehouse's `packets` table, in the order of {@link PacketSighting#COLUMNS}. */
    public List<Object[]> packetValues() {
        return packets.sightings().stream().map(s -> s.values(profile.connUid, segmentStartUs())).toList();
    }

    private long segmentStartUs() {
        return packets.segmentStartUs() >= 0 ? packets.segmentStartUs() : profile.startUs;
    }

    /** Rows of the warehouse's `critical_path` table. */
    public List<Map<String, Object>> arcColumns() {
        return arcs.stream().map(a -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("conn_uid", profile.connUid);
            m.put("arc_index", a.index());
            m.put("from_us", a.fromUs());
            m.put("to_us", a.toUs());
            m.put("duration_us", a.durationUs());
            m.put("arc_type", a.kind().key());
            m.put("category", a.category().key());
            m.put("propagation_us", a.times().get(Category.PROPAGATION));
            m.put("queuing_us", a.times().get(Category.QUEUING));
            m.put("endpoint", a.endpoint().key());
            m.put("direction", a.direction().key());
            m.put("flags", a.flags());
            m.put("seq", a.seq());
            m.put("len", a.len());
            m.put("ack", a.ack());
            m.put("tx_index", a.txIndex());
            m.put("estimated", a.estimated());
            return m;
        }).toList();
    }
}
