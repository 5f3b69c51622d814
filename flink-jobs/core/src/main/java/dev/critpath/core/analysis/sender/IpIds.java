package dev.critpath.core.analysis.sender;

import dev.critpath.core.analysis.align.Tx;
import java.util.List;

/**
 * Packets a sender sent that the one capture never saw, counted from IPv4 identifiers: stacks
 * that number a connection's packets one by one (Linux and BSD for TCP with DF) leave a gap of
 * one per packet lost before the sensor. Stacks with random or global identifiers tell nothing.
 */
final class IpIds {
    /** Share of consecutive captured packets one apart for the counter to be per connection. */
    private static final double SEQUENTIAL = 0.9;

    private IpIds() {
    }

    /**
     * @param sends the sender's captured packets in the order they left
     * @return per transmission index, the packets missing just before it (0 when none or unknown)
     */
    static int[] missingBefore(List<Tx> sends, int transmissions) {
        int[] missing = new int[transmissions];
        int ones = 0;
        int pairs = 0;
        for (int i = 1; i < sends.size(); i++) {
            if (sends.get(i).p.ipId > 0 && sends.get(i - 1).p.ipId > 0) {
                pairs++;
                ones += delta(sends.get(i - 1), sends.get(i)) == 1 ? 1 : 0;
            }
        }
        if (pairs < 4 || ones < SEQUENTIAL * pairs) {
            return missing;
        }
        for (int i = 1; i < sends.size(); i++) {
            int d = delta(sends.get(i - 1), sends.get(i));
            if (sends.get(i).p.ipId > 0 && sends.get(i - 1).p.ipId > 0 && d > 1 && d < 64) {
                missing[sends.get(i).idx()] = d - 1;
            }
        }
        return missing;
    }

    private static int delta(Tx a, Tx b) {
        return (b.p.ipId - a.p.ipId) & 0xffff;
    }
}
