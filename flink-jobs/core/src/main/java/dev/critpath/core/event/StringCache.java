package dev.critpath.core.event;

import java.util.Arrays;

/**
 * Strings by their bytes: a flow repeats its sensor, Community ID and addresses in every packet, so
 * each is decoded (and checked, by the caller) once while it stays here, and equal values share one
 * instance, with its hash code, instead of a copy per buffered packet. Keys carry a tag, e.g. the
 * kind of field a value was checked for. Fixed size: a full neighbourhood evicts its first entry.
 * Not thread-safe: one per reader.
 */
public final class StringCache {
    private static final int PROBES = 4;

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

    /** The string cached for the bytes b[from, to) under this tag, or null; {@code hash} is {@link #hash} of the bytes. */
    public String get(int tag, byte[] b, int from, int to, int hash) {
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

    public void put(int tag, byte[] b, int from, int to, int hash, String value) {
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

    /** The hash of the bytes b[from, to) that get and put take (callers that scan the bytes anyway fold it in as they go). */
    public static int hash(byte[] b, int from, int to) {
        int h = 0;
        for (int j = from; j < to; j++) {
            h = next(h, b[j]);
        }
        return h;
    }

    /** One step of {@link #hash}. */
    static int next(int h, byte b) {
        return 31 * h + b;
    }

    private static int spread(int tag, int hash) {
        int h = hash * 31 + tag;
        return h ^ (h >>> 16);
    }

    /** A plain loop: these keys are short, where Arrays.equals' vectorised setup costs more than it saves. */
    private static boolean same(byte[] key, byte[] b, int from, int to) {
        if (key.length != to - from) {
            return false;
        }
        for (int k = 0; k < key.length; k++) {
            if (key[k] != b[from + k]) {
                return false;
            }
        }
        return true;
    }
}
