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

    /**
     * The latest events, the n-th at {@code n % SCAN_LIMIT}: the arrays grow to SCAN_LIMIT, then
     * the oldest events give way, as no scan reaches them.
     */
    private int[] tx;
    private long[] limit;
    private int count;
    /** The ACKs among the first FLOW_START_EVENTS events that established the connection. */
    private final int[] flowOpeners = new int[FLOW_START_EVENTS];
    private int flowOpenerCount;

    /** @param expectedEvents about how many events there will be (the ACKs the sender takes in) */
    LiberationHistory(int expectedEvents) {
        int capacity = Math.max(1, Math.min(expectedEvents, SCAN_LIMIT));
        tx = new int[capacity];
        limit = new long[capacity];
    }

    /**
     * @param byTx      the transmission (an ACK) that changed the window, or -1 for the sender's own decision
     * @param limitSeq  the highest sequence number the windows allow after it
     * @param opensFlow the ACK that established the connection
     */
    void record(int byTx, long limitSeq, boolean opensFlow) {
        if (count == tx.length && count < SCAN_LIMIT) {
            int capacity = Math.min(count * 2, SCAN_LIMIT);
            tx = Arrays.copyOf(tx, capacity);
            limit = Arrays.copyOf(limit, capacity);
        }
        int at = slot(count);
        tx[at] = byTx;
        limit[at] = limitSeq;
        if (opensFlow && count < FLOW_START_EVENTS) {
            flowOpeners[flowOpenerCount++] = byTx;
        }
        count++;
    }

    /**
     * The earliest event after which the window kept allowing byte {@code end - 1}: scan back
     * while the recorded limit covers it; {@code latest} when the latest event was the first to.
     */
    int liberatorFor(long end, int latest) {
        int j = count - 1;
        int stop = Math.max(0, count - SCAN_LIMIT);
        while (j >= stop && limit[slot(j)] >= end) {
            j--;
        }
        int k = j + 1;
        return k >= count ? latest : tx[slot(k)];
    }

    /** True when this ACK opened the connection's first flight. */
    boolean opensFlow(int liberator) {
        for (int k = 0; k < flowOpenerCount; k++) {
            if (flowOpeners[k] == liberator) {
                return true;
            }
        }
        return false;
    }

    private static int slot(int event) {
        return event % SCAN_LIMIT;
    }
}
