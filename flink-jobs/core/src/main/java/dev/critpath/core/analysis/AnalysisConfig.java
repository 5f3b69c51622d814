package dev.critpath.core.analysis;

import dev.critpath.core.event.SensorRole;
import java.util.Map;

/**
 * Knobs of the analysis. Defaults fit today's Linux senders (initial window 10, Linux minimum RTO
 * 200 ms, PRR fast recovery, cwnd validation and slow start after idle); see docs/method.md.
 */
public final class AnalysisConfig {
    /** Initial congestion window in segments (RFC 6928, Linux default). */
    public final int initialWindow;
    /** Initial slow-start threshold in segments; Linux starts "infinite". */
    public final int initialSsthresh;
    /**
     * Most segments one ACK may add to cwnd in slow start (RFC 3465's L); 0 counts every acked
     * segment as Linux does, 1 is the paper's classic Reno.
     */
    public final int slowStartIncreasePerAck;
    /** Duplicate ACKs that trigger fast retransmit. */
    public final int dupThresh;
    /** The sender's minimum RTO; timer-driven re-sends sooner than this are tail loss probes. */
    public final long rtoMinUs;
    /** A retransmission within this long after an ACK with loss evidence was triggered by it. */
    public final long ackTriggerSlackUs;
    /** Identical copies of a packet within this long are capture or network duplicates. */
    public final long duplicateWindowUs;
    /**
     * Data leaving this soon after an ACK arrival was released by that ACK, whatever the simulated
     * window says: the sender was waiting for it (its real window was smaller than the model's).
     */
    public final long ackClockSlackUs;
    /** Packets leaving closer than this after each other count as one burst. */
    public final long burstGapUs;
    /** Linux-style PRR during fast recovery; false models RFC 5681 window inflation. */
    public final boolean prr;
    /** Grow cwnd only while the sender is cwnd-limited (RFC 7661 / Linux tcp_is_cwnd_limited). */
    public final boolean cwndValidation;
    /** Restart from the initial window after idling longer than an RTO (RFC 5681 4.1). */
    public final boolean slowStartAfterIdle;
    /** A host gap of at least this long before a FIN/RST on a quiet connection counts as idle. */
    public final long idleThresholdUs;
    /** Operator hints where sensors sit, overriding the timing inference. */
    public final Map<String, SensorRole> sensorRoles;

    private AnalysisConfig(Builder b) {
        initialWindow = b.initialWindow;
        initialSsthresh = b.initialSsthresh;
        slowStartIncreasePerAck = b.slowStartIncreasePerAck;
        dupThresh = b.dupThresh;
        rtoMinUs = b.rtoMinUs;
        ackTriggerSlackUs = b.ackTriggerSlackUs;
        duplicateWindowUs = b.duplicateWindowUs;
        ackClockSlackUs = b.ackClockSlackUs;
        burstGapUs = b.burstGapUs;
        prr = b.prr;
        cwndValidation = b.cwndValidation;
        slowStartAfterIdle = b.slowStartAfterIdle;
        idleThresholdUs = b.idleThresholdUs;
        sensorRoles = Map.copyOf(b.sensorRoles);
    }

    public static AnalysisConfig defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.initialWindow = initialWindow;
        b.initialSsthresh = initialSsthresh;
        b.slowStartIncreasePerAck = slowStartIncreasePerAck;
        b.dupThresh = dupThresh;
        b.rtoMinUs = rtoMinUs;
        b.ackTriggerSlackUs = ackTriggerSlackUs;
        b.duplicateWindowUs = duplicateWindowUs;
        b.ackClockSlackUs = ackClockSlackUs;
        b.burstGapUs = burstGapUs;
        b.prr = prr;
        b.cwndValidation = cwndValidation;
        b.slowStartAfterIdle = slowStartAfterIdle;
        b.idleThresholdUs = idleThresholdUs;
        b.sensorRoles = sensorRoles;
        return b;
    }

    public static final class Builder {
        private int initialWindow = 10;
        private int initialSsthresh = Integer.MAX_VALUE;
        private int slowStartIncreasePerAck = 0;
        private int dupThresh = 3;
        private long rtoMinUs = 200_000;
        private long ackTriggerSlackUs = 2_000;
        private long duplicateWindowUs = 50_000;
        private long ackClockSlackUs = 1_000;
        private long burstGapUs = 1_000;
        private boolean prr = true;
        private boolean cwndValidation = true;
        private boolean slowStartAfterIdle = true;
        private long idleThresholdUs = 1_000_000;
        private Map<String, SensorRole> sensorRoles = Map.of();

        public Builder initialWindow(int segments) {
            if (segments < 1) {
                throw new IllegalArgumentException("initial window must be at least 1 segment");
            }
            this.initialWindow = segments;
            return this;
        }

        public Builder initialSsthresh(int segments) {
            if (segments < 2) {
                throw new IllegalArgumentException("ssthresh must be at least 2 segments");
            }
            this.initialSsthresh = segments;
            return this;
        }

        public Builder slowStartIncreasePerAck(int segments) {
            this.slowStartIncreasePerAck = segments;
            return this;
        }

        public Builder dupThresh(int n) {
            this.dupThresh = n;
            return this;
        }

        public Builder rtoMinUs(long us) {
            this.rtoMinUs = us;
            return this;
        }

        public Builder ackTriggerSlackUs(long us) {
            this.ackTriggerSlackUs = us;
            return this;
        }

        public Builder duplicateWindowUs(long us) {
            this.duplicateWindowUs = us;
            return this;
        }

        public Builder ackClockSlackUs(long us) {
            this.ackClockSlackUs = us;
            return this;
        }

        public Builder burstGapUs(long us) {
            this.burstGapUs = us;
            return this;
        }

        public Builder prr(boolean on) {
            this.prr = on;
            return this;
        }

        public Builder cwndValidation(boolean on) {
            this.cwndValidation = on;
            return this;
        }

        public Builder slowStartAfterIdle(boolean on) {
            this.slowStartAfterIdle = on;
            return this;
        }

        public Builder idleThresholdUs(long us) {
            this.idleThresholdUs = us;
            return this;
        }

        public Builder sensorRoles(Map<String, SensorRole> roles) {
            this.sensorRoles = roles;
            return this;
        }

        public AnalysisConfig build() {
            return new AnalysisConfig(this);
        }
    }
}
