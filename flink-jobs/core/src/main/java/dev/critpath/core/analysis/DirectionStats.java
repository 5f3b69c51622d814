package dev.critpath.core.analysis;

import java.io.Serializable;

/** What the sender simulation counted for one direction of a connection. */
public final class DirectionStats implements Serializable {
    public long packets;
    public long dataPackets;
    /** Unique payload bytes: the union of the sequence ranges seen. */
    public long bytes;
    public long retransmissions;
    public long retransmittedBytes;
    /**
     * Captured packets re-sending sequence space (data, SYN, FIN) an earlier captured packet
     * carried, a super-segment once: what tools that read only the capture count (tcptrace).
     * retransmissions counts as the kernel does: each wire segment, and re-sends of copies no
     * sensor saw.
     */
    public long retransmissionsOfCapturedData;
    /** Re-sends during fast recovery (Linux TCPFastRetrans). */
    public long fastRetransmits;
    /** Retransmission timer expiries (Linux TCPTimeouts counts these plus backoffs). */
    public long timeouts;
    /** Timer expiries again for the same segment without progress. */
    public long backoffs;
    /** Re-sends clocked by ACKs after a timeout (Linux TCPSlowStartRetrans). */
    public long slowStartRetransmits;
    public long tailLossProbes;
    /** Re-sends in smaller packets after the network's "packet too big" (no timer, no loss evidence). */
    public long pathMtuRetransmits;
    /** Tail loss probes whose timing an RTO fits as well: probe or timeout, the timing cannot tell. */
    public long probesOrTimeouts;
    /** Retransmissions whose earlier copy had reached the receiver (ACK loss, spurious timers). */
    public long spuriousRetransmissions;
    /** Duplicate ACKs this direction's sender received. */
    public long dupAcksReceived;
    public long zeroWindowUs;
    public long zeroWindowEpisodes;
    public long rwndLimitedUs;
    /** Most data packets one ACK liberated and the sender sent back to back. */
    public long longestBurst;
    /** Data bytes after the direction's first data packet, each with an instantaneous rate (paper 003's burstiness). */
    public long ratedBytes;
    /** Of those, the bytes sent at ten times the direction's throughput or faster. */
    public long burstBytes;
    /** Packets of the first flight (initial window), which no ACK liberated. */
    public long initialFlight;
    /** Data sent beyond the simulated window; the simulation re-synchronised each time. */
    public long outOfWindow;
    /** Originals that reached the capture after later data (network reordering). */
    public long reordered;
    /** Data released by an ACK although the model's window had allowed it earlier. */
    public long ackClocked;
    /** Data sent beyond the receiver's advertised window. */
    public long rwndViolations;
    public long windowProbes;
    public long keepalives;
    /** Smoothed RTT and minimum RTT the sender would have measured, µs (-1 unknown). */
    public long srttUs = -1;
    public long minRttUs = -1;
    public long maxCwndSegments;

    /** Share of the rated bytes sent in a burst, or null when fewer than two data packets were sent. */
    public Double burstiness() {
        return ratedBytes == 0 ? null : (double) burstBytes / ratedBytes;
    }

    /** One more expiry of the retransmission timer, or of the tail loss probe's. */
    public void countTimer(LossCause c) {
        switch (c) {
            case TIMEOUT -> timeouts++;
            case BACKOFF -> backoffs++;
            case TAIL_LOSS_PROBE -> tailLossProbes++;
            default -> throw new IllegalStateException(c.name());
        }
    }

    /** The counts of this segment of a connection followed by the next one's. */
    DirectionStats followedBy(DirectionStats next) {
        DirectionStats m = new DirectionStats();
        m.packets = packets + next.packets;
        m.dataPackets = dataPackets + next.dataPackets;
        m.bytes = bytes + next.bytes; // segments start with everything acknowledged: their bytes do not overlap
        m.retransmissions = retransmissions + next.retransmissions;
        m.retransmittedBytes = retransmittedBytes + next.retransmittedBytes;
        m.retransmissionsOfCapturedData = retransmissionsOfCapturedData + next.retransmissionsOfCapturedData;
        m.fastRetransmits = fastRetransmits + next.fastRetransmits;
        m.timeouts = timeouts + next.timeouts;
        m.backoffs = backoffs + next.backoffs;
        m.slowStartRetransmits = slowStartRetransmits + next.slowStartRetransmits;
        m.tailLossProbes = tailLossProbes + next.tailLossProbes;
        m.pathMtuRetransmits = pathMtuRetransmits + next.pathMtuRetransmits;
        m.probesOrTimeouts = probesOrTimeouts + next.probesOrTimeouts;
        m.spuriousRetransmissions = spuriousRetransmissions + next.spuriousRetransmissions;
        m.dupAcksReceived = dupAcksReceived + next.dupAcksReceived;
        m.zeroWindowUs = zeroWindowUs + next.zeroWindowUs;
        m.zeroWindowEpisodes = zeroWindowEpisodes + next.zeroWindowEpisodes;
        m.rwndLimitedUs = rwndLimitedUs + next.rwndLimitedUs;
        m.longestBurst = Math.max(longestBurst, next.longestBurst);
        m.ratedBytes = ratedBytes + next.ratedBytes;
        m.burstBytes = burstBytes + next.burstBytes;
        m.initialFlight = initialFlight; // later segments restart after idle; the connection's first flight is this one
        m.outOfWindow = outOfWindow + next.outOfWindow;
        m.reordered = reordered + next.reordered;
        m.ackClocked = ackClocked + next.ackClocked;
        m.rwndViolations = rwndViolations + next.rwndViolations;
        m.windowProbes = windowProbes + next.windowProbes;
        m.keepalives = keepalives + next.keepalives;
        m.srttUs = next.srttUs >= 0 ? next.srttUs : srttUs; // smoothed: the latest
        m.minRttUs = smallerKnown(minRttUs, next.minRttUs);
        m.maxCwndSegments = Math.max(maxCwndSegments, next.maxCwndSegments);
        return m;
    }

    /** The smaller of two values where -1 means unknown. */
    static long smallerKnown(long a, long b) {
        if (a < 0) {
            return b;
        }
        return b < 0 ? a : Math.min(a, b);
    }
}
