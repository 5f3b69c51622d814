package dev.critpath.core.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.critpath.core.testing.Repo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The plain-form reader must agree with Jackson's full reading wherever it answers at all, and it
 * must answer for the records sensors really write (else the streaming job pays for Jackson again).
 */
class FlatEventReaderTest {
    private static final String ZEEK_LINE = "{\"sensor\":\"lab-client\",\"sensor_role\":\"client\",\"ts_us\":1795317482633471,"
            + "\"community_id\":\"1:BrqPhkeLO82n1M/aYfXTQDpdqLE=\",\"orig_h\":\"10.71.1.2\",\"orig_p\":37710,\"resp_h\":\"10.71.2.2\","
            + "\"resp_p\":8080,\"is_orig\":false,\"flags\":18,\"seq\":3013978276,\"ack\":4168189468,\"len\":0,\"win\":65160,"
            + "\"wscale\":10,\"mss\":1460,\"sack_ok\":true,\"sack\":[1,2,3,4],\"tsval\":1449424483,\"tsecr\":140536719,\"ip_id\":0,"
            + "\"ttl\":62,\"capture_index\":1}";

    @Test
    void readsEveryLineZeekWroteAndEveryValidVectorAsJacksonDoes() throws Exception {
        List<byte[]> records = new ArrayList<>();
        for (String test : List.of("tests.client-site", "tests.server-site", "tests.loopback")) {
            for (String line : Files.readAllLines(Repo.root().resolve("zeek-scripts/testing/Baseline").resolve(test).resolve("critpath_packets.log"))) {
                if (line.startsWith("{")) {
                    records.add(line.getBytes(StandardCharsets.UTF_8));
                }
            }
        }
        JsonNode index = new ObjectMapper().readTree(Repo.schemaResource("vectors/packet-event/index.json"));
        for (JsonNode n : index.get("valid")) {
            records.add(Repo.schemaResource("vectors/packet-event/valid/" + n.asText() + ".json"));
        }
        assertTrue(records.size() > 100);
        FlatEventReader flat = new FlatEventReader();
        for (byte[] r : records) {
            EventFields f = flat.read(r);
            assertNotNull(f, () -> "the plain reader gave up on " + new String(r, StandardCharsets.UTF_8));
            assertSameOutcome(r, f);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"sensor\":\"a\\u0062\"}",             // an escape: Jackson decodes it
        "{\"sensor\":\"s\",\"ts_us\":01}",        // a leading zero: not JSON
        "{\"ts_us\":1.5}",                        // a float: wrong type, Jackson says so
        "{\"ts_us\":1e6}",
        "{\"orig_p\":-1}",                        // negative: out of range, Jackson says so
        "{\"ttl\":1234567890123456789012}",       // beyond a long
        "{\"is_orig\":truex}",
        "{\"is_orig\":null}",
        "{\"_extra\":{\"nested\":1}}",            // an unknown field with structure: Jackson skips it
        "{\"sack\":[1,2,3,4,5,6,7,8,9,10]}",
        "{\"sack\":[1]}",
        "{\"sack\":[1,]}",
        "{\"sensor\":\"s\",}",
        "{\"sensor\":\"s\"} {}",
        "\uFEFF{}",
        "[]",
        "",
        "{\"sensor\":\"caf\u00e9\"}",              // non-ASCII
        "{\"orig_h\":\"10.0.0.300\"}",            // invalid address
    })
    void leavesEverythingUnusualToJackson(String json) {
        assertNull(new FlatEventReader().read(json.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void acceptsWhitespaceUnknownScalarsAndRepeatedFieldsAsJacksonDoes() throws Exception {
        String spaced = ZEEK_LINE.replace(",", " ,\n\t").replace("\":", "\" : ").replace("{", " {\r\n") + "\n";
        String extras = ZEEK_LINE.replace("{\"sensor\"", "{\"_path\":\"critpath_packets\",\"_n\":7,\"_b\":true,\"sensor\"");
        String repeated = ZEEK_LINE.replace("\"ttl\":62", "\"ttl\":1,\"ttl\":62");
        String reordered = "{\"ttl\":62," + ZEEK_LINE.substring(1).replace(",\"ttl\":62", "");
        for (String json : List.of(ZEEK_LINE, spaced, extras, repeated, reordered)) {
            byte[] r = json.getBytes(StandardCharsets.UTF_8);
            EventFields f = new FlatEventReader().read(r);
            assertNotNull(f, json);
            assertSameOutcome(r, f);
        }
    }

    /** Random damage to real records: wherever the plain reader answers, Jackson's reading agrees. */
    @Test
    void damagedRecordsNeverReadDifferently() throws Exception {
        Random random = new Random(7);
        FlatEventReader flat = new FlatEventReader();
        byte[] alphabet = "{}[],:\"\\ 0123456789-.eE+tfnrlsu1:/=abcABC\u00ff".getBytes(StandardCharsets.ISO_8859_1);
        int answered = 0;
        for (int round = 0; round < 50_000; round++) {
            byte[] r = ZEEK_LINE.getBytes(StandardCharsets.UTF_8);
            for (int k = random.nextInt(3) + 1; k > 0 && r.length > 0; k--) {
                r = damage(r, random, alphabet);
            }
            EventFields f = flat.read(r);
            if (f != null) {
                answered++;
                assertSameOutcome(r, f);
            }
        }
        assertTrue(answered > 1_000, "damage the plain reader accepts (digits changed, say) is checked too: " + answered);
    }

    private static byte[] damage(byte[] r, Random random, byte[] alphabet) {
        int at = random.nextInt(r.length);
        byte c = alphabet[random.nextInt(alphabet.length)];
        return switch (random.nextInt(4)) {
            case 0 -> { // replace
                byte[] out = r.clone();
                out[at] = c;
                yield out;
            }
            case 1 -> { // insert
                byte[] out = new byte[r.length + 1];
                System.arraycopy(r, 0, out, 0, at);
                out[at] = c;
                System.arraycopy(r, at, out, at + 1, r.length - at);
                yield out;
            }
            case 2 -> { // delete
                byte[] out = new byte[r.length - 1];
                System.arraycopy(r, 0, out, 0, at);
                System.arraycopy(r, at + 1, out, at, r.length - at - 1);
                yield out;
            }
            default -> java.util.Arrays.copyOf(r, at); // truncate
        };
    }

    /** The plain reader's fields build the same event as Jackson's, or fail the same cross-field check. */
    private static void assertSameOutcome(byte[] r, EventFields flat) {
        String json = new String(r, StandardCharsets.UTF_8);
        EventFields full;
        try {
            full = PacketEventJson.readWithJackson(r);
        } catch (InvalidEventException e) {
            throw new AssertionError("the plain reader accepted what Jackson rejects (" + e.getMessage() + "): " + json);
        }
        assertEquals(outcome(full), outcome(flat), json);
    }

    private static String outcome(EventFields f) {
        try {
            return PacketEventJson.toJson(f.build(0, false));
        } catch (InvalidEventException e) {
            return e.error() + " " + e.getMessage();
        }
    }
}
