package dev.critpath.core.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.critpath.core.testing.NameDrift;
import dev.critpath.core.testing.Repo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

/**
 * The packet event is declared five times, and each must agree field by field with the JSON
 * Schema, the contract: the Avro schema, the Java reader's {@link EventField} (which the writer,
 * {@link PacketEventJson}, follows), the Zeek package's Info record and the names its compiled
 * sensor writes (which writes through Zeek's logging, slowly, where Info differs from them). Names in order, JSON type,
 * whether required, the sensor roles, and the Java reader's integer ranges. The vectors
 * (PacketEventVectorsTest) test values; this tests the declarations, so a field added in one place
 * fails here naming the file that lacks it.
 */
class PacketEventFieldsTest {
    private static final String JSON = "schemas/packet-event.schema.json";
    private static final String AVRO = "schemas/packet-event.avsc";
    private static final String JAVA = "EventField.java";
    private static final String ZEEK = "zeek-scripts/scripts/main.zeek";
    private static final String PLUGIN = "zeek-scripts/plugin/src/Sensor.cc";
    private static final ObjectMapper MAPPER = new ObjectMapper();

    /**
     * A field as one declaration has it: JSON type (string, integer, boolean, array) and whether
     * every event has it, null where the declaration does not say (EventFields.build checks
     * presence; the vectors test it).
     */
    private record Declared(String type, Boolean required) {
    }

    @Test
    void everyDeclarationHasTheContractsFieldsInItsOrder() throws IOException {
        List<String> contract = List.copyOf(json().keySet());
        assertEquals(List.of(), NameDrift.between(JSON, contract, AVRO, List.copyOf(avro().keySet())));
        assertEquals(List.of(), NameDrift.between(JSON, contract, JAVA, List.copyOf(java().keySet())));
        assertEquals(List.of(), NameDrift.between(JSON, contract, ZEEK, List.copyOf(zeek().keySet())));
        assertEquals(List.of(), NameDrift.between(JSON, contract, PLUGIN, plugin()));
        List<String> written = new ArrayList<>();
        MAPPER.readTree(PacketEventJson.toJson(everyFieldSet())).fieldNames().forEachRemaining(written::add);
        assertEquals(List.of(), NameDrift.between(JSON, contract, "PacketEventJson.write", written));
    }

    @Test
    void everyFieldHasTheContractsTypeAndRequirednessEverywhere() throws IOException {
        Map<String, Declared> contract = json();
        for (Map.Entry<String, Map<String, Declared>> other : Map.of(AVRO, avro(), JAVA, java(), ZEEK, zeek()).entrySet()) {
            for (Map.Entry<String, Declared> f : other.getValue().entrySet()) {
                Declared want = contract.get(f.getKey());
                if (want == null) {
                    continue; // a field the contract lacks: the other test names it
                }
                assertEquals(want.type(), f.getValue().type(), other.getKey() + ": " + f.getKey() + "'s type");
                Boolean required = f.getValue().required();
                // Zeek always logs sensor_role and capture_index, which the contract leaves optional
                boolean agrees = required == null || required == want.required() || (other.getKey().equals(ZEEK) && required);
                assertTrue(agrees, () -> other.getKey() + ": " + f.getKey() + (required ? " is required" : " is optional")
                        + ", the contract says otherwise");
            }
        }
    }

    @Test
    void theSensorRolesAreTheContracts() throws IOException {
        List<String> contract = new ArrayList<>();
        jsonSchema().get("properties").get("sensor_role").get("enum").forEach(r -> contract.add(r.asText()));
        List<String> avro = avroSchema().getField("sensor_role").schema().getTypes().get(1).getEnumSymbols();
        assertEquals(List.of(), NameDrift.between(JSON, contract, AVRO, avro));
        assertEquals(List.of(), NameDrift.between(JSON, contract, "SensorRole.java",
                Arrays.stream(SensorRole.values()).map(SensorRole::wireName).toList()));
        Matcher zeekRoles = Pattern.compile("type Role: enum \\{([^}]*)}").matcher(zeekScript());
        zeekRoles.find();
        assertEquals(List.of(), NameDrift.between(JSON, contract, ZEEK,
                Arrays.stream(zeekRoles.group(1).split(",")).map(r -> r.trim().toLowerCase(Locale.ROOT)).toList()));
    }

    /** The reader's bounds are the schema's, and Avro's int fields hold the whole range. */
    @Test
    void theJavaReadersRangesAreTheContracts() throws IOException {
        JsonNode schema = jsonSchema();
        Schema avro = avroSchema();
        for (EventField f : EventField.values()) {
            if (f.kind != EventField.Kind.INTEGER && f.kind != EventField.Kind.SACK) {
                continue;
            }
            JsonNode spec = resolved(schema, schema.get("properties").get(f.wire));
            if (f.kind == EventField.Kind.SACK) {
                spec = resolved(schema, spec.get("items"));
            }
            long max = spec.has("maximum") ? spec.get("maximum").asLong()
                    : spec.has("exclusiveMaximum") ? spec.get("exclusiveMaximum").asLong() - 1 : Long.MAX_VALUE;
            assertEquals(List.of(spec.get("minimum").asLong(), max), List.of(f.min, f.max), JAVA + ": " + f.wire + "'s range");
            Schema a = nonNull(avro.getField(f.wire).schema());
            if (a.getType() == Schema.Type.INT) {
                assertTrue(f.max <= Integer.MAX_VALUE, AVRO + ": " + f.wire + " is an int, its range reaches " + f.max);
            }
        }
    }

    private static JsonNode jsonSchema() throws IOException {
        return MAPPER.readTree(Repo.schemaResource("packet-event.schema.json"));
    }

    private static Schema avroSchema() {
        return new Schema.Parser().parse(new String(Repo.schemaResource("packet-event.avsc"), StandardCharsets.UTF_8));
    }

    private static String zeekScript() throws IOException {
        return Files.readString(Repo.root().resolve(ZEEK));
    }

    /** A property's own spec, or the definition its $ref names. */
    private static JsonNode resolved(JsonNode schema, JsonNode spec) {
        return spec.has("$ref") ? schema.at(spec.get("$ref").asText().substring(1)) : spec;
    }

    private static Map<String, Declared> json() throws IOException {
        JsonNode schema = jsonSchema();
        List<String> required = new ArrayList<>();
        schema.get("required").forEach(n -> required.add(n.asText()));
        Map<String, Declared> out = new LinkedHashMap<>();
        schema.get("properties").fields().forEachRemaining(e -> {
            JsonNode spec = resolved(schema, e.getValue());
            String type = spec.has("enum") ? "string" : spec.get("type").asText();
            out.put(e.getKey(), new Declared(type, required.contains(e.getKey())));
        });
        return out;
    }

    private static Map<String, Declared> avro() {
        Map<String, Declared> out = new LinkedHashMap<>();
        for (Schema.Field f : avroSchema().getFields()) {
            String type = switch (nonNull(f.schema()).getType()) {
                case STRING, ENUM -> "string";
                case INT, LONG -> "integer";
                case BOOLEAN -> "boolean";
                case ARRAY -> "array";
                default -> "Avro " + f.schema();
            };
            out.put(f.name(), new Declared(type, f.schema().getType() != Schema.Type.UNION));
        }
        return out;
    }

    private static Schema nonNull(Schema s) {
        return s.getType() == Schema.Type.UNION ? s.getTypes().get(1) : s;
    }

    private static Map<String, Declared> java() {
        Map<String, Declared> out = new LinkedHashMap<>();
        for (EventField f : EventField.values()) {
            String type = switch (f.kind) {
                case SENSOR, ROLE, COMMUNITY_ID, ADDRESS -> "string";
                case INTEGER -> "integer";
                case BOOL -> "boolean";
                case SACK -> "array";
            };
            out.put(f.wire, new Declared(type, null));
        }
        return out;
    }

    /** The Info record's logged fields: "name: type &log [&optional];". */
    private static Map<String, Declared> zeek() throws IOException {
        Matcher record = Pattern.compile("type Info: record \\{(.*?)\n\t};", Pattern.DOTALL).matcher(zeekScript());
        record.find();
        Matcher field = Pattern.compile("^\\s*(\\w+): (.+?) &log( &optional)?;$", Pattern.MULTILINE).matcher(record.group(1));
        Map<String, Declared> out = new LinkedHashMap<>();
        while (field.find()) {
            String type = switch (field.group(2)) {
                case "string", "addr" -> "string";
                case "count" -> "integer";
                case "bool" -> "boolean";
                case "vector of count" -> "array";
                default -> "Zeek " + field.group(2);
            };
            out.put(field.group(1), new Declared(type, field.group(3) == null));
        }
        return out;
    }

    /** The field names the compiled sensor's own writer holds, in its order. */
    private static List<String> plugin() throws IOException {
        Matcher fields = Pattern.compile("const fields\\[\\] = \\{(.*?)\\};", Pattern.DOTALL)
                .matcher(Files.readString(Repo.root().resolve(PLUGIN)));
        assertTrue(fields.find(), PLUGIN + " has no field list");
        Matcher name = Pattern.compile("\"(\\w+)\"").matcher(fields.group(1));
        List<String> out = new ArrayList<>();
        while (name.find()) {
            out.add(name.group(1));
        }
        return out;
    }

    /** An event with every optional field present, so the writer writes them all. */
    private static PacketEvent everyFieldSet() {
        return new PacketEvent("s", SensorRole.CLIENT, 1, "1:AAAAAAAAAAAAAAAAAAAAAAAAAAA=", "10.0.0.1", 1, "10.0.0.2", 2, true, 2,
                1, 0, 0, 1000, 7, 1460, true, new long[] {1, 2}, 3, 4, 5, 64, 6);
    }
}
