package dev.critpath.core.event;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.critpath.core.testing.AvroLibrary;
import dev.critpath.core.testing.Repo;
import dev.critpath.core.testing.Vectors;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageDecoder;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The Avro single-object form of the contract against schemas/vectors/packet-event-avro, made by
 * Apache Avro's Python library: Avro's Java library reads each valid vector as the JSON vector it
 * stands for, and so does critpath's reader; critpath's encoder writes the same bytes; every
 * invalid vector is refused with the code its index names.
 */
class PacketEventAvroTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static JsonNode index() throws IOException {
        return MAPPER.readTree(Repo.schemaResource("vectors/packet-event-avro/index.json"));
    }

    private static byte[] vector(String kind, String name) {
        return Repo.schemaResource("vectors/packet-event-avro/" + kind + "/" + name + ".bin");
    }

    @Test
    void theFingerprintIsAvrosOwnForTheSchema() throws IOException {
        assertEquals(SchemaNormalization.parsingFingerprint64(AvroLibrary.schema()), PacketEventAvro.FINGERPRINT);
        assertEquals(index().get("fingerprint").asText(), String.format("%016x", PacketEventAvro.FINGERPRINT));
    }

    @TestFactory
    Stream<DynamicTest> validVectorsReadAsTheirJsonTwins() throws IOException {
        BinaryMessageDecoder<GenericRecord> avroLibrary = AvroLibrary.singleObjectDecoder();
        return Vectors.each(index().get("valid"), (name, v) -> () -> {
            byte[] bin = vector("valid", name);
            PacketEvent expected = PacketEventJson.standard().parse(
                    Repo.schemaResource("vectors/packet-event/valid/" + v.get("json").asText() + ".json"));
            assertEquals(expected, AvroLibrary.fromAvro(avroLibrary.decode(bin)), "Avro's Java library");
            assertEquals(expected, PacketEventAvro.standard().parse(bin), "critpath's reader");
            if (v.get("canonical").asBoolean()) {
                assertArrayEquals(bin, PacketEventAvro.encode(expected), "critpath's encoder");
            }
        });
    }

    @TestFactory
    Stream<DynamicTest> invalidVectorsAreRefusedWithTheirCode() throws IOException {
        return Vectors.each(index().get("invalid"), (name, expect) -> () -> Vectors.assertRefusedAsIndexed(expect,
                assertThrows(InvalidEventException.class, () -> PacketEventAvro.standard().parse(vector("invalid", name)))));
    }

    /** A file of records one after another: each bad one costs itself, and reading goes on at the next. */
    @Test
    void aFileOfRecordsLosesOnlyItsBadOnes() throws Exception {
        byte[] good = vector("valid", "data-with-sack");
        List<byte[]> parts = new ArrayList<>();
        for (int k = 0; k < 3000; k++) { // several windows of the reader
            parts.add(switch (k % 500) {
                case 7 -> vector("invalid", "truncated");
                case 8 -> vector("invalid", "port-out-of-range");
                case 9 -> "garbage that is no record".getBytes(StandardCharsets.US_ASCII);
                default -> good;
            });
        }
        parts.add(vector("invalid", "header-only"));
        java.io.ByteArrayOutputStream file = new java.io.ByteArrayOutputStream();
        parts.forEach(file::writeBytes);
        List<PacketEvent> events = new ArrayList<>();
        List<String> rejected = new ArrayList<>();
        long bytes = AvroRecords.read(new ByteArrayInputStream(file.toByteArray()), PacketEventAvro.standard(), new AvroRecords.Handler() {
            @Override
            public void event(PacketEvent e) {
                events.add(e);
            }

            @Override
            public void rejected(long offset, InvalidEventException why) {
                rejected.add(why.error().name());
            }
        }, n -> { });
        assertEquals(file.size(), bytes);
        assertEquals(parts.stream().filter(p -> p == good).count(), events.size(), "every good record");
        assertEquals(PacketEventAvro.standard().parse(good), events.get(events.size() - 1));
        // the garbage after a refused record is skipped with it, up to the next record's header
        // (a truncated record reads on into the next one's header, whatever that makes of it)
        assertEquals(6, rejected.stream().filter("OUT_OF_RANGE"::equals).count(), rejected.toString());
        assertEquals(6 * 2 + 1, rejected.size(), "per 500 records a truncated one and a bad value, and the header at the end: " + rejected);
    }
}
