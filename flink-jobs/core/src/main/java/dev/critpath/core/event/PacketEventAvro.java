package dev.critpath.core.event;

import static dev.critpath.core.event.EventField.ACK;
import static dev.critpath.core.event.EventField.CAPTURE_INDEX;
import static dev.critpath.core.event.EventField.COMMUNITY_ID;
import static dev.critpath.core.event.EventField.FLAGS;
import static dev.critpath.core.event.EventField.IP_ID;
import static dev.critpath.core.event.EventField.LEN;
import static dev.critpath.core.event.EventField.MSS;
import static dev.critpath.core.event.EventField.ORIG_H;
import static dev.critpath.core.event.EventField.ORIG_P;
import static dev.critpath.core.event.EventField.RESP_H;
import static dev.critpath.core.event.EventField.RESP_P;
import static dev.critpath.core.event.EventField.SACK;
import static dev.critpath.core.event.EventField.SENSOR;
import static dev.critpath.core.event.EventField.SEQ;
import static dev.critpath.core.event.EventField.TSECR;
import static dev.critpath.core.event.EventField.TSVAL;
import static dev.critpath.core.event.EventField.TS_US;
import static dev.critpath.core.event.EventField.TTL;
import static dev.critpath.core.event.EventField.WIN;
import static dev.critpath.core.event.EventField.WSCALE;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads and writes packet events in Avro's single-object encoding of schemas/packet-event.avsc:
 * C3 01, the schema's CRC-64-AVRO fingerprint (8 bytes, little-endian), then the record in Avro's
 * binary encoding. Every rule of the contract is checked as for JSON, with the same error codes;
 * besides, a record cut short, running on, or holding a union branch, enum symbol or varint that
 * cannot be is MALFORMED_AVRO, and one written with another schema UNKNOWN_SCHEMA. Written by hand
 * for this one schema: a generic Avro reader builds a record of objects per event, and resolving
 * another writer schema is left to the day there is one.
 */
public final class PacketEventAvro {
    /** CRC-64-AVRO of packet-event.avsc's parsing canonical form (held to Avro's own by a test). */
    public static final long FINGERPRINT = 0x08ad3119534b12b1L;
    /** The magic and the fingerprint before every record. */
    public static final int HEADER_BYTES = 10;
    private static final byte[] HEADER = headerBytes();
    /** The avsc's SensorRole symbols, in their order. */
    private static final SensorRole[] ROLES = {SensorRole.CLIENT, SensorRole.SERVER, SensorRole.UNKNOWN};

    private final CheckedFlows flows;
    private final StringCache strings = new StringCache(1 << 14);
    private byte[] b;
    private int i;
    private int end;

    /** @param communityIdSeed seed the fleet's sensors use for Community IDs; a negative value skips the hash check */
    public PacketEventAvro(int communityIdSeed) {
        this.flows = new CheckedFlows(communityIdSeed);
    }

    /** Default codec: seed 0, hash checked. */
    public static PacketEventAvro standard() {
        return new PacketEventAvro(0);
    }

    /** Whether a record starts as an Avro single-object record does (C3 01), whatever schema wrote it. */
    public static boolean isAvro(byte[] record) {
        return record.length >= 2 && record[0] == HEADER[0] && record[1] == HEADER[1];
    }

    /** The event of one record that holds it exactly, header included. */
    public PacketEvent parse(byte[] record) throws InvalidEventException {
        PacketEvent e = parse(record, 0, record.length);
        if (i != record.length) {
            throw malformed((record.length - i) + " bytes after the record's end");
        }
        return e;
    }

    /** The event of the record that starts at b[from], reading no further than b[to - 1]; {@link #position()} then says where it ended. */
    PacketEvent parse(byte[] bytes, int from, int to) throws InvalidEventException {
        b = bytes;
        i = from;
        end = to;
        try {
            readHeader();
            return flows.build(record());
        } finally {
            b = null;
        }
    }

    /** Where the last record read ended (or reading stopped). */
    int position() {
        return i;
    }

    /** Whether b holds the header of a record of this schema at {@code at}. */
    static boolean headerAt(byte[] bytes, int at, int to) {
        return to - at >= HEADER_BYTES && Arrays.equals(bytes, at, at + HEADER_BYTES, HEADER, 0, HEADER_BYTES);
    }

    private void readHeader() throws InvalidEventException {
        if (end - i < HEADER_BYTES) {
            throw malformed("cut short");
        }
        if (b[i] != HEADER[0] || b[i + 1] != HEADER[1]) {
            throw malformed("not an Avro single-object record (it starts with C3 01)");
        }
        if (!headerAt(b, i, end)) {
            long fingerprint = 0;
            for (int k = 9; k >= 2; k--) {
                fingerprint = fingerprint << 8 | (b[i + k] & 0xff);
            }
            throw new InvalidEventException(EventError.UNKNOWN_SCHEMA, null, String.format(
                    "written with the schema of fingerprint %016x; this reader knows packet-event.avsc, %016x", fingerprint, FINGERPRINT));
        }
        i += HEADER_BYTES;
    }

    /** The fields in the avsc's order (PacketEventFieldsTest holds EventField to it). */
    private EventFields record() throws InvalidEventException {
        EventFields f = new EventFields();
        f.sensor = string(SENSOR);
        if (present()) {
            f.role = role();
        }
        integer(f, TS_US, false);
        f.communityId = string(COMMUNITY_ID);
        f.origH = string(ORIG_H);
        integer(f, ORIG_P, true);
        f.respH = string(RESP_H);
        integer(f, RESP_P, true);
        f.isOrig = bool();
        integer(f, FLAGS, true);
        integer(f, SEQ, false);
        integer(f, ACK, false);
        integer(f, LEN, true);
        integer(f, WIN, true);
        if (present()) {
            integer(f, WSCALE, true);
        }
        if (present()) {
            integer(f, MSS, true);
        }
        if (present()) {
            f.sackOk = bool();
        }
        if (present()) {
            f.sack = sack();
        }
        if (present()) {
            integer(f, TSVAL, false);
        }
        if (present()) {
            integer(f, TSECR, false);
        }
        if (present()) {
            integer(f, IP_ID, true);
        }
        integer(f, TTL, true);
        if (present()) {
            integer(f, CAPTURE_INDEX, false);
        }
        return f;
    }

    /** An optional field's union branch: false for null, true for the value that follows. */
    private boolean present() throws InvalidEventException {
        long branch = varint(5);
        if (branch != 0 && branch != 1) {
            throw malformed("union branch " + branch + " of an optional field (0 null, 1 the value)");
        }
        return branch == 1;
    }

    private SensorRole role() throws InvalidEventException {
        long symbol = varint(5);
        if (symbol < 0 || symbol >= ROLES.length) {
            throw malformed("sensor_role symbol " + symbol + " of " + ROLES.length);
        }
        return ROLES[(int) symbol];
    }

    private boolean bool() throws InvalidEventException {
        if (i >= end) {
            throw malformed("cut short");
        }
        byte v = b[i++];
        if (v != 0 && v != 1) {
            throw malformed("a boolean byte " + v);
        }
        return v == 1;
    }

    /** An Avro int (at most 5 bytes, 32 bits) or long, checked against the field's range. */
    private void integer(EventFields f, EventField field, boolean avroInt) throws InvalidEventException {
        long v = number(field, avroInt);
        if (!field.inRange(v)) {
            throw field.outOfRange(v);
        }
        f.setInteger(field, v);
    }

    private long number(EventField field, boolean avroInt) throws InvalidEventException {
        long v = varint(avroInt ? 5 : 10);
        if (avroInt && v != (int) v) {
            throw malformed(field.wire + " = " + v + " does not fit the 32 bits of an Avro int");
        }
        return v;
    }

    private String string(EventField field) throws InvalidEventException {
        long n = varint(10);
        if (n < 0 || n > end - i) {
            throw malformed(field.wire + " of " + n + " bytes where " + (end - i) + " remain");
        }
        int from = i;
        i += (int) n;
        String s = strings.intern(field.kind.ordinal(), b, from, i, field.form);
        if (s == null) {
            throw field.badForm(new String(b, from, i - from, StandardCharsets.UTF_8));
        }
        return s;
    }

    /** The SACK array: blocks of items, each block's count first (negative: its byte size follows), a zero count last. */
    private long[] sack() throws InvalidEventException {
        long[] buf = new long[EventField.MAX_SACK_NUMBERS];
        int n = 0;
        for (long count = varint(10); count != 0; count = varint(10)) {
            if (count < 0) {
                count = -count;
                varint(10); // the block's size in bytes, for readers that skip it
            }
            for (long k = 0; k < count; k++) {
                long v = number(SACK, false);
                if (n == buf.length) {
                    throw SACK.tooManySackNumbers();
                }
                if (!SACK.inRange(v)) {
                    throw SACK.outOfRange(v);
                }
                buf[n++] = v;
            }
        }
        if (n % 2 != 0) {
            throw SACK.oddSack();
        }
        return Arrays.copyOf(buf, n);
    }

    /** A zig-zag varint of at most maxBytes bytes. */
    private long varint(int maxBytes) throws InvalidEventException {
        long raw = 0;
        for (int k = 0; k < maxBytes; k++) {
            if (i >= end) {
                throw malformed("cut short");
            }
            byte v = b[i++];
            raw |= (long) (v & 0x7f) << (7 * k);
            if (v >= 0) {
                return (raw >>> 1) ^ -(raw & 1);
            }
        }
        throw malformed("a varint longer than " + maxBytes + " bytes");
    }

    private static InvalidEventException malformed(String why) {
        return new InvalidEventException(EventError.MALFORMED_AVRO, null, "not a valid Avro record of packet-event.avsc: " + why);
    }

    /** The single-object record of an event: what the compiled Zeek sensor writes for it. */
    public static byte[] encode(PacketEvent e) {
        Out o = new Out();
        o.raw(HEADER);
        o.string(e.sensor());
        if (e.sensorRole() == null) {
            o.varint(0);
        } else {
            o.varint(1);
            o.varint(Arrays.asList(ROLES).indexOf(e.sensorRole()));
        }
        o.varint(e.tsUs());
        o.string(e.communityId());
        o.string(e.origH());
        o.varint(e.origP());
        o.string(e.respH());
        o.varint(e.respP());
        o.bool(e.isOrig());
        o.varint(e.flags());
        o.varint(e.seq());
        o.varint(e.ack());
        o.varint(e.len());
        o.varint(e.win());
        o.optional(e.wscale());
        o.optional(e.mss());
        if (e.sackOk() == null) {
            o.varint(0);
        } else {
            o.varint(1);
            o.bool(e.sackOk());
        }
        if (e.sack() == null) {
            o.varint(0);
        } else {
            o.varint(1);
            if (e.sack().length > 0) {
                o.varint(e.sack().length);
                for (long v : e.sack()) {
                    o.varint(v);
                }
            }
            o.varint(0);
        }
        o.optional(e.tsval());
        o.optional(e.tsecr());
        o.optional(e.ipId());
        o.varint(e.ttl());
        o.optional(e.captureIndex());
        return o.bytes();
    }

    private static byte[] headerBytes() {
        byte[] h = new byte[HEADER_BYTES];
        h[0] = (byte) 0xC3;
        h[1] = 0x01;
        for (int k = 0; k < 8; k++) {
            h[2 + k] = (byte) (FINGERPRINT >>> (8 * k));
        }
        return h;
    }

    /** Avro's binary encoding into a growing array. */
    private static final class Out {
        private byte[] buf = new byte[160];
        private int n;

        void raw(byte[] v) {
            ensure(v.length);
            System.arraycopy(v, 0, buf, n, v.length);
            n += v.length;
        }

        void varint(long v) {
            ensure(10);
            long z = (v << 1) ^ (v >> 63);
            while ((z & ~0x7fL) != 0) {
                buf[n++] = (byte) ((z & 0x7f) | 0x80);
                z >>>= 7;
            }
            buf[n++] = (byte) z;
        }

        void bool(boolean v) {
            ensure(1);
            buf[n++] = (byte) (v ? 1 : 0);
        }

        void string(String s) {
            byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            varint(utf8.length);
            raw(utf8);
        }

        /** An optional number: null, or its value. */
        void optional(long v) {
            if (v == PacketEvent.ABSENT) {
                varint(0);
            } else {
                varint(1);
                varint(v);
            }
        }

        private void ensure(int more) {
            if (n + more > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, n + more));
            }
        }

        byte[] bytes() {
            return Arrays.copyOf(buf, n);
        }
    }
}
