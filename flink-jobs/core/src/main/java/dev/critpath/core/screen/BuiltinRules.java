package dev.critpath.core.screen;

import dev.critpath.core.analysis.ConnectionProfile;
import java.util.LinkedHashMap;
import java.util.Map;

/** The default rules: paper 003's definition of a boring trace, made countable. */
final class BuiltinRules {
    private BuiltinRules() {
    }

    /** µs as "12.3 ms", rounded half up; String.format costs more than the rest of a verdict. */
    static String ms(long us) {
        long tenths = Math.floorDiv(us + 50, 100);
        return (tenths < 0 && tenths > -10 ? "-" : "") + tenths / 10 + "." + Math.abs(tenths % 10) + " ms";
    }

    /** No segment was sent twice. */
    static final class NoRetransmission implements ScreenRule {
        @Override
        public String name() {
            return "no_retransmission";
        }

        @Override
        public RuleOutcome check(ConnectionProfile p) {
            Map<String, Long> c = new LinkedHashMap<>();
            long probes = p.c2s.tailLossProbes + p.s2c.tailLossProbes;
            c.put("retransmissions", p.retransmissions());
            c.put("fast_retransmits", p.fastRetransmits());
            c.put("timeouts", p.timeouts());
            c.put("backoffs", p.backoffs());
            c.put("tail_loss_probes", probes);
            if (p.retransmissions() == 0) {
                return RuleOutcome.pass(c);
            }
            return RuleOutcome.fail(c, p.retransmissions() + " retransmission" + (p.retransmissions() == 1 ? "" : "s")
                    + " (" + p.fastRetransmits() + " fast, " + p.timeouts() + " timeout, " + p.backoffs() + " backoff, "
                    + probes + " tail probe), costing " + ms(p.times.loss()) + " on the critical path");
        }
    }

    /** The sender never waited for the receiver's window. */
    static final class NeverRwndLimited implements ScreenRule {
        private final long toleranceUs;

        NeverRwndLimited(long toleranceUs) {
            this.toleranceUs = toleranceUs;
        }

        @Override
        public String name() {
            return "never_rwnd_limited";
        }

        @Override
        public RuleOutcome check(ConnectionProfile p) {
            Map<String, Long> c = new LinkedHashMap<>();
            long limited = p.c2s.rwndLimitedUs + p.s2c.rwndLimitedUs;
            long zero = p.c2s.zeroWindowUs + p.s2c.zeroWindowUs;
            c.put("rwnd_limited_us", limited);
            c.put("zero_window_us", zero);
            c.put("zero_window_episodes", p.c2s.zeroWindowEpisodes + p.s2c.zeroWindowEpisodes);
            if (limited <= toleranceUs && zero == 0) {
                return RuleOutcome.pass(c);
            }
            return RuleOutcome.fail(c, "receive window limited for " + ms(limited)
                    + (zero > 0 ? ", closed for " + ms(zero) + " in " + c.get("zero_window_episodes") + " zero-window episode(s)" : ""));
        }
    }

    /** No retransmission timer fired. */
    static final class NoTimeout implements ScreenRule {
        @Override
        public String name() {
            return "no_timeout";
        }

        @Override
        public RuleOutcome check(ConnectionProfile p) {
            Map<String, Long> c = new LinkedHashMap<>();
            c.put("timeouts", p.timeouts());
            c.put("backoffs", p.backoffs());
            if (p.timeouts() + p.backoffs() == 0) {
                return RuleOutcome.pass(c);
            }
            return RuleOutcome.fail(c, p.timeouts() + " retransmission timeout(s)" + (p.backoffs() > 0 ? " and " + p.backoffs() + " backed-off timeout(s)" : "")
                    + ", " + ms(p.times.get(dev.critpath.core.analysis.Category.LOSS_TIMEOUT) + p.times.get(dev.critpath.core.analysis.Category.LOSS_BACKOFF))
                    + " waiting on timers");
        }
    }

    /** The server never held the critical path longer than a threshold in one go. */
    static final class NoServerStall implements ScreenRule {
        private final long thresholdUs;

        NoServerStall(long thresholdUs) {
            this.thresholdUs = thresholdUs;
        }

        @Override
        public String name() {
            return "no_server_stall";
        }

        @Override
        public RuleOutcome check(ConnectionProfile p) {
            Map<String, Long> c = new LinkedHashMap<>();
            c.put("max_server_arc_us", p.path.maxServerArcUs());
            c.put("threshold_us", thresholdUs);
            if (p.path.maxServerArcUs() <= thresholdUs) {
                return RuleOutcome.pass(c);
            }
            return RuleOutcome.fail(c, "server stalled " + ms(p.path.maxServerArcUs()) + " in one go (threshold " + ms(thresholdUs) + ")");
        }
    }

    /** No ACK released a long back-to-back burst. */
    static final class NoBurst implements ScreenRule {
        private final long minBurst;

        NoBurst(long minBurst) {
            this.minBurst = minBurst;
        }

        @Override
        public String name() {
            return "no_burst";
        }

        @Override
        public RuleOutcome check(ConnectionProfile p) {
            Map<String, Long> c = new LinkedHashMap<>();
            long longest = Math.max(p.c2s.longestBurst, p.s2c.longestBurst);
            c.put("longest_burst", longest);
            c.put("min_burst", minBurst);
            if (longest < minBurst) {
                return RuleOutcome.pass(c);
            }
            return RuleOutcome.fail(c, "one ACK released " + longest + " back-to-back packets (limit " + (minBurst - 1) + ")");
        }
    }

    /** Every packet the sensors saw was analysed: none was cut by the streaming job's per-connection cap. */
    static final class CompleteTrace implements ScreenRule {
        @Override
        public String name() {
            return "complete_trace";
        }

        @Override
        public RuleOutcome check(ConnectionProfile p) {
            Map<String, Long> c = new LinkedHashMap<>();
            c.put("events_over_cap", p.quality.eventsOverCap());
            if (p.quality.eventsOverCap() == 0) {
                return RuleOutcome.pass(c);
            }
            return RuleOutcome.fail(c, p.quality.eventsOverCap() + " packet events beyond the per-connection cap were counted but not analysed;"
                    + " the profile covers the packets before the cap");
        }
    }
}
