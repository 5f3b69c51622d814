package dev.critpath.core.analysis.sender;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ScoreboardTest {
    /** Ten 1000-byte segments out, bytes 1 to 10001; then the steps, then what RFC 6675's pipe and the ACK say. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
        "all in flight;                         '';                               10; -1",
        "SACKed segments left the network;      sack:3001-6001;                   7;  -1",
        "a block holding a segment's start;     sack:3001-5969;                   7;  -1",
        "a cumulative ACK takes them off;       ack:3001;                         7;  3",
        "SACKed before, not counted again;      sack:3001-6001 ack:6001;          4;  3",
        "a timeout: all not SACKed lost;        sack:5001-6001 lost;              0;  -1",
        "the re-sent first one is back;         lost resend:1;                    1;  -1",
        "a SACK clears a loss mark;             lost sack:1-2001;                 0;  -1",
        "without SACK dup ACKs stand for them;  dup dup dup;                      7;  -1",
        "but never for all that are out;        ack:9001 dup dup dup;             1;  9",
        "the end of a recovery forgets them;    dup dup ack:2001 clear;           8;  2",
    })
    void pipeCountsWhatIsInFlight(String what, String steps, long pipe, long lastAcked) {
        Scoreboard b = new Scoreboard();
        for (int i = 0; i < 10; i++) {
            b.add(1 + 1000L * i, 1001 + 1000L * i, 1, i, i);
        }
        long acked = -1;
        for (String step : steps.trim().isEmpty() ? new String[0] : steps.trim().split(" ")) {
            String[] kv = step.split(":");
            switch (kv[0]) {
                case "sack" -> {
                    String[] r = kv[1].split("-");
                    b.sack(new long[] {Long.parseLong(r[0]), Long.parseLong(r[1])});
                }
                case "ack" -> acked = b.acknowledge(Long.parseLong(kv[1]));
                case "lost" -> b.markAllLost();
                case "resend" -> b.resent(b.at(Long.parseLong(kv[1])));
                case "dup" -> b.duplicateAck();
                case "clear" -> b.clearRenoSacked();
                default -> throw new IllegalArgumentException(step);
            }
        }
        assertEquals(pipe, b.pipe(), "pipe");
        assertEquals(lastAcked, acked, "segments newly acknowledged by the last ACK");
    }

    /** Linux's tcp_remove_reno_sacks: of the segments a cumulative ACK covers, one filled the hole, the rest were those duplicates stood for. */
    @Test
    void withoutSackAPartialAckDeliversTheHoleAndEatsTheDuplicates() {
        Scoreboard b = new Scoreboard();
        for (int i = 0; i < 10; i++) {
            b.add(1 + 1000L * i, 1001 + 1000L * i, 1, i, i);
        }
        b.duplicateAck();
        b.duplicateAck();
        b.duplicateAck();
        assertEquals(1, b.renoAcknowledged(b.acknowledge(3001)), "the hole; the other two were segments the duplicates counted");
        assertEquals(6, b.pipe(), "7 out, one duplicate still standing for a segment above");
        assertEquals(2, b.renoAcknowledged(b.acknowledge(6001)), "three, one of them the last duplicate's");
        assertEquals(4, b.pipe());
        assertEquals(3, b.renoAcknowledged(b.acknowledge(9001)), "no duplicates left: all delivered now");
    }

    @ParameterizedTest(name = "byte {0}")
    @CsvSource({"1, 0", "1000, 0", "1001, 1", "10000, 9"})
    void findsTheSegmentHoldingAByte(long seq, int tx) {
        Scoreboard b = new Scoreboard();
        for (int i = 0; i < 10; i++) {
            b.add(1 + 1000L * i, 1001 + 1000L * i, 1, i, i);
        }
        assertEquals(tx, b.at(seq).lastTx);
        b.acknowledge(5001);
        assertEquals(4, b.newestAcked().lastTx, "the newest segment the ACK covered, for the RTT sample");
        assertNull(b.at(1), "acknowledged: gone");
    }
}
