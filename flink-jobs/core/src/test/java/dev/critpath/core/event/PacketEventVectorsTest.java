package dev.critpath.core.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import dev.critpath.core.testing.AvroLibrary;
import dev.critpath.core.testing.Repo;
import dev.critpath.core.testing.Vectors;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The packet-event contract: the Java codec, the JSON Schema and the Avro schema must all
 * agree with the verdicts listed in schemas/vectors/packet-event/index.json.
 */
class PacketEventVectorsTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final PacketEventJson CODEC = PacketEventJson.standard();

    private static JsonNode index() throws IOException {
        return MAPPER.readTree(Repo.schemaResource("vectors/packet-event/index.json"));
    }

    private static byte[] vector(String kind, String name) {
        return Repo.schemaResource("vectors/packet-event/" + kind + "/" + name + ".json");
    }

    static JsonSchema jsonSchema() {
        JsonSchemaFactory factory = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012);
        SchemaValidatorsConfig config = SchemaValidatorsConfig.builder().formatAssertionsEnabled(true).build();
        return factory.getSchema(new String(Repo.schemaResource("packet-event.schema.json"), StandardCharsets.UTF_8), config);
    }

    @TestFactory
    Stream<DynamicTest> validVectorsPassEveryValidator() throws IOException {
        JsonSchema schema = jsonSchema();
        Schema avro = AvroLibrary.schema();
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode n : index().get("valid")) {
            String name = n.asText();
            tests.add(DynamicTest.dynamicTest(name, () -> {
                byte[] json = vector("valid", name);
                PacketEvent e = CODEC.parse(json);
                Set<ValidationMessage> errors = schema.validate(MAPPER.readTree(json));
                assertTrue(errors.isEmpty(), "JSON Schema rejects a valid vector: " + errors);
                // writing and reading back keeps every field
                assertEquals(e, CODEC.parse(PacketEventJson.toJson(e)));
                assertEquals(e, AvroLibrary.fromAvro(roundTripAvro(avro, MAPPER.readTree(json))));
            }));
        }
        return tests.stream();
    }

    @TestFactory
    Stream<DynamicTest> invalidVectorsAreRejectedWithTheirCode() throws IOException {
        JsonSchema schema = jsonSchema();
        return Vectors.each(index().get("invalid"), (name, expect) -> () -> {
            byte[] json = vector("invalid", name);
            Vectors.assertRefusedAsIndexed(expect, assertThrows(InvalidEventException.class, () -> CODEC.parse(json)));
            if (expect.get("json_schema").asBoolean()) {
                assertFalse(schemaAccepts(schema, json), "JSON Schema accepts invalid vector " + name);
            } else {
                assertTrue(schemaAccepts(schema, json), "index says JSON Schema cannot catch " + name);
            }
        });
    }

    private static boolean schemaAccepts(JsonSchema schema, byte[] json) {
        JsonNode node;
        try {
            node = MAPPER.readTree(json);
        } catch (IOException e) {
            return false; // not JSON at all
        }
        return schema.validate(node).isEmpty();
    }

    @Test
    void communityIdCheckCanBeDisabledForFleetsWithAnotherSeed() throws Exception {
        byte[] json = vector("invalid", "community-id-mismatch");
        assertNotNull(new PacketEventJson(-1).parse(json));
    }

    /** JSON vector -> Avro binary -> Avro record, through the committed .avsc. */
    private static GenericRecord roundTripAvro(Schema avro, JsonNode json) throws IOException {
        GenericRecord r = new GenericData.Record(avro);
        for (Schema.Field f : avro.getFields()) {
            JsonNode v = json.get(f.name());
            r.put(f.name(), v == null ? null : avroValue(f.schema(), v));
        }
        assertTrue(GenericData.get().validate(avro, r), "record does not fit the Avro schema");
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(avro).write(r, enc);
        enc.flush();
        BinaryDecoder dec = DecoderFactory.get().binaryDecoder(out.toByteArray(), null);
        return new GenericDatumReader<GenericRecord>(avro).read(null, dec);
    }

    private static Object avroValue(Schema s, JsonNode v) {
        if (s.getType() == Schema.Type.UNION) {
            return avroValue(s.getTypes().get(1), v);
        }
        return switch (s.getType()) {
            case STRING -> v.asText();
            case ENUM -> new GenericData.EnumSymbol(s, v.asText());
            case INT -> v.asInt();
            case LONG -> v.asLong();
            case BOOLEAN -> v.asBoolean();
            case ARRAY -> {
                List<Long> l = new ArrayList<>();
                v.forEach(x -> l.add(x.asLong()));
                yield l;
            }
            default -> throw new IllegalArgumentException("unexpected Avro type " + s);
        };
    }
}
