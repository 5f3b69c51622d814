package dev.critpath.streaming;

import dev.critpath.core.lifecycle.Rejection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Input the job could not use, with the reason: a row of the `dead_letters` table.
 *
 * @param tsUs   when: the Kafka record's timestamp, or the event's own for late events
 * @param reason a stable key (the parser's error code, late_event, half_open_connection, ...)
 * @param source where it came from: topic-partition@offset, or the connection's id
 * @param raw    the offending input, cut to {@link #MAX_RAW} characters
 */
public record DeadLetter(long tsUs, String reason, String detail, String sensor, String source, String raw) {
    public static final int MAX_RAW = 4096;

    /** What the core's life cycle or path analysis could not use, with the event it concerns. */
    static DeadLetter of(Rejection r) {
        return new DeadLetter(r.event().tsUs(), r.reason(), r.detail(), r.event().sensor(), r.event().communityId(), r.raw());
    }

    /** The row of the dead_letters table. */
    public Map<String, Object> columns() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ts_us", tsUs);
        m.put("reason", reason);
        m.put("detail", detail);
        m.put("sensor", sensor);
        m.put("source", source);
        m.put("raw", raw);
        return m;
    }

    public static String cut(String raw) {
        return raw == null || raw.length() <= MAX_RAW ? raw : raw.substring(0, MAX_RAW);
    }
}
