package dev.critpath.core.testing;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** For tests that hold a list of column or field names to its source: what sets the two apart. */
public final class NameDrift {
    private NameDrift() {
    }

    /**
     * Each name one list has and the other lacks, saying where; when both hold the same names but
     * in another order, that. Empty when the lists are equal.
     */
    public static List<String> between(String sourceWhere, List<String> source, String copyWhere, List<String> copy) {
        List<String> out = new ArrayList<>();
        Set<String> missing = new LinkedHashSet<>(source);
        copy.forEach(missing::remove);
        Set<String> extra = new LinkedHashSet<>(copy);
        source.forEach(extra::remove);
        missing.forEach(n -> out.add(n + " is in " + sourceWhere + " but not in " + copyWhere));
        extra.forEach(n -> out.add(n + " is in " + copyWhere + " but not in " + sourceWhere));
        if (out.isEmpty() && !source.equals(copy)) {
            out.add("order differs: " + sourceWhere + " " + source + ", " + copyWhere + " " + copy);
        }
        return out;
    }
}
