package dev.critpath.core.testing;

import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;

/**
 * What a test factory returns when what its tests need is missing: one test, skipped with the
 * reason. An assumption that fails in the factory itself is reported as no test at all.
 */
public final class Skipped {
    private Skipped() {
    }

    public static Stream<DynamicNode> because(String reason) {
        return Stream.of(DynamicTest.dynamicTest("skipped", () -> Assumptions.abort(reason)));
    }
}
