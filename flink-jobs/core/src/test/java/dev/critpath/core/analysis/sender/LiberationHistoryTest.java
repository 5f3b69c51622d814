package dev.critpath.core.analysis.sender;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LiberationHistoryTest {
    /** ACK #10 opened the window to 3000, #11 to 5000, #12 (a dup) kept 5000, then the timer (-1) shrank it to 2000 and #13 opened 9000. */
    private static LiberationHistory history() {
        LiberationHistory h = new LiberationHistory(4);
        h.record(10, 3000, true);
        h.record(11, 5000, false);
        h.record(12, 5000, false);
        h.record(-1, 2000, false);
        h.record(13, 9000, false);
        return h;
    }

    @ParameterizedTest(name = "byte {0} -> #{1}")
    @CsvSource({
        "1000, 10", // allowed ever since the first ACK, the timer's shrink included
        "2001, 13", // the timer took it back: the opening after it counts
        "9000, 13",
        "9001, 99", // beyond every limit: the latest ACK is named
    })
    void namesTheEventAfterWhichTheWindowKeptAllowingTheByte(long end, int liberator) {
        assertEquals(liberator, history().liberatorFor(end, 99));
    }

    @Test
    void withoutAShrinkTheFirstEventToAllowItStillLiberatesIt() {
        LiberationHistory h = new LiberationHistory(4);
        h.record(10, 3000, true);
        h.record(11, 5000, false);
        h.record(12, 5000, false);
        assertEquals(10, h.liberatorFor(3000, 99));
        assertEquals(11, h.liberatorFor(4000, 99), "a duplicate ACK after it does not take it over");
    }

    @Test
    void knowsTheAckThatOpenedTheFlow() {
        assertTrue(history().opensFlow(10));
        assertFalse(history().opensFlow(11));
    }

    @Test
    void scansBackNoFurtherThanItsLimit() {
        LiberationHistory h = new LiberationHistory(4);
        h.record(1, 1_000_000, true);
        for (int i = 0; i < LiberationHistory.SCAN_LIMIT; i++) {
            h.record(100 + i, 1_000_000, false);
        }
        assertEquals(100, h.liberatorFor(500, 99), "an app-limited stretch is cut, not scanned to its start");
    }
}
