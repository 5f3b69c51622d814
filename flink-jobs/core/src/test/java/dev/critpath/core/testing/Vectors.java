package dev.critpath.core.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.critpath.core.event.InvalidEventException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.function.Executable;

/** The contract's test vectors (schemas/vectors/&#42;/index.json): one test per vector of a group. */
public final class Vectors {
    private Vectors() {
    }

    /** One dynamic test per entry of an index group (vector name to what the index says of it), named by the vector. */
    public static Stream<DynamicTest> each(JsonNode group, BiFunction<String, JsonNode, Executable> test) {
        List<DynamicTest> tests = new ArrayList<>();
        group.fields().forEachRemaining(e -> tests.add(DynamicTest.dynamicTest(e.getKey(), test.apply(e.getKey(), e.getValue()))));
        return tests.stream();
    }

    /** The refusal carries the code and the field the index names for the invalid vector. */
    public static void assertRefusedAsIndexed(JsonNode expect, InvalidEventException ex) {
        assertEquals(expect.get("error").asText(), ex.error().name(), ex.getMessage());
        JsonNode field = expect.get("field");
        assertEquals(field.isNull() ? null : field.asText(), ex.field(), ex.getMessage());
    }
}
