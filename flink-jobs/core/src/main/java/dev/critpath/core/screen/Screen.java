package dev.critpath.core.screen;

import dev.critpath.core.analysis.Category;
import dev.critpath.core.analysis.ConnectionAnalysis;
import dev.critpath.core.analysis.ConnectionProfile;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.ServiceLoader;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The boring-connection screen (paper 003, section 5.3): a connection is boring when every rule
 * passes. Configured from properties:
 * <pre>
 * rules = no_retransmission, never_rwnd_limited, no_timeout, no_server_stall, no_burst
 * no_server_stall.threshold_ms = 50
 * no_burst.min_packets = 10
 * never_rwnd_limited.tolerance_ms = 0
 * custom.slow_handshake = handshake_us < 200000
 * packets.max_per_connection = 20000
 * packets.boring_sample_rate = 0.01
 * </pre>
 * Rules from ServiceLoader plugins are added unless "rules" leaves them out explicitly. The
 * {@code packets.} keys say which connections keep their packets ({@link PacketKeeping}).
 */
public final class Screen {
    /** The built-in rules, in the order a verdict lists them. */
    public static final List<String> DEFAULT_RULES = List.copyOf(BuiltinRules.REGISTERED.keySet());
    private static final Category[] CATEGORIES = Category.ALL.toArray(Category[]::new);
    /** Each category's key in words, as a verdict names it. */
    private static final String[] WORDS = Category.ALL.stream().map(c -> c.key().replace('_', ' ')).toArray(String[]::new);
    private final List<ScreenRule> rules;
    private final PacketKeeping packets;

    public Screen(List<ScreenRule> rules) {
        this(rules, PacketKeeping.DEFAULTS);
    }

    public Screen(List<ScreenRule> rules, PacketKeeping packets) {
        this.rules = List.copyOf(rules);
        this.packets = packets;
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
            Function<Properties, ScreenRule> builtin = BuiltinRules.REGISTERED.get(name);
            if (builtin != null) {
                rules.add(builtin.apply(p));
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
                rules.add(ThresholdRule.parse(name, p.getProperty(key), exampleColumns == null ? sampleColumns() : exampleColumns));
            }
        }
        for (String name : enabled) {
            if (rules.stream().noneMatch(r -> r.name().equals(name))) {
                throw new IllegalArgumentException("unknown screen rule '" + name + "'; built-in rules are " + DEFAULT_RULES);
            }
        }
        return new Screen(rules, PacketKeeping.fromProperties(p));
    }

    /** Column names of a profile, for validating custom rules without a connection at hand. */
    private static Map<String, Object> sampleColumns() {
        return ConnectionProfile.empty().columns();
    }

    public List<ScreenRule> rules() {
        return rules;
    }

    /** The same rules keeping no packets: for a caller that writes no `packets` table, making them is wasted work. */
    public Screen keepingNoPackets() {
        return new Screen(rules, PacketKeeping.NONE);
    }

    /** Where most of the time beyond propagation went, so a verdict says what to look at first. */
    private static String largestShare(ConnectionProfile p) {
        Category top = Category.SERVER;
        for (Category c : CATEGORIES) {
            if (c != Category.PROPAGATION && c != Category.IDLE && p.times.get(c) > p.times.get(top)) {
                top = c;
            }
        }
        return "most time beyond propagation: " + WORDS[top.ordinal()] + " " + BuiltinRules.ms(p.times.get(top)) + " ("
                + Math.round(100.0 * p.times.get(top) / Math.max(1, p.durationUs())) + "% of " + BuiltinRules.ms(p.durationUs()) + ")";
    }

    /** The analysis with this screen's verdict on it, keeping its packets if the verdict says so. */
    public ConnectionResult apply(ConnectionAnalysis analysis) {
        ScreenVerdict verdict = evaluate(analysis.profile());
        return new ConnectionResult(analysis.withPackets(packets.keep(analysis, verdict)), verdict);
    }

    public ScreenVerdict evaluate(ConnectionProfile p) {
        List<String> failed = new ArrayList<>();
        List<String> findings = new ArrayList<>();
        Map<String, Long> counts = new LinkedHashMap<>(32); // the built-in rules' counts without growing
        BiConsumer<String, Long> count = counts::put; // putAll would make an entry set and an iterator per rule
        List<String> reasons = new ArrayList<>();
        for (ScreenRule r : rules) {
            RuleOutcome o;
            if (r instanceof BuiltinRules.Builtin builtin) {
                o = builtin.check(p, counts);
            } else {
                o = r.check(p);
                o.counts().forEach(count);
            }
            if (!o.passed()) {
                failed.add(r.name());
                findings.add(r.finding());
                reasons.add(o.reason());
            }
        }
        long score = Math.max(0, p.durationUs() - p.times.get(Category.PROPAGATION) - p.times.get(Category.IDLE));
        String explanation = failed.isEmpty() ? "boring: every rule passed" : String.join("; ", reasons) + "; " + largestShare(p);
        return new ScreenVerdict(p.connUid, failed.isEmpty(), failed, findings, counts, score, explanation);
    }
}
