package dev.critpath.core.analysis.sender;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.critpath.core.analysis.DirectionStats;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BurstsTest {
    /** Sends as liberator@µs (ACK #1 opened the flow), a 1 ms gap limit; then the first flight and the longest burst after it. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
        "the first flight;                     1@0 1@10 1@20;                 3; 0",
        "a later burst;                        1@0 5@100 5@110 5@120 5@130;   1; 4",
        "a pause ends a burst;                 5@0 5@10 5@2000 5@2010;        0; 2",
        "another ACK starts another;           5@0 5@10 6@20 6@30 6@40;       0; 3",
        "unliberated data counts as a flight;  -1@0 -1@10;                    2; 0",
    })
    void countsRunsOfSegmentsOneAckLetGo(String what, String sends, long initialFlight, long longestBurst) {
        DirectionStats stats = new DirectionStats();
        Bursts bursts = new Bursts(stats, 1_000);
        for (String send : sends.trim().split(" ")) {
            int by = Integer.parseInt(send.split("@")[0]);
            bursts.sent(by, Long.parseLong(send.split("@")[1]), by < 0 || by == 1);
        }
        assertEquals(initialFlight, stats.initialFlight, "first flight");
        assertEquals(longestBurst, stats.longestBurst, "longest burst");
    }
}
