package dev.critpath.core.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** InOrder's sort against the JDK's stable sort, on keys that pack into a long and keys that do not. */
class InOrderTest {
    private record Item(long key, int label) {
    }

    @Test
    void sortsStablyLikeTheJdk() {
        Random rnd = new Random(7);
        for (long spread : new long[] {10, 1_000_000, 1L << 40, Long.MAX_VALUE / 2}) {
            for (int n : new int[] {0, 1, 2, 17, 1000}) {
                List<Item> items = new ArrayList<>();
                for (int i = 0; i < n; i++) { // few distinct keys at the small spread: many ties keep their order
                    items.add(new Item(1_700_000_000_000_000L + Math.floorMod(rnd.nextLong(), spread) - spread / 2, i));
                }
                List<Item> expected = new ArrayList<>(items);
                expected.sort(Comparator.comparingLong(Item::key));
                Item[] array = items.toArray(new Item[0]);
                InOrder.sortBy(array, Item::key);
                assertEquals(expected, List.of(array), "spread " + spread + ", " + n + " items");
            }
        }
    }

    @Test
    void keysFarApartStillSort() {
        Item[] items = {new Item(Long.MAX_VALUE, 0), new Item(Long.MIN_VALUE, 1), new Item(0, 2), new Item(Long.MIN_VALUE, 3)};
        InOrder.sortBy(items, Item::key);
        assertEquals(List.of(new Item(Long.MIN_VALUE, 1), new Item(Long.MIN_VALUE, 3), new Item(0, 2), new Item(Long.MAX_VALUE, 0)), List.of(items));
    }
}
