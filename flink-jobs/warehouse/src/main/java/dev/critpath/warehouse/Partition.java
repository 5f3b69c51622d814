package dev.critpath.warehouse;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;

/** Hive-style partition of a row by its connection's start time in UTC: dt=YYYY-MM-DD/hour=HH. */
public record Partition(String dt, int hour) {
    public static Partition of(long startUs) {
        ZonedDateTime t = Instant.ofEpochMilli(Math.floorDiv(startUs, 1000)).atZone(ZoneOffset.UTC);
        return new Partition(t.toLocalDate().toString(), t.getHour());
    }

    /** Relative directory, e.g. "dt=2026-11-22/hour=03". */
    public String path() {
        return String.format(java.util.Locale.ROOT, "dt=%s/hour=%02d", dt, hour);
    }
}
