package dev.critpath.core.screen;

import java.util.Map;

/**
 * @param counts the figures the rule looked at, reported whether it passed or not
 * @param reason one human sentence when it failed, e.g. "server stalled 210.3 ms"
 */
public record RuleOutcome(boolean passed, Map<String, Long> counts, String reason) {
    public static RuleOutcome pass(Map<String, Long> counts) {
        return new RuleOutcome(true, counts, "");
    }

    public static RuleOutcome fail(Map<String, Long> counts, String reason) {
        return new RuleOutcome(false, counts, reason);
    }
}
