package dev.critpath.core.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** LongSet answers as the JDK's set of boxed longs does, through growth and on its reserved value. */
class LongSetTest {
    @Test
    void agreesWithHashSet() {
        Random rnd = new Random(11);
        LongSet set = new LongSet();
        Set<Long> expected = new HashSet<>();
        long[] special = {Long.MIN_VALUE, Long.MAX_VALUE, 0, -1, 1L << 32};
        for (int i = 0; i < 20_000; i++) {
            long v = i % 97 == 0 ? special[i % special.length] : rnd.nextInt(5_000) * 1460L; // repeats, as sequence numbers do
            assertEquals(expected.add(v), set.add(v), "add " + v);
            long probe = rnd.nextInt(6_000) * 1460L;
            assertEquals(expected.contains(probe), set.contains(probe), "contains " + probe);
        }
        for (long v : special) {
            assertEquals(expected.contains(v), set.contains(v), "contains " + v);
        }
    }
}
