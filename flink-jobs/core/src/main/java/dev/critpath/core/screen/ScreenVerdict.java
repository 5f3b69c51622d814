package dev.critpath.core.screen;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The screen's word on one connection: boring or not, which rules failed (and what each found) and why, the counts
 * behind every rule, and a score to rank the interesting ones by (time on the critical path not
 * explained by propagation or idling, µs).
 */
public record ScreenVerdict(String connUid, boolean boring, List<String> failedRules, List<String> findings, Map<String, Long> counts,
                            long scoreUs, String explanation) {

    /** Row of the warehouse's `screening` table. */
    public Map<String, Object> columns() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("conn_uid", connUid);
        m.put("boring", boring);
        m.put("failed_rules", List.copyOf(failedRules));
        m.put("counts", new LinkedHashMap<>(counts));
        m.put("score_us", scoreUs);
        m.put("explanation", explanation);
        return m;
    }
}
