package dev.critpath.core.event;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Reads and writes packet events in their JSON wire form, enforcing every rule of
 * schemas/packet-event.schema.json plus the Community ID check that JSON Schema cannot express.
 * Records in the sensors' plain form are read by {@link FlatEventReader}; anything else, every
 * invalid record included, by Jackson, which also names what is wrong.
 */
public final class PacketEventJson {
    /**
     * Capture times an event may carry and a capture may hold, inclusive: one rule for events and
     * pcaps. From the Unix epoch, since public traces go back to 1994; to the end of 2099, since
     * later stamps are corruption (a 2106 stamp once made a 79-year server stall).
     */
    public static final long MIN_TS_US = 0;
    public static final long MAX_TS_US = 4_102_444_799_999_999L; // 2099-12-31T23:59:59.999999Z
    public static final int MAX_LEN = 1 << 20;
    private static final JsonFactory FACTORY = new JsonFactory();

    private final CheckedFlows flows;
    private final FlatEventReader flat = new FlatEventReader();

    /** @param communityIdSeed seed the fleet's sensors use for Community IDs; a negative value skips the hash check */
    public PacketEventJson(int communityIdSeed) {
        this.flows = new CheckedFlows(communityIdSeed);
    }

    /** Default codec: seed 0, hash checked. */
    public static PacketEventJson standard() {
        return new PacketEventJson(0);
    }

    public PacketEvent parse(byte[] json) throws InvalidEventException {
        EventFields f = flat.read(json);
        return flows.build(f != null ? f : readWithJackson(json));
    }

    public PacketEvent parse(String json) throws InvalidEventException {
        return parse(json.getBytes(StandardCharsets.UTF_8));
    }

    static EventFields readWithJackson(byte[] json) throws InvalidEventException {
        // decoded as UTF-8 by us: left to itself Jackson guesses UTF-16/32 from NULs or a byte-order mark
        var utf8 = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        try (JsonParser p = FACTORY.createParser(new InputStreamReader(new ByteArrayInputStream(json), utf8))) {
            return read(p);
        } catch (JsonProcessingException e) {
            throw new InvalidEventException(EventError.MALFORMED_JSON, null, "not valid JSON: " + e.getOriginalMessage());
        } catch (CharacterCodingException e) {
            throw new InvalidEventException(EventError.MALFORMED_JSON, null, "not UTF-8 text: " + e);
        } catch (IOException e) {
            // reading a byte array fails only on its content
            throw new InvalidEventException(EventError.MALFORMED_JSON, null, "unreadable: " + e);
        }
    }

    private static EventFields read(JsonParser p) throws IOException, InvalidEventException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            throw new InvalidEventException(EventError.MALFORMED_JSON, null, "a packet event must be a JSON object");
        }
        EventFields f = new EventFields();
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            EventField field = EventField.byName(p.currentName());
            p.nextToken();
            if (field == null) {
                p.skipChildren(); // unknown fields (e.g. Zeek's _path) are allowed
            } else {
                readField(p, field, f);
            }
        }
        if (t != JsonToken.END_OBJECT) {
            throw new InvalidEventException(EventError.MALFORMED_JSON, null, "unexpected " + t);
        }
        if (p.nextToken() != null) {
            throw new InvalidEventException(EventError.MALFORMED_JSON, null, "trailing content after the event");
        }
        return f;
    }

    private static void readField(JsonParser p, EventField field, EventFields f) throws IOException, InvalidEventException {
        String name = field.wire;
        switch (field.kind) {
            case INTEGER -> f.setInteger(field, integer(p, field));
            case BOOL -> f.setBoolean(field, bool(p, name));
            case SACK -> f.sack = sackBlocks(p, field);
            default -> {
                String s = string(p, name);
                if (!field.validString(s)) {
                    throw field.badForm(s);
                }
                f.setString(field, s);
            }
        }
    }

    private static String string(JsonParser p, String name) throws IOException, InvalidEventException {
        if (p.currentToken() != JsonToken.VALUE_STRING) {
            throw wrongType(p, name, "a string");
        }
        return p.getText();
    }

    private static boolean bool(JsonParser p, String name) throws IOException, InvalidEventException {
        JsonToken t = p.currentToken();
        if (t != JsonToken.VALUE_TRUE && t != JsonToken.VALUE_FALSE) {
            throw wrongType(p, name, "true or false");
        }
        return t == JsonToken.VALUE_TRUE;
    }

    private static long integer(JsonParser p, EventField field) throws IOException, InvalidEventException {
        String name = field.wire;
        if (p.currentToken() != JsonToken.VALUE_NUMBER_INT) {
            throw wrongType(p, name, "an integer");
        }
        if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
            throw field.outOfRange(null);
        }
        long v = p.getLongValue();
        if (!field.inRange(v)) {
            throw field.outOfRange(v);
        }
        return v;
    }

    private static long[] sackBlocks(JsonParser p, EventField field) throws IOException, InvalidEventException {
        String name = field.wire;
        if (p.currentToken() != JsonToken.START_ARRAY) {
            throw wrongType(p, name, "an array");
        }
        long[] buf = new long[EventField.MAX_SACK_NUMBERS];
        int n = 0;
        while (p.nextToken() != JsonToken.END_ARRAY) {
            long v = integer(p, field);
            if (n == buf.length) {
                throw field.tooManySackNumbers();
            }
            buf[n++] = v;
        }
        if (n % 2 != 0) {
            throw field.oddSack();
        }
        return java.util.Arrays.copyOf(buf, n);
    }

    private static InvalidEventException wrongType(JsonParser p, String name, String expected) {
        return new InvalidEventException(EventError.WRONG_TYPE, name, name + " must be " + expected + ", got " + p.currentToken());
    }

    /** The event as one line of JSON with the schema's field names; absent optional fields are omitted. */
    public static String toJson(PacketEvent e) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(320);
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            write(e, g);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    public static void write(PacketEvent e, Writer w) throws IOException {
        try (JsonGenerator g = FACTORY.createGenerator(w)) {
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            write(e, g);
        }
    }

    public static void write(PacketEvent e, JsonGenerator g) throws IOException {
        g.writeStartObject();
        g.writeStringField("sensor", e.sensor());
        if (e.sensorRole() != null) {
            g.writeStringField("sensor_role", e.sensorRole().wireName());
        }
        g.writeNumberField("ts_us", e.tsUs());
        g.writeStringField("community_id", e.communityId());
        g.writeStringField("orig_h", e.origH());
        g.writeNumberField("orig_p", e.origP());
        g.writeStringField("resp_h", e.respH());
        g.writeNumberField("resp_p", e.respP());
        g.writeBooleanField("is_orig", e.isOrig());
        g.writeNumberField("flags", e.flags());
        g.writeNumberField("seq", e.seq());
        g.writeNumberField("ack", e.ack());
        g.writeNumberField("len", e.len());
        g.writeNumberField("win", e.win());
        optional(g, "wscale", e.wscale());
        optional(g, "mss", e.mss());
        if (e.sackOk() != null) {
            g.writeBooleanField("sack_ok", e.sackOk());
        }
        if (e.sack() != null) {
            g.writeArrayFieldStart("sack");
            for (long v : e.sack()) {
                g.writeNumber(v);
            }
            g.writeEndArray();
        }
        optional(g, "tsval", e.tsval());
        optional(g, "tsecr", e.tsecr());
        optional(g, "ip_id", e.ipId());
        g.writeNumberField("ttl", e.ttl());
        optional(g, "capture_index", e.captureIndex());
        g.writeEndObject();
    }

    private static void optional(JsonGenerator g, String name, long v) throws IOException {
        if (v != PacketEvent.ABSENT) {
            g.writeNumberField(name, v);
        }
    }
}
