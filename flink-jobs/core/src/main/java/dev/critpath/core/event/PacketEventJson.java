package dev.critpath.core.event;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads and writes packet events in their JSON wire form, enforcing every rule of
 * schemas/packet-event.schema.json plus the Community ID check that JSON Schema cannot express.
 */
public final class PacketEventJson {
    public static final long MIN_TS_US = 946_684_800_000_000L;  // 2000-01-01
    public static final long MAX_TS_US = 4_102_444_800_000_000L; // 2100-01-01
    public static final int MAX_LEN = 1 << 20;
    private static final long U32_MAX = 0xffff_ffffL;
    private static final JsonFactory FACTORY = new JsonFactory();

    /** Seed the fleet's sensors use for Community IDs; a negative value skips the hash check. */
    private final int communityIdSeed;
    /**
     * Flows whose Community ID was already checked against their tuple: a flow sends hundreds of
     * packets, and the hash is most of the cost of reading one. Bounded: cleared when full.
     */
    private final Map<String, Flow> checked = new HashMap<>();
    private static final int MAX_CHECKED = 100_000;

    private record Flow(String origH, int origP, String respH, int respP) {
    }

    public PacketEventJson(int communityIdSeed) {
        this.communityIdSeed = communityIdSeed;
    }

    /** Default codec: seed 0, hash checked. */
    public static PacketEventJson standard() {
        return new PacketEventJson(0);
    }

    public PacketEvent parse(byte[] json) throws InvalidEventException {
        try (JsonParser p = FACTORY.createParser(json)) {
            return read(p);
        } catch (JsonProcessingException e) {
            throw new InvalidEventException(EventError.MALFORMED_JSON, null, "not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public PacketEvent parse(String json) throws InvalidEventException {
        return parse(json.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    private PacketEvent read(JsonParser p) throws IOException, InvalidEventException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            throw new InvalidEventException(EventError.MALFORMED_JSON, null, "a packet event must be a JSON object");
        }
        Fields f = new Fields();
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            p.nextToken();
            readField(p, name, f);
        }
        if (t != JsonToken.END_OBJECT) {
            throw new InvalidEventException(EventError.MALFORMED_JSON, null, "unexpected " + t);
        }
        if (p.nextToken() != null) {
            throw new InvalidEventException(EventError.MALFORMED_JSON, null, "trailing content after the event");
        }
        Flow flow = new Flow(f.origH, f.origP, f.respH, f.respP);
        boolean known = f.communityId != null && flow.equals(checked.get(f.communityId));
        PacketEvent e = f.build(known ? -1 : communityIdSeed);
        if (!known && communityIdSeed >= 0) {
            if (checked.size() >= MAX_CHECKED) {
                checked.clear();
            }
            checked.put(e.communityId(), flow);
        }
        return e;
    }

    /** [A-Za-z0-9._:@/-]{1,128}, checked by hand: a regex matcher per event costs more than the rest of the checks. */
    private static boolean sensorName(String s) {
        if (s.isEmpty() || s.length() > 128) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(alphanumeric(c) || c == '.' || c == '_' || c == ':' || c == '@' || c == '/' || c == '-')) {
                return false;
            }
        }
        return true;
    }

    /** 1:[A-Za-z0-9+/]{27}= (a v1 Community ID in base64). */
    private static boolean communityIdForm(String s) {
        if (s.length() != 30 || !s.startsWith("1:") || s.charAt(29) != '=') {
            return false;
        }
        for (int i = 2; i < 29; i++) {
            char c = s.charAt(i);
            if (!(alphanumeric(c) || c == '+' || c == '/')) {
                return false;
            }
        }
        return true;
    }

    private static boolean alphanumeric(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    }

    private static void readField(JsonParser p, String name, Fields f) throws IOException, InvalidEventException {
        switch (name) {
            case "sensor" -> {
                f.sensor = string(p, name);
                if (!sensorName(f.sensor)) {
                    throw bad(name, "sensor must be 1-128 characters of [A-Za-z0-9._:@/-]");
                }
            }
            case "sensor_role" -> {
                f.role = SensorRole.fromWire(string(p, name));
                if (f.role == null) {
                    throw bad(name, "sensor_role must be client, server or unknown");
                }
            }
            case "ts_us" -> f.tsUs = integer(p, name, MIN_TS_US, MAX_TS_US);
            case "community_id" -> {
                f.communityId = string(p, name);
                if (!communityIdForm(f.communityId)) {
                    throw bad(name, "community_id must be a v1 base64 Community ID like 1:wCb3OG7yAFWelaUydu0D+125CLM=");
                }
            }
            case "orig_h" -> f.origH = address(p, name);
            case "resp_h" -> f.respH = address(p, name);
            case "orig_p" -> f.origP = (int) integer(p, name, 0, 65535);
            case "resp_p" -> f.respP = (int) integer(p, name, 0, 65535);
            case "is_orig" -> f.isOrig = bool(p, name);
            case "flags" -> f.flags = (int) integer(p, name, 0, 255);
            case "seq" -> f.seq = integer(p, name, 0, U32_MAX);
            case "ack" -> f.ack = integer(p, name, 0, U32_MAX);
            case "len" -> f.len = (int) integer(p, name, 0, MAX_LEN);
            case "win" -> f.win = (int) integer(p, name, 0, 65535);
            case "wscale" -> f.wscale = (int) integer(p, name, 0, 255);
            case "mss" -> f.mss = (int) integer(p, name, 0, 65535);
            case "sack_ok" -> f.sackOk = bool(p, name);
            case "sack" -> f.sack = sackBlocks(p, name);
            case "tsval" -> f.tsval = integer(p, name, 0, U32_MAX);
            case "tsecr" -> f.tsecr = integer(p, name, 0, U32_MAX);
            case "ip_id" -> f.ipId = (int) integer(p, name, 0, 65535);
            case "ttl" -> f.ttl = (int) integer(p, name, 0, 255);
            case "capture_index" -> f.captureIndex = integer(p, name, 0, Long.MAX_VALUE);
            default -> p.skipChildren(); // unknown fields (e.g. Zeek's _path) are allowed
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

    private static long integer(JsonParser p, String name, long min, long max) throws IOException, InvalidEventException {
        if (p.currentToken() != JsonToken.VALUE_NUMBER_INT) {
            throw wrongType(p, name, "an integer");
        }
        if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
            throw new InvalidEventException(EventError.OUT_OF_RANGE, name, name + " is out of range [" + min + ", " + max + "]");
        }
        long v = p.getLongValue();
        if (v < min || v > max) {
            throw new InvalidEventException(EventError.OUT_OF_RANGE, name, name + " = " + v + " is out of range [" + min + ", " + max + "]");
        }
        return v;
    }

    private static String address(JsonParser p, String name) throws IOException, InvalidEventException {
        String s = string(p, name);
        if (IpText.parse(s) == null) {
            throw bad(name, name + " '" + abbreviate(s) + "' is not an IPv4 or IPv6 address");
        }
        return s;
    }

    private static long[] sackBlocks(JsonParser p, String name) throws IOException, InvalidEventException {
        if (p.currentToken() != JsonToken.START_ARRAY) {
            throw wrongType(p, name, "an array");
        }
        long[] buf = new long[8];
        int n = 0;
        while (p.nextToken() != JsonToken.END_ARRAY) {
            long v = integer(p, name, 0, U32_MAX);
            if (n == 8) {
                throw bad(name, "sack holds at most 4 blocks (8 numbers)");
            }
            buf[n++] = v;
        }
        if (n % 2 != 0) {
            throw bad(name, "sack must hold left/right pairs (an even count)");
        }
        return java.util.Arrays.copyOf(buf, n);
    }

    private static InvalidEventException wrongType(JsonParser p, String name, String expected) {
        return new InvalidEventException(EventError.WRONG_TYPE, name, name + " must be " + expected + ", got " + p.currentToken());
    }

    private static InvalidEventException bad(String name, String message) {
        return new InvalidEventException(EventError.BAD_FORMAT, name, message);
    }

    private static String abbreviate(String s) {
        return s.length() <= 48 ? s : s.substring(0, 45) + "...";
    }

    /** Collects fields in any order; absent optional values stay at ABSENT/null. */
    private static final class Fields {
        String sensor;
        SensorRole role;
        long tsUs = Long.MIN_VALUE;
        String communityId;
        String origH;
        String respH;
        int origP = -1;
        int respP = -1;
        Boolean isOrig;
        int flags = -1;
        long seq = -1;
        long ack = -1;
        int len = -1;
        int win = -1;
        int wscale = PacketEvent.ABSENT;
        int mss = PacketEvent.ABSENT;
        Boolean sackOk;
        long[] sack;
        long tsval = PacketEvent.ABSENT;
        long tsecr = PacketEvent.ABSENT;
        int ipId = PacketEvent.ABSENT;
        int ttl = -1;
        long captureIndex = PacketEvent.ABSENT;

        /** @param seed the Community ID seed to check the hash with, or negative when it was checked before */
        PacketEvent build(int seed) throws InvalidEventException {
            require(sensor != null, "sensor");
            require(tsUs != Long.MIN_VALUE, "ts_us");
            require(communityId != null, "community_id");
            require(origH != null, "orig_h");
            require(origP >= 0, "orig_p");
            require(respH != null, "resp_h");
            require(respP >= 0, "resp_p");
            require(isOrig != null, "is_orig");
            require(flags >= 0, "flags");
            require(seq >= 0, "seq");
            require(ack >= 0, "ack");
            require(len >= 0, "len");
            require(win >= 0, "win");
            require(ttl >= 0, "ttl");
            byte[] o = IpText.parse(origH);
            byte[] r = IpText.parse(respH);
            if (o.length != r.length) {
                throw new InvalidEventException(EventError.BAD_FORMAT, "resp_h", "orig_h and resp_h mix IPv4 and IPv6");
            }
            if (seed >= 0) {
                String expected = CommunityId.tcpV1(o, origP, r, respP, seed);
                if (!expected.equals(communityId)) {
                    throw new InvalidEventException(EventError.COMMUNITY_ID_MISMATCH, "community_id",
                            "community_id " + communityId + " does not match the 5-tuple (expected " + expected + " with seed " + seed + ")");
                }
            }
            return new PacketEvent(sensor, role, tsUs, communityId, origH, origP, respH, respP, isOrig, flags,
                    seq, ack, len, win, wscale, mss, sackOk, sack, tsval, tsecr, ipId, ttl, captureIndex);
        }

        private static void require(boolean present, String field) throws InvalidEventException {
            if (!present) {
                throw new InvalidEventException(EventError.MISSING_FIELD, field, "required field " + field + " is missing");
            }
        }
    }

    /** The event as one line of JSON with the schema's field names; absent optional fields are omitted. */
    public static String toJson(PacketEvent e) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(320);
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            write(e, g);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return out.toString(java.nio.charset.StandardCharsets.UTF_8);
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
