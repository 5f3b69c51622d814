package dev.critpath.core.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.PriorityQueue;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The heap gives entries of the same key in the order java.util.PriorityQueue gives them. */
class MinHeapTest {
    @Test
    void takesTiesAsPriorityQueueDoes() {
        Random rnd = new Random(11);
        for (int round = 0; round < 200; round++) {
            MinHeap heap = new MinHeap();
            PriorityQueue<long[]> expected = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));
            long label = 0;
            for (int step = 0; step < 300; step++) {
                if (expected.isEmpty() || rnd.nextInt(3) > 0) { // few distinct keys: many ties
                    long key = rnd.nextInt(8);
                    heap.add(key, label);
                    expected.add(new long[] {key, label++});
                } else {
                    long[] e = expected.poll();
                    assertEquals(e[0], heap.firstKey());
                    assertEquals(e[1], heap.firstValue(), "round " + round + ", step " + step);
                    heap.removeFirst();
                }
                assertEquals(expected.isEmpty(), heap.isEmpty());
            }
        }
    }
}
