package dev.critpath.core.analysis;

/** What the sender simulation counted for one direction of a connection. */
public final class DirectionStats {
    public long packets;
    public long dataPackets;
    /** Unique payload bytes: the union of the sequence ranges seen. */
    public long bytes;
    public long retransmissions;
    public long retransmittedBytes;
    /** Re-sends during fast recovery (Linux TCPFastRetrans). */
    public long fastRetransmits;
    /** Retransmission timer expiries (Linux TCPTimeouts counts these plus backoffs). */
    public long timeouts;
    /** Timer expiries again for the same segment without progress. */
    public long backoffs;
    /** Re-sends clocked by ACKs after a timeout (Linux TCPSlowStartRetrans). */
    public long slowStartRetransmits;
    public long tailLossProbes;
    /** Retransmissions whose earlier copy had reached the receiver (ACK loss, spurious timers). */
    public long spuriousRetransmissions;
    /** Duplicate ACKs this direction's sender received. */
    public long dupAcksReceived;
    public long zeroWindowUs;
    public long zeroWindowEpisodes;
    public long rwndLimitedUs;
    /** Most data packets one ACK liberated and the sender sent back to back. */
    public long longestBurst;
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
}
