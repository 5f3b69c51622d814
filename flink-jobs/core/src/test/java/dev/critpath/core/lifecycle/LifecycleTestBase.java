package dev.critpath.core.lifecycle;

import java.time.Duration;

/** The stream's default life cycle, and caps to test it at; packets come from {@link dev.critpath.core.testing.Conversation}. */
abstract class LifecycleTestBase {
    static LifecycleConfig defaults() {
        return new LifecycleConfig(Duration.ofSeconds(5), Duration.ofSeconds(120), Duration.ofSeconds(60), 200_000,
                Duration.ofSeconds(60), Duration.ofSeconds(1), 200_000, 2_000_000, 100_000);
    }

    static LifecycleConfig withCaps(int maxEventsPerConnection, int maxFlows) {
        LifecycleConfig d = defaults();
        return new LifecycleConfig(d.closeGrace(), d.idleTimeout(), d.allowedLateness(), maxEventsPerConnection, d.segmentAfter(),
                d.segmentQuiet(), maxFlows, d.maxBufferedEvents(), d.maxHalfOpenFlows());
    }
}
