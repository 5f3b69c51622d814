package dev.critpath.core.screen;

import dev.critpath.core.analysis.Category;
import dev.critpath.core.analysis.ConnectionProfile;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.ServiceLoader;

/**
 * The boring-connection screen (paper 003, section 5.3): a connection is boring when every rule
 * passes. Configured from properties:
 * <pre>
 * rules = no_retransmission, never_rwnd_limited, no_timeout, no_server_stall, no_burst
 * no_server_stall.threshold_ms = 50
 * no_burst.min_packets = 10
 * never_rwnd_limited.tolerance_ms = 0
 * custom.slow_handshake = handshake_us < 200000
 * </pre>
 * Rules from ServiceLoader plugins are added unless "rules" leaves them out explicitly.
 */
public final class Screen {
    public static final List<String> DEFAULT_RULES = List.of("no_retransmission", "never_rwnd_limited", "no_timeout", "no_server_stall", "no_burst", "complete_trace");
    private final List<ScreenRule> rules;

    public Screen(List<ScreenRule> rules) {
        this.rules = List.copyOf(rules);
    }

    public static Screen defaults() {
        return fromProperties(new Properties(), null);
    }

    /**
     * @param exampleColumns profile columns used to check custom metrics' names (null: no check)
     */
    public static Screen fromProperties(Properties p, Map<String, Object> exampleColumns) {
        String listed = p.getProperty("rules");
        List<String> enabled = listed == null ? DEFAULT_RULES
                : List.of(listed.trim().isEmpty() ? new String[0] : listed.trim().split("\\s*,\\s*"));
        List<ScreenRule> rules = new ArrayList<>();
        for (String name : enabled) {
            switch (name) {
                case "no_retransmission" -> rules.add(new BuiltinRules.NoRetransmission());
                case "never_rwnd_limited" -> rules.add(new BuiltinRules.NeverRwndLimited(ms(p, "never_rwnd_limited.tolerance_ms", 0)));
                case "no_timeout" -> rules.add(new BuiltinRules.NoTimeout());
                case "no_server_stall" -> rules.add(new BuiltinRules.NoServerStall(ms(p, "no_server_stall.threshold_ms", 50)));
                case "complete_trace" -> rules.add(new BuiltinRules.CompleteTrace());
                case "no_burst" -> rules.add(new BuiltinRules.NoBurst(Long.parseLong(p.getProperty("no_burst.min_packets", "10").trim())));
                default -> { } // a plugin rule, added below
            }
        }
        for (ScreenRule plugin : ServiceLoader.load(ScreenRule.class)) {
            if (listed == null || enabled.contains(plugin.name())) {
                rules.add(plugin);
            }
        }
        for (String key : p.stringPropertyNames()) {
            if (key.startsWith("custom.")) {
                String name = key.substring("custom.".length());
                rules.add(exampleColumns == null ? ThresholdRule.parse(name, p.getProperty(key), sampleColumns())
                        : ThresholdRule.parse(name, p.getProperty(key), exampleColumns));
            }
        }
        for (String name : enabled) {
            if (rules.stream().noneMatch(r -> r.name().equals(name))) {
                throw new IllegalArgumentException("unknown screen rule '" + name + "'; built-in rules are " + DEFAULT_RULES);
            }
        }
        return new Screen(rules);
    }

    /** A millisecond setting, returned in µs. */
    private static long ms(Properties p, String key, long defaultMs) {
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

    /** Column names of a profile, for validating custom rules without a connection at hand. */
    private static Map<String, Object> sampleColumns() {
        return dev.critpath.core.analysis.Analyzer.emptyProfileColumns();
    }

    public List<ScreenRule> rules() {
        return rules;
    }

    /** Where most of the time beyond propagation went, so a verdict says what to look at first. */
    private static String largestShare(ConnectionProfile p) {
        Category top = Category.SERVER;
        for (Category c : Category.ALL) {
            if (c != Category.PROPAGATION && c != Category.IDLE && p.times.get(c) > p.times.get(top)) {
                top = c;
            }
        }
        return "most time beyond propagation: " + top.key().replace('_', ' ') + " " + BuiltinRules.ms(p.times.get(top)) + " ("
                + Math.round(100.0 * p.times.get(top) / Math.max(1, p.durationUs())) + "% of " + BuiltinRules.ms(p.durationUs()) + ")";
    }

    public ScreenVerdict evaluate(ConnectionProfile p) {
        List<String> failed = new ArrayList<>();
        Map<String, Long> counts = new LinkedHashMap<>();
        List<String> reasons = new ArrayList<>();
        for (ScreenRule r : rules) {
            RuleOutcome o = r.check(p);
            counts.putAll(o.counts());
            if (!o.passed()) {
                failed.add(r.name());
                reasons.add(o.reason());
            }
        }
        long score = Math.max(0, p.durationUs() - p.times.get(Category.PROPAGATION) - p.times.get(Category.IDLE));
        String explanation = failed.isEmpty() ? "boring: every rule passed" : String.join("; ", reasons) + "; " + largestShare(p);
        return new ScreenVerdict(p.connUid, failed.isEmpty(), failed, counts, score, explanation);
    }
}
