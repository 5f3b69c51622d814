package dev.critpath.core.event;

import java.util.Arrays;

/**
 * Reads a packet event in the plain form sensors write (one flat JSON object, ASCII strings
 * without escapes, non-negative integers) in one pass over its bytes, without a general JSON
 * parser: Jackson's set-up and tokens cost more than the rest of the streaming job's reading.
 * Returns null for anything else, valid or not (escapes, nesting in unknown fields, floats,
 * any broken rule), and {@link PacketEventJson} then reads the record with Jackson, which also
 * says what is wrong. So this reader never decides that a record is invalid.
 */
final class FlatEventReader {
    private final StringCache strings = new StringCache(1 << 14);
    private byte[] b;
    private int i;

    /** The record's fields, each in its range and form, or null when the full parser must decide. */
    EventFields read(byte[] json) {
        b = json;
        i = 0;
        try {
            return object();
        } finally {
            b = null;
        }
    }

    private EventFields object() {
        skipSpace();
        if (!take('{')) {
            return null;
        }
        EventFields f = new EventFields();
        EventField previous = null;
        skipSpace();
        if (!take('}')) {
            do {
                skipSpace();
                if (!take('"')) {
                    return null;
                }
                EventField field = EventField.named(b, i, previous);
                if (field != null) {
                    i += field.wire.length() + 1;
                } else if (plainStringEnd() < 0) {
                    return null;
                }
                skipSpace();
                if (!take(':')) {
                    return null;
                }
                skipSpace();
                if (!(field == null ? skipScalar() : value(field, f))) {
                    return null;
                }
                if (field != null) {
                    previous = field;
                }
                skipSpace();
            } while (take(','));
            if (!take('}')) {
                return null;
            }
        }
        skipSpace();
        return i == b.length ? f : null;
    }

    private boolean value(EventField field, EventFields f) {
        switch (field.kind) {
            case INTEGER -> {
                long v = integer();
                if (v < 0 || !field.inRange(v)) {
                    return false;
                }
                f.setInteger(field, v);
            }
            case BOOL -> {
                int v = bool();
                if (v < 0) {
                    return false;
                }
                f.setBoolean(field, v == 1);
            }
            case SACK -> {
                long[] sack = sack(field);
                if (sack == null) {
                    return false;
                }
                f.sack = sack;
            }
            default -> {
                String s = validString(field);
                if (s == null) {
                    return false;
                }
                f.setString(field, s);
            }
        }
        return true;
    }

    /** A string value that has the field's form, the same instance for the same bytes while cached. */
    private String validString(EventField field) {
        if (!take('"')) {
            return null;
        }
        int from = i;
        int to = plainStringEnd();
        if (to < 0) {
            return null;
        }
        return strings.intern(field.kind.ordinal(), b, from, to, field.form);
    }

    /** After an opening quote: the end of a string of printable ASCII without escapes (position of its closing quote, now passed), or -1. */
    private int plainStringEnd() {
        for (int j = i; j < b.length; j++) {
            byte c = b[j];
            if (c == '"') {
                i = j + 1;
                return j;
            }
            if (c == '\\' || c < 0x20) { // escapes, control bytes, and (negative) non-ASCII bytes
                return -1;
            }
        }
        return -1;
    }

    /** A non-negative integer of at most 18 digits without leading zeros, ended by a delimiter, or -1. */
    private long integer() {
        int from = i;
        long v = 0;
        while (i < b.length && b[i] >= '0' && b[i] <= '9') {
            v = v * 10 + (b[i++] - '0');
        }
        int digits = i - from;
        if (digits == 0 || digits > 18 || (digits > 1 && b[from] == '0') || !delimited()) {
            return -1;
        }
        return v;
    }

    /** 1 for true, 0 for false, -1 for anything else. */
    private int bool() {
        if (literal("true")) {
            return 1;
        }
        return literal("false") ? 0 : -1;
    }

    private boolean literal(String word) {
        int n = word.length();
        if (i + n > b.length) {
            return false;
        }
        for (int k = 0; k < n; k++) {
            if (b[i + k] != word.charAt(k)) {
                return false;
            }
        }
        i += n;
        if (delimited()) {
            return true;
        }
        i -= n;
        return false;
    }

    /** [left, right, ...]: an even count of at most 8 numbers, each in range, or null. */
    private long[] sack(EventField field) {
        if (!take('[')) {
            return null;
        }
        long[] buf = new long[EventField.MAX_SACK_NUMBERS];
        int n = 0;
        skipSpace();
        if (!take(']')) {
            do {
                skipSpace();
                long v = integer();
                if (v < 0 || !field.inRange(v) || n == buf.length) {
                    return null;
                }
                buf[n++] = v;
                skipSpace();
            } while (take(','));
            if (!take(']')) {
                return null;
            }
        }
        return n % 2 == 0 ? Arrays.copyOf(buf, n) : null;
    }

    /** An unknown field's value, when it is a plain string, a non-negative integer or a boolean. */
    private boolean skipScalar() {
        if (take('"')) {
            return plainStringEnd() >= 0;
        }
        return integer() >= 0 || bool() >= 0;
    }

    private boolean delimited() {
        if (i == b.length) {
            return true;
        }
        byte c = b[i];
        return c == ',' || c == '}' || c == ']' || space(c);
    }

    private void skipSpace() {
        while (i < b.length && space(b[i])) {
            i++;
        }
    }

    private static boolean space(byte c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r';
    }

    private boolean take(char c) {
        if (i < b.length && b[i] == c) {
            i++;
            return true;
        }
        return false;
    }
}
