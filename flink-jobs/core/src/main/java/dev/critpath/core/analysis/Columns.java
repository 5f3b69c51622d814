package dev.critpath.core.analysis;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A row given as values in its columns' order (how the tables with a row per packet or arc are written), by name. */
public final class Columns {
    private Columns() {
    }

    /** The values under their columns' names, in order. */
    public static Map<String, Object> named(List<String> columns, Object[] values) {
        Map<String, Object> m = new LinkedHashMap<>(columns.size() * 2); // never resized
        for (int i = 0; i < values.length; i++) {
            m.put(columns.get(i), values[i]);
        }
        return m;
    }
}
