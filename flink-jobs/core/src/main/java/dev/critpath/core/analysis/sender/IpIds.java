package dev.critpath.core.analysis.sender;

import dev.critpath.core.analysis.align.Tx;

/**
 * Packets a sender sent that the one capture never saw, counted from IPv4 identifiers: stacks
 * that number a connection's packets one by one (Linux for TCP with DF) leave a gap of one per
 * packet lost before the sensor. Random or host-wide identifiers tell nothing and are recognised
 * as such.
 */
final class IpIds {
    /** Share of consecutive captured packets exactly one apart for the identifiers to be the connection's own counter. */
    private static final double SEQUENTIAL = 0.9;
    /** Consecutive pairs needed to tell a counter from chance. */
    private static final int MIN_PAIRS = 4;
    /** Packets lost in a row that a gap may stand for; larger jumps are another counter's doing. */
    private static final int MAX_GAP = 64;

    private IpIds() {
    }

    /**
     * @param sends the sender's captured packets in the order they left
     * @return per transmission index, the packets missing just before it; null when the identifiers are not such a counter
     */
    static int[] missingBefore(Tx[] sends, int transmissions) {
        int onesApart = 0;
        int pairs = 0;
        for (int i = 1; i < sends.length; i++) {
            if (sends[i].p.ipId > 0 && sends[i - 1].p.ipId > 0) {
                int d = delta(sends[i - 1], sends[i]);
                pairs++;
                onesApart += d == 1 ? 1 : 0;
            }
        }
        if (pairs < MIN_PAIRS || onesApart < SEQUENTIAL * pairs) {
            return null;
        }
        int[] missing = new int[transmissions];
        for (int i = 1; i < sends.length; i++) {
            int d = delta(sends[i - 1], sends[i]);
            if (sends[i].p.ipId > 0 && sends[i - 1].p.ipId > 0 && d > 1 && d < MAX_GAP) {
                missing[sends[i].idx()] = d - 1;
            }
        }
        return missing;
    }

    private static int delta(Tx a, Tx b) {
        return (b.p.ipId - a.p.ipId) & 0xffff;
    }
}
