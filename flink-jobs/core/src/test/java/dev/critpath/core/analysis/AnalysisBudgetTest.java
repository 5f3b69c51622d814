package dev.critpath.core.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.testing.HandTrace;
import org.junit.jupiter.api.Test;

/**
 * Valid packets that would make the analysis do work out of all proportion to their number are
 * refused before the work is allocated; real offload aggregates are still split and analysed.
 */
class AnalysisBudgetTest {
    private static final int MAX_LEN = 1 << 20; // the event schema's largest payload

    /** Handshake with the given MSS, then the server sends the given aggregates back to back. */
    private static HandTrace serverSends(int mss, int aggregates, int bytesEach) {
        HandTrace h = new HandTrace(5, 5).mss(mss);
        h.c(0).syn();
        h.s(5).syn();
        h.c(10).ack(1);
        h.c(10.1).data(100);
        for (int i = 0; i < aggregates; i++) {
            h.s(16 + i * 0.01).data(bytesEach);
        }
        h.c(30).fin();
        h.s(35).fin();
        h.c(40);
        return h;
    }

    @Test
    void anMssOfOneByteWithMegabyteSegmentsIsRefusedWithItsCounts() {
        HandTrace h = serverSends(1, 20, MAX_LEN);
        long start = System.nanoTime();
        AnalysisBudgetExceededException e = assertThrows(AnalysisBudgetExceededException.class,
                () -> Analyzer.defaults().analyze(h.bothSensors()));
        assertTrue(e.pieces() > 20L * MAX_LEN, e.getMessage()); // every byte a piece
        assertTrue(e.budget() < 100_000, e.getMessage());
        // today's budget check costs a pass over the packets; splitting them would take minutes and gigabytes
        assertTrue(System.nanoTime() - start < 5_000_000_000L, "refused before the work, not after");
    }

    @Test
    void realOffloadAggregatesAreStillSplitAndAnalysed() {
        // 64 KB TSO aggregates at MSS 1460: 45 pieces each, as a server-side capture shows them
        ConnectionAnalysis r = Analyzer.defaults().analyze(serverSends(1460, 40, 65_160).serverSensorOnly());
        assertEquals(40, r.profile().quality.superSegments());
        assertEquals(40L * 65_160, r.profile().s2c.bytes);
    }
}
