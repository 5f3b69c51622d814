package dev.critpath.core.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class StringCacheTest {
    private static String lookup(StringCache cache, int tag, String text, int offset) {
        byte[] b = new byte[offset + text.length()];
        System.arraycopy(text.getBytes(StandardCharsets.US_ASCII), 0, b, offset, text.length());
        return cache.get(tag, b, offset, b.length, StringCache.hash(b, offset, b.length));
    }

    private static void store(StringCache cache, int tag, String text) {
        byte[] b = text.getBytes(StandardCharsets.US_ASCII);
        cache.put(tag, b, 0, b.length, StringCache.hash(b, 0, b.length), text);
    }

    @Test
    void equalBytesAnywhereGiveTheOneStoredInstanceUnderItsTagOnly() {
        StringCache cache = new StringCache(64);
        String id = new String("1:BrqPhkeLO82n1M/aYfXTQDpdqLE=");
        store(cache, 1, id);
        store(cache, 2, "10.0.0.1");
        assertSame(id, lookup(cache, 1, "1:BrqPhkeLO82n1M/aYfXTQDpdqLE=", 0));
        assertSame(id, lookup(cache, 1, "1:BrqPhkeLO82n1M/aYfXTQDpdqLE=", 13));
        assertNull(lookup(cache, 2, "1:BrqPhkeLO82n1M/aYfXTQDpdqLE=", 0), "another tag is another key");
        assertEquals("10.0.0.1", lookup(cache, 2, "10.0.0.1", 5));
        // same length and the same first and last eight bytes: same hash, told apart by the bytes
        store(cache, 1, "1:BrqPhkeXXXXXXXXXXXTQDpdqLE=");
        assertEquals("1:BrqPhkeXXXXXXXXXXXTQDpdqLE=", lookup(cache, 1, "1:BrqPhkeXXXXXXXXXXXTQDpdqLE=", 0));
        assertSame(id, lookup(cache, 1, "1:BrqPhkeLO82n1M/aYfXTQDpdqLE=", 0));
    }

    @Test
    void aFullCacheEvictsButNeverAnswersWrongly() {
        StringCache cache = new StringCache(16);
        for (int i = 0; i < 1000; i++) {
            store(cache, 0, "10.0." + i / 256 + "." + i % 256);
        }
        int found = 0;
        for (int i = 0; i < 1000; i++) {
            String want = "10.0." + i / 256 + "." + i % 256;
            String got = lookup(cache, 0, want, 3);
            if (got != null) {
                assertEquals(want, got);
                found++;
            }
        }
        assertTrue(found > 0 && found <= 16, "at most the cache's size stays: " + found);
    }
}
