package dev.critpath.core.event;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The packet-event fields of schemas/packet-event.schema.json, with each one's JSON type and range,
 * in the order the Zeek package and {@link PacketEventJson} write them.
 */
enum EventField {
    SENSOR("sensor", Kind.SENSOR),
    SENSOR_ROLE("sensor_role", Kind.ROLE),
    TS_US("ts_us", PacketEventJson.MIN_TS_US, PacketEventJson.MAX_TS_US),
    COMMUNITY_ID("community_id", Kind.COMMUNITY_ID),
    ORIG_H("orig_h", Kind.ADDRESS),
    ORIG_P("orig_p", 0, 65535),
    RESP_H("resp_h", Kind.ADDRESS),
    RESP_P("resp_p", 0, 65535),
    IS_ORIG("is_orig", Kind.BOOL),
    FLAGS("flags", 0, 255),
    SEQ("seq", 0, EventField.U32_MAX),
    ACK("ack", 0, EventField.U32_MAX),
    LEN("len", 0, PacketEventJson.MAX_LEN),
    WIN("win", 0, 65535),
    WSCALE("wscale", 0, 255),
    MSS("mss", 0, 65535),
    SACK_OK("sack_ok", Kind.BOOL),
    SACK("sack", Kind.SACK, 0, EventField.U32_MAX),
    TSVAL("tsval", 0, EventField.U32_MAX),
    TSECR("tsecr", 0, EventField.U32_MAX),
    IP_ID("ip_id", 0, 65535),
    TTL("ttl", 0, 255),
    CAPTURE_INDEX("capture_index", 0, Long.MAX_VALUE);

    enum Kind { SENSOR, ROLE, COMMUNITY_ID, ADDRESS, INTEGER, BOOL, SACK }

    static final long U32_MAX = 0xffff_ffffL;
    private static final VarHandle WORDS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    /** SACK blocks are 32-bit sequence numbers, at most 4 left/right pairs. */
    static final int MAX_SACK_NUMBERS = 8;

    private static final Map<String, EventField> BY_NAME = new HashMap<>();
    private static final EventField[] VALUES = values();

    static {
        for (EventField f : VALUES) {
            BY_NAME.put(f.wire, f);
        }
    }

    final String wire;
    final Kind kind;
    final long min;
    final long max;
    private final byte[] wireBytes;
    /** {@link #validString} as a value, made once: readers pass it per string read. */
    final Predicate<String> form;
    /** The name and its closing quote as two little-endian words, and masks of the bytes that count. */
    private final long quoted0;
    private final long quoted1;
    private final long mask0;
    private final long mask1;

    EventField(String wire, Kind kind) {
        this(wire, kind, 0, 0);
    }

    EventField(String wire, long min, long max) {
        this(wire, Kind.INTEGER, min, max);
    }

    EventField(String wire, Kind kind, long min, long max) {
        this.wire = wire;
        this.kind = kind;
        this.min = min;
        this.max = max;
        this.wireBytes = wire.getBytes(StandardCharsets.US_ASCII);
        this.form = this::validString;
        byte[] withQuote = (wire + '"').getBytes(StandardCharsets.US_ASCII);
        long[] words = new long[2];
        long[] masks = new long[2];
        for (int k = 0; k < withQuote.length; k++) {
            words[k / 8] |= (withQuote[k] & 0xffL) << (8 * (k % 8));
            masks[k / 8] |= 0xffL << (8 * (k % 8));
        }
        quoted0 = words[0];
        quoted1 = words[1];
        mask0 = masks[0];
        mask1 = masks[1];
    }

    /** The field with this wire name, or null for names the schema does not know (allowed, ignored). */
    static EventField byName(String name) {
        return BY_NAME.get(name);
    }

    /**
     * The field whose name, with its closing quote, stands in b at {@code at}, or null for a name
     * the schema does not know. Tries the fields after {@code previous} first, since writers keep
     * the schema's order and leave out only absent optional fields.
     */
    static EventField named(byte[] b, int at, EventField previous) {
        int start = previous == null ? 0 : previous.ordinal() + 1;
        for (int k = 0; k < VALUES.length; k++) {
            EventField f = VALUES[(start + k) % VALUES.length];
            if (f.namedAt(b, at)) {
                return f;
            }
        }
        return null;
    }

    /** Whether b holds this field's name at {@code at}, followed by its closing quote. */
    boolean namedAt(byte[] b, int at) {
        if (at + 16 <= b.length) { // the name and quote (at most 14 bytes) as two 8-byte words
            return ((long) WORDS.get(b, at) & mask0) == quoted0 && ((long) WORDS.get(b, at + 8) & mask1) == quoted1;
        }
        int n = wireBytes.length;
        if (at + n >= b.length || b[at + n] != '"') {
            return false;
        }
        for (int k = 0; k < n; k++) {
            if (b[at + k] != wireBytes[k]) {
                return false;
            }
        }
        return true;
    }

    boolean inRange(long v) {
        return v >= min && v <= max;
    }

    /** 1-128 characters of [A-Za-z0-9._:@/-], checked by hand: a regex matcher per event costs more than the rest of the checks. */
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

    /** The verdict on a value outside the range; null: too large to say. */
    InvalidEventException outOfRange(Long v) {
        return new InvalidEventException(EventError.OUT_OF_RANGE, wire,
                wire + (v == null ? "" : " = " + v) + " is out of range [" + min + ", " + max + "]");
    }

    /** The verdict on a string value without this field's form ({@link #validString} false). */
    InvalidEventException badForm(String s) {
        return new InvalidEventException(EventError.BAD_FORMAT, wire, switch (kind) {
            case SENSOR -> "sensor must be 1-128 characters of [A-Za-z0-9._:@/-]";
            case ROLE -> "sensor_role must be client, server or unknown";
            case COMMUNITY_ID -> "community_id must be a v1 base64 Community ID like 1:wCb3OG7yAFWelaUydu0D+125CLM=";
            default -> wire + " '" + (s.length() <= 48 ? s : s.substring(0, 45) + "...") + "' is not an IPv4 or IPv6 address";
        });
    }

    InvalidEventException tooManySackNumbers() {
        return new InvalidEventException(EventError.BAD_FORMAT, wire, "sack holds at most 4 blocks (8 numbers)");
    }

    InvalidEventException oddSack() {
        return new InvalidEventException(EventError.BAD_FORMAT, wire, "sack must hold left/right pairs (an even count)");
    }

    /** Whether s has the form this string-valued field requires. */
    boolean validString(String s) {
        return switch (kind) {
            case SENSOR -> sensorName(s);
            case ROLE -> SensorRole.fromWire(s) != null;
            case COMMUNITY_ID -> communityIdForm(s);
            case ADDRESS -> IpText.parse(s) != null;
            default -> throw new IllegalStateException(wire + " is not a string field");
        };
    }
}
