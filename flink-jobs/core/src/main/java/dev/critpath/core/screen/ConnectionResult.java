package dev.critpath.core.screen;

import dev.critpath.core.analysis.ConnectionAnalysis;
import dev.critpath.core.analysis.ConnectionProfile;
import dev.critpath.core.analysis.ExchangeProfile;
import dev.critpath.core.analysis.PathArc;
import java.util.List;
import java.util.Map;

/** Everything critpath says about one connection: the analysis, then the screen's verdict on it. */
public record ConnectionResult(ConnectionAnalysis analysis, ScreenVerdict verdict) {

    public ConnectionProfile profile() {
        return analysis.profile();
    }

    public List<ExchangeProfile> exchanges() {
        return analysis.exchanges();
    }

    public List<PathArc> arcs() {
        return analysis.arcs();
    }

    /** Rows of the warehouse's `critical_path` table. */
    public List<Map<String, Object>> arcColumns() {
        return analysis.arcColumns();
    }

    /** The same rows as values in the order of ConnectionAnalysis.ARC_COLUMNS. */
    public List<Object[]> arcValues() {
        return analysis.arcValues();
    }

    /** Rows of the warehouse's `packets` table (those the screen kept) as values in the order of PacketSighting.COLUMNS. */
    public List<Object[]> packetValues() {
        return analysis.packetValues();
    }

    /** Row of the warehouse's `profiles` table: the profile with the verdict's summary. */
    public Map<String, Object> profileColumns() {
        Map<String, Object> m = profile().columns();
        m.put("boring", verdict.boring());
        m.put("failed_rules", String.join(",", verdict.failedRules()));
        return m;
    }
}
