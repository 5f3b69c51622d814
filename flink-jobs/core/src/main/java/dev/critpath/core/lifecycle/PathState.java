package dev.critpath.core.lifecycle;

import dev.critpath.core.analysis.CaptureMode;
import dev.critpath.core.analysis.ClockHint;
import dev.critpath.core.analysis.ConnectionProfile;
import dev.critpath.core.analysis.PathPrior;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/** What a network path's connections showed so far, for the next connection's analysis. */
public final class PathState {
    /** The layout writeTo writes; a new layout is a new format, and readFrom keeps reading the old ones. */
    public static final int FORMAT = 1;

    /** The smallest one-way delays any connection showed, µs; -1 while unknown. */
    private long owdC2sUs = -1;
    private long owdS2cUs = -1;
    /** The sensor pair's latest reliable clock offset and its uncertainty, µs. */
    private boolean offsetKnown;
    private long offsetUs;
    private long offsetUncertaintyUs;

    public void learn(ConnectionProfile p) {
        owdC2sUs = smaller(owdC2sUs, p.timing.minOwdC2sUs());
        owdS2cUs = smaller(owdS2cUs, p.timing.minOwdS2cUs());
        if (p.mode == CaptureMode.TWO_POINT && p.timing.clockOffsetReliable()) { // the latest: clocks drift
            offsetKnown = true;
            offsetUs = p.timing.clockOffsetUs();
            offsetUncertaintyUs = p.timing.clockOffsetUncertaintyUs();
        }
    }

    public PathPrior prior() {
        return new PathPrior(owdC2sUs, owdS2cUs, offsetKnown ? new ClockHint(offsetUs, offsetUncertaintyUs) : null);
    }

    public long owdC2sUs() {
        return owdC2sUs;
    }

    public long owdS2cUs() {
        return owdS2cUs;
    }

    public void writeTo(DataOutput out) throws IOException {
        out.writeLong(owdC2sUs);
        out.writeLong(owdS2cUs);
        out.writeBoolean(offsetKnown);
        out.writeLong(offsetUs);
        out.writeLong(offsetUncertaintyUs);
    }

    public static PathState readFrom(DataInput in) throws IOException {
        PathState s = new PathState();
        s.owdC2sUs = in.readLong();
        s.owdS2cUs = in.readLong();
        s.offsetKnown = in.readBoolean();
        s.offsetUs = in.readLong();
        s.offsetUncertaintyUs = in.readLong();
        return s;
    }

    private static long smaller(long known, long seen) {
        if (seen < 0) {
            return known;
        }
        return known < 0 ? seen : Math.min(known, seen);
    }
}
