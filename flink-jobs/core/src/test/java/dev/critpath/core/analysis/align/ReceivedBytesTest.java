package dev.critpath.core.analysis.align;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.BitSet;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The ranges held against a bit per byte, through arrivals in and out of order and acknowledgements. */
class ReceivedBytesTest {
    @Test
    void holdsWhatABitPerByteHolds() {
        Random rnd = new Random(7);
        for (int round = 0; round < 2_000; round++) {
            ReceivedBytes got = new ReceivedBytes();
            BitSet held = new BitSet(); // the first range or acknowledgement holds everything below it
            boolean started = false;
            for (int step = 0; step < 60; step++) {
                int seq = 100 + rnd.nextInt(round % 2 == 0 ? 100 : 1_000);
                if (rnd.nextInt(6) == 0) {
                    got.acknowledged(seq);
                    held.set(0, seq);
                } else {
                    int end = seq + 1 + rnd.nextInt(20);
                    if (!started) {
                        held.set(0, seq);
                    }
                    assertEquals(held.nextClearBit(seq) < end, got.add(seq, end), "new bytes in " + seq + ":" + end);
                    held.set(seq, end);
                }
                started = true;
                assertEquals(held.nextClearBit(0), got.rcvNxt());
            }
        }
    }
}
