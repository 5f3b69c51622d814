package dev.critpath.core.screen;

import dev.critpath.core.analysis.ConnectionProfile;

/**
 * One test a boring connection passes. Implementations found through
 * {@link java.util.ServiceLoader} (META-INF/services/dev.critpath.core.screen.ScreenRule) join the
 * screen, so a site can add its own without changing critpath.
 */
public interface ScreenRule {
    /** Short snake_case name shown in verdicts and usable in the screen configuration. */
    String name();

    /**
     * What a failing connection shows, for people: the rules are named for what a boring
     * connection shows ("no_timeout"), so a verdict listing names reads as the opposite.
     */
    default String finding() {
        return name() + " failed";
    }

    /** Evaluates one connection; a failing outcome must say why with the numbers. */
    RuleOutcome check(ConnectionProfile profile);
}
