package dev.critpath.core.event;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.Predicate;

/**
 * Strings by their bytes: a flow repeats its sensor, Community ID and addresses in every packet, so
 * each is decoded (and checked, by the caller) once while it stays here, and equal values share one
 * instance, with its hash code, instead of a copy per buffered packet. Keys carry a tag, e.g. the
 * kind of field a value was checked for. Fixed size: a full neighbourhood evicts its first entry.
 * Not thread-safe: one per reader.
 */
public final class StringCache {
    private static final int PROBES = 4;
    private static final VarHandle WORDS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final byte[][] keys;
    private final int[] tags;
    private final String[] values;
    private final int mask;

    /** @param capacity entries, a power of two */
    public StringCache(int capacity) {
        if (Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity must be a power of two: " + capacity);
        }
        keys = new byte[capacity][];
        tags = new int[capacity];
        values = new String[capacity];
        mask = capacity - 1;
    }

    /**
     * The string of the bytes b[from, to) under this tag: the cached instance, else the bytes
     * decoded as UTF-8 and cached if {@code valid} accepts them; null if it does not.
     */
    public String intern(int tag, byte[] b, int from, int to, Predicate<String> valid) {
        int hash = hash(b, from, to);
        String s = get(tag, b, from, to, hash);
        if (s == null) {
            s = new String(b, from, to - from, StandardCharsets.UTF_8);
            if (!valid.test(s)) {
                return null;
            }
            put(tag, b, from, to, hash, s);
        }
        return s;
    }

    /** The string cached for the bytes b[from, to) under this tag, or null; {@code hash} is {@link #hash} of the same bytes. */
    String get(int tag, byte[] b, int from, int to, int hash) {
        int h = spread(tag, hash);
        for (int p = 0; p < PROBES; p++) {
            int slot = (h + p) & mask;
            byte[] k = keys[slot];
            if (k == null) {
                return null;
            }
            if (tags[slot] == tag && same(k, b, from, to)) {
                return values[slot];
            }
        }
        return null;
    }

    void put(int tag, byte[] b, int from, int to, int hash, String value) {
        int h = spread(tag, hash);
        int slot = h & mask;
        for (int p = 0; p < PROBES; p++) {
            if (keys[(h + p) & mask] == null) {
                slot = (h + p) & mask;
                break;
            }
        }
        keys[slot] = Arrays.copyOfRange(b, from, to);
        tags[slot] = tag;
        values[slot] = value;
    }

    /**
     * The hash of the bytes b[from, to) that get and put take: their length and first and last
     * eight bytes, so that it costs the same for any length (get compares the whole key anyway).
     */
    static int hash(byte[] b, int from, int to) {
        int n = to - from;
        long head = 0;
        long tail = 0;
        if (n >= 8) {
            head = (long) WORDS.get(b, from);
            tail = (long) WORDS.get(b, to - 8);
        } else {
            for (int j = from; j < to; j++) {
                head = head << 8 | (b[j] & 0xff);
            }
        }
        long h = head * 0x9E3779B97F4A7C15L ^ Long.rotateLeft(tail * 0xC2B2AE3D27D4EB4FL, 31) ^ n;
        return (int) (h ^ (h >>> 32));
    }

    private static int spread(int tag, int hash) {
        int h = hash * 31 + tag;
        return h ^ (h >>> 16);
    }

    /** Eight bytes at a time: keys are short, where Arrays.equals' vectorised set-up costs more than it saves. */
    private static boolean same(byte[] key, byte[] b, int from, int to) {
        int n = key.length;
        if (n != to - from) {
            return false;
        }
        int k = 0;
        for (; k + 8 <= n; k += 8) {
            if ((long) WORDS.get(key, k) != (long) WORDS.get(b, from + k)) {
                return false;
            }
        }
        for (; k < n; k++) {
            if (key[k] != b[from + k]) {
                return false;
            }
        }
        return true;
    }
}
