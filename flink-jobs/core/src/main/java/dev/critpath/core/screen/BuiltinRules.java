package dev.critpath.core.screen;

import dev.critpath.core.analysis.CaptureMode;
import dev.critpath.core.analysis.ConnectionProfile;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;

/** The default rules: paper 003's definition of a boring trace, made countable. */
final class BuiltinRules {
    /** Each built-in rule by name, made from the screen's settings as a plugin's would be. */
    static final Map<String, Function<Properties, ScreenRule>> REGISTERED = registered();

    private BuiltinRules() {
    }

    private static Map<String, Function<Properties, ScreenRule>> registered() {
        Map<String, Function<Properties, ScreenRule>> m = new LinkedHashMap<>();
        m.put("no_retransmission", p -> new NoRetransmission());
        m.put("never_rwnd_limited", p -> new NeverRwndLimited(msSetting(p, "never_rwnd_limited.tolerance_ms", 0)));
        m.put("no_timeout", p -> new NoTimeout());
        m.put("no_server_stall", p -> new NoServerStall(msSetting(p, "no_server_stall.threshold_ms", 50)));
        m.put("no_burst", p -> new NoBurst(Long.parseLong(p.getProperty("no_burst.min_packets", "10").trim())));
        m.put("complete_trace", p -> new CompleteTrace());
        return Collections.unmodifiableMap(m);
    }

    /** A millisecond setting, returned in µs. */
    private static long msSetting(Properties p, String key, long defaultMs) {
        String v = p.getProperty(key);
        if (v == null) {
            return defaultMs * 1000;
        }
        try {
            return Math.round(Double.parseDouble(v.trim()) * 1000);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("screen setting " + key + " must be a number of milliseconds, got '" + v + "'");
        }
    }

    /** µs as "12.3 ms", rounded half up; String.format costs more than the rest of a verdict. */
    static String ms(long us) {
        long tenths = Math.floorDiv(us + 50, 100);
        return (tenths < 0 && tenths > -10 ? "-" : "") + tenths / 10 + "." + Math.abs(tenths % 10) + " ms";
    }

    /**
     * A built-in rule: the screen has it put its figures straight into the verdict's counts,
     * without a map of its own per connection.
     */
    abstract static class Builtin implements ScreenRule {
        @Override
        public final RuleOutcome check(ConnectionProfile p) {
            return check(p, new LinkedHashMap<>());
        }

        /**
         * Puts the figures it looks at into {@code counts} (after any already there) and returns the
         * outcome with that map: the screen's own, which later rules go on filling, so the screen
         * reads only the outcome's verdict and reason.
         */
        abstract RuleOutcome check(ConnectionProfile p, Map<String, Long> counts);
    }

    /** No segment was sent twice. */
    static final class NoRetransmission extends Builtin {
        @Override
        public String name() {
            return "no_retransmission";
        }

        @Override
        public String finding() {
            return "retransmissions";
        }

        @Override
        RuleOutcome check(ConnectionProfile p, Map<String, Long> c) {
            long probes = p.c2s.tailLossProbes + p.s2c.tailLossProbes;
            c.put("retransmissions", p.retransmissions());
            c.put("fast_retransmits", p.fastRetransmits());
            c.put("timeouts", p.timeouts());
            c.put("backoffs", p.backoffs());
            c.put("tail_loss_probes", probes);
            long packetTooBig = p.c2s.pathMtuRetransmits + p.s2c.pathMtuRetransmits;
            c.put("path_mtu_retransmits", packetTooBig);
            if (p.retransmissions() == 0) {
                return RuleOutcome.pass(c);
            }
            long ambiguous = p.c2s.probesOrTimeouts + p.s2c.probesOrTimeouts;
            return RuleOutcome.fail(c, p.retransmissions() + " retransmission" + (p.retransmissions() == 1 ? "" : "s")
                    + " (" + p.fastRetransmits() + " fast, " + p.timeouts() + " timeout, " + p.backoffs() + " backoff, "
                    + probes + " tail probe" + (ambiguous == 0 ? "" : ", " + ambiguous + " of them probe or timeout: the timing fits both")
                    + (packetTooBig == 0 ? "" : ", " + packetTooBig + " smaller at once: the path's MTU")
                    + "), costing " + ms(p.times.loss()) + " on the critical path, " + ms(p.costs.lossCostUs())
                    + " with the rounds it took from the window (the connection played again without it)");
        }
    }

    /** The sender never waited for the receiver's window. */
    static final class NeverRwndLimited extends Builtin {
        private final long toleranceUs;

        NeverRwndLimited(long toleranceUs) {
            this.toleranceUs = toleranceUs;
        }

        @Override
        public String name() {
            return "never_rwnd_limited";
        }

        @Override
        public String finding() {
            return "receive window limited";
        }

        @Override
        RuleOutcome check(ConnectionProfile p, Map<String, Long> c) {
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
    static final class NoTimeout extends Builtin {
        @Override
        public String name() {
            return "no_timeout";
        }

        @Override
        public String finding() {
            return "timeouts";
        }

        @Override
        RuleOutcome check(ConnectionProfile p, Map<String, Long> c) {
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
    static final class NoServerStall extends Builtin {
        private final long thresholdUs;
        /** Boxed once: every verdict's counts hold it. */
        private final Long threshold;

        NoServerStall(long thresholdUs) {
            this.thresholdUs = thresholdUs;
            this.threshold = thresholdUs;
        }

        @Override
        public String name() {
            return "no_server_stall";
        }

        @Override
        public String finding() {
            return "server stall";
        }

        @Override
        RuleOutcome check(ConnectionProfile p, Map<String, Long> c) {
            c.put("max_server_arc_us", p.path.maxServerArcUs());
            c.put("threshold_us", threshold);
            if (p.path.maxServerArcUs() <= thresholdUs) {
                return RuleOutcome.pass(c);
            }
            String who = p.mode == CaptureMode.CLIENT_SIDE ? "server (or queuing on the way to it, which the client's capture cannot tell apart)" : "server";
            return RuleOutcome.fail(c, who + " stalled " + ms(p.path.maxServerArcUs()) + " in one go (threshold " + ms(thresholdUs) + ")");
        }
    }

    /** No ACK released a long back-to-back burst. */
    static final class NoBurst extends Builtin {
        private final long minBurst;

        NoBurst(long minBurst) {
            this.minBurst = minBurst;
        }

        @Override
        public String name() {
            return "no_burst";
        }

        @Override
        public String finding() {
            return "burst";
        }

        @Override
        RuleOutcome check(ConnectionProfile p, Map<String, Long> c) {
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
    static final class CompleteTrace extends Builtin {
        @Override
        public String name() {
            return "complete_trace";
        }

        @Override
        public String finding() {
            return "incomplete trace";
        }

        @Override
        RuleOutcome check(ConnectionProfile p, Map<String, Long> c) {
            c.put("events_over_cap", p.quality.eventsOverCap());
            if (p.quality.eventsOverCap() == 0) {
                return RuleOutcome.pass(c);
            }
            return RuleOutcome.fail(c, p.quality.eventsOverCap() + " packet events beyond the per-connection cap were counted but not analysed;"
                    + " the profile covers the packets before the cap");
        }
    }
}
