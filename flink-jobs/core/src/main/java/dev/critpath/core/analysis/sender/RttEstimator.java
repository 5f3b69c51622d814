package dev.critpath.core.analysis.sender;

/** RFC 6298 round-trip estimation from the sender's samples, and Linux's retransmission timeout. */
final class RttEstimator {
    /** RFC 6298's initial RTO, before any sample. */
    static final long INITIAL_RTO_US = 1_000_000;

    private final long rtoMinUs;
    private long srtt = -1;
    private long rttvar;
    private long minRtt = -1;

    RttEstimator(long rtoMinUs) {
        this.rtoMinUs = rtoMinUs;
    }

    /** One round trip measured (Karn's rule is the caller's: never-retransmitted segments only); negative ones are ignored. */
    void sample(long rttUs) {
        if (rttUs < 0) {
            return;
        }
        minRtt = minRtt < 0 ? rttUs : Math.min(minRtt, rttUs);
        if (srtt < 0) {
            srtt = rttUs;
            rttvar = rttUs / 2;
        } else {
            rttvar = (3 * rttvar + Math.abs(srtt - rttUs)) / 4;
            srtt = (7 * srtt + rttUs) / 8;
        }
    }

    /** Linux's RTO: srtt + 4 rttvar, but at least the minimum RTO above srtt. */
    long rto() {
        if (srtt < 0) {
            return INITIAL_RTO_US;
        }
        return srtt + Math.max(4 * rttvar, rtoMinUs);
    }

    /** Smoothed round trip, µs, or -1 before the first sample. */
    long srtt() {
        return srtt;
    }

    /** Smallest round trip seen, µs, or -1 before the first sample. */
    long minRtt() {
        return minRtt;
    }
}
