package dev.critpath.core.event;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class JsonLinesTest {
    private static List<byte[]> lines(byte[] input, int max) throws IOException {
        List<byte[]> out = new ArrayList<>();
        List<Long> numbers = new ArrayList<>();
        JsonLines.read(new ByteArrayInputStream(input), max, (n, line) -> {
            numbers.add(n);
            out.add(line);
        });
        for (int i = 0; i < numbers.size(); i++) {
            assertEquals(i + 1, numbers.get(i), "numbered from 1, one by one");
        }
        return out;
    }

    @Test
    void bytesThatAreNotTextCostOnlyTheirLine() throws IOException {
        byte[] input = "{\"a\":1}\n\u0000\u0000\u0000{\n\u00ff\u00fe\nlast".getBytes(StandardCharsets.ISO_8859_1);
        List<byte[]> out = lines(input, 100);
        assertEquals(4, out.size());
        assertArrayEquals("{\"a\":1}".getBytes(StandardCharsets.US_ASCII), out.get(0));
        assertArrayEquals(new byte[] {0, 0, 0, '{'}, out.get(1));
        assertArrayEquals(new byte[] {(byte) 0xff, (byte) 0xfe}, out.get(2));
        assertArrayEquals("last".getBytes(StandardCharsets.US_ASCII), out.get(3), "a last line without a newline is a line");
    }

    @Test
    void aLineOverTheLimitIsReportedAsNullAndTheNextOneIsRead() throws IOException {
        byte[] input = ("x".repeat(200_000) + "\nok\n" + "y".repeat(11)).getBytes(StandardCharsets.US_ASCII);
        List<byte[]> out = lines(input, 10);
        assertEquals(3, out.size());
        assertNull(out.get(0));
        assertArrayEquals("ok".getBytes(StandardCharsets.US_ASCII), out.get(1));
        assertNull(out.get(2), "an over-long last line without a newline too");
        assertArrayEquals(new byte[10], lines(new byte[10], 10).get(0), "exactly the limit is allowed");
    }

    @Test
    void blankLinesAreOnlyJsonWhitespace() {
        assertTrue(JsonLines.isBlank(" \t\r".getBytes(StandardCharsets.US_ASCII)));
        assertTrue(JsonLines.isBlank(new byte[0]));
        assertTrue(!JsonLines.isBlank(new byte[] {0}));
    }
}
