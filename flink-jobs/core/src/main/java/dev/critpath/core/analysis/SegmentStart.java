package dev.critpath.core.analysis;

import java.io.Serializable;

/**
 * Where a segment of a long-lived connection begins: the end of the segment before, µs on the
 * client timeline, the connection's uid (a restarted handshake would name it anew) and the arc
 * numbers already used.
 */
public record SegmentStart(long fromUs, String connUid, int arcIndex) implements Serializable {
    /** A connection analysed whole. */
    public static final SegmentStart WHOLE = new SegmentStart(Long.MIN_VALUE, null, 0);
}
