package dev.critpath.core.screen;

import dev.critpath.core.analysis.ConnectionProfile;
import java.util.Map;

/** A site's own rule, found through ServiceLoader (registered in src/test/resources/META-INF/services). */
public final class SlowHandshakePluginRule implements ScreenRule {
    @Override
    public String name() {
        return "plugin_slow_handshake";
    }

    @Override
    public RuleOutcome check(ConnectionProfile p) {
        long hs = p.path.handshakeUs();
        Map<String, Long> counts = Map.of("handshake_us", hs);
        return hs > 1_000_000 ? RuleOutcome.fail(counts, "handshake took " + hs / 1000 + " ms") : RuleOutcome.pass(counts);
    }
}
