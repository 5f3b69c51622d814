package dev.critpath.core.screen;

import dev.critpath.core.analysis.ConnectionProfile;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A rule written in configuration: "metric op number" over any numeric column of the profile,
 * e.g. {@code handshake_us < 200000}. The connection passes while the condition holds.
 */
public final class ThresholdRule implements ScreenRule {
    private static final Pattern EXPR = Pattern.compile("\\s*([a-z0-9_]+)\\s*(<=|>=|==|!=|<|>)\\s*(-?[0-9]+(?:\\.[0-9]+)?)\\s*");
    private final String name;
    private final String metric;
    private final String op;
    private final double value;

    private ThresholdRule(String name, String metric, String op, double value) {
        this.name = name;
        this.metric = metric;
        this.op = op;
        this.value = value;
    }

    /** Parses "metric op number"; the metric must be a numeric column of the profiles table. */
    public static ThresholdRule parse(String name, String expression, Map<String, Object> exampleColumns) {
        Matcher m = EXPR.matcher(expression);
        if (!m.matches()) {
            throw new IllegalArgumentException("screen rule " + name + ": expected 'metric op number', e.g. 'handshake_us < 200000', got '" + expression + "'");
        }
        String metric = m.group(1);
        if (!exampleColumns.containsKey(metric)) {
            throw new IllegalArgumentException("screen rule " + name + ": unknown metric '" + metric + "'; profile columns are " + exampleColumns.keySet());
        }
        return new ThresholdRule(name, metric, m.group(2), Double.parseDouble(m.group(3)));
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public RuleOutcome check(ConnectionProfile p) {
        Object v = p.columns().get(metric);
        if (!(v instanceof Number n)) {
            return RuleOutcome.pass(Map.of()); // not known for this connection (e.g. single sensor)
        }
        double x = n.doubleValue();
        boolean holds = switch (op) {
            case "<" -> x < value;
            case "<=" -> x <= value;
            case ">" -> x > value;
            case ">=" -> x >= value;
            case "==" -> x == value;
            default -> x != value;
        };
        Map<String, Long> counts = Map.of(metric, n.longValue());
        return holds ? RuleOutcome.pass(counts) : RuleOutcome.fail(counts, metric + " = " + n + " (wanted " + op + " " + fmt(value) + ")");
    }

    private static String fmt(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
