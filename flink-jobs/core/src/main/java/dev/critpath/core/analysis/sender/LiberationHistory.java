package dev.critpath.core.analysis.sender;

import java.util.Arrays;

/**
 * After each ACK (or other window change) the highest sequence number the sender's windows
 * allowed: tcpeval's forward pass asks it which event first let a byte go.
 */
final class LiberationHistory {
    /** Events scanned back at most: long app-limited stretches are cut; the application dependency dominates there anyway. */
    static final int SCAN_LIMIT = 512;
    /** The handshake's ACKs, which open the first flight, are among the first few events. */
    private static final int FLOW_START_EVENTS = 4;

    private int[] tx = new int[64];
    private long[] limit = new long[64];
    private boolean[] flowStart = new boolean[64];
    private int count;

    /**
     * @param byTx      the transmission (an ACK) that changed the window, or -1 for the sender's own decision
     * @param limitSeq  the highest sequence number the windows allow after it
     * @param opensFlow the ACK that established the connection
     */
    void record(int byTx, long limitSeq, boolean opensFlow) {
        if (count == tx.length) {
            int n = count * 2;
            tx = Arrays.copyOf(tx, n);
            limit = Arrays.copyOf(limit, n);
            flowStart = Arrays.copyOf(flowStart, n);
        }
        tx[count] = byTx;
        limit[count] = limitSeq;
        flowStart[count] = opensFlow;
        count++;
    }

    /**
     * The earliest event after which the window kept allowing byte {@code end - 1}: scan back
     * while the recorded limit covers it; {@code latest} when the latest event was the first to.
     */
    int liberatorFor(long end, int latest) {
        int j = count - 1;
        int stop = Math.max(0, count - SCAN_LIMIT);
        while (j >= stop && limit[j] >= end) {
            j--;
        }
        int k = j + 1;
        return k >= count ? latest : tx[k];
    }

    /** True when this ACK opened the connection's first flight. */
    boolean opensFlow(int liberator) {
        for (int k = 0; k < count && k < FLOW_START_EVENTS; k++) {
            if (flowStart[k] && tx[k] == liberator) {
                return true;
            }
        }
        return false;
    }
}
