package dev.critpath.core.analysis.sender;

/**
 * How many times a sender's retransmission timer fired before a copy that the one capture saw,
 * when the earlier copies never reached it: the wait from when the bytes could first leave to the
 * copy that arrived, against the timer's backed-off sequence (RTO, then 2 RTO, 4 RTO, ...). Only a
 * wait that fits the sequence within the estimate's error counts; anything else is not a timer.
 */
final class HiddenTimers {
    /** The RTO estimate's error allowed: its rttvar term and Linux's jiffy granularity. */
    private static final double FIT = 0.35;
    private static final int MAX_EXPIRIES = 8;

    private HiddenTimers() {
    }

    /** Timer expiries that explain a wait of {@code waitUs} with this RTO; 0 when none fits. */
    static int expiries(long waitUs, long rtoUs) {
        if (rtoUs <= 0 || waitUs <= 0) {
            return 0;
        }
        for (int k = 1; k <= MAX_EXPIRIES; k++) {
            double expected = rtoUs * ((double) (1L << k) - 1);
            if (Math.abs(waitUs - expected) <= FIT * rtoUs * (1L << (k - 1))) {
                return k;
            }
        }
        return 0;
    }

    /**
     * A wait that fits Linux's probe timeout: 2 SRTT, or 1.5 SRTT + its 200 ms delayed-ACK
     * allowance when one segment is out.
     */
    static boolean probeFits(long waitUs, long srttUs) {
        if (srttUs <= 0) {
            return false;
        }
        long twoSrtt = Math.max(2 * srttUs, 10_000);
        long oneOut = srttUs + srttUs / 2 + 200_000;
        return Math.abs(waitUs - twoSrtt) <= FIT * twoSrtt || Math.abs(waitUs - oneOut) <= FIT * oneOut;
    }
}
