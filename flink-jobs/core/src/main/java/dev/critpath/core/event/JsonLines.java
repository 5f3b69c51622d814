package dev.critpath.core.event;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Splits a file of JSON lines into lines as bytes, never as text: one line in a bad encoding, or
 * one without an end, must cost that line and not the file (a reader decoding text stops there).
 */
public final class JsonLines {
    /** Receives each line (without its newline), or null for one longer than the limit, with its number from 1. */
    @FunctionalInterface
    public interface LineHandler {
        void line(long number, byte[] line);
    }

    private JsonLines() {
    }

    public static void read(InputStream in, int maxLineBytes, LineHandler handler) throws IOException {
        byte[] buf = new byte[Math.min(maxLineBytes, 1024)];
        int len = 0;
        boolean tooLong = false;
        long number = 0;
        byte[] chunk = new byte[1 << 16];
        int n;
        while ((n = in.read(chunk)) > 0) {
            for (int i = 0; i < n; i++) {
                byte b = chunk[i];
                if (b == '\n') {
                    handler.line(++number, tooLong ? null : Arrays.copyOf(buf, len));
                    len = 0;
                    tooLong = false;
                } else if (!tooLong) {
                    if (len == maxLineBytes) {
                        tooLong = true;
                    } else {
                        if (len == buf.length) {
                            buf = Arrays.copyOf(buf, Math.min(maxLineBytes, buf.length * 2));
                        }
                        buf[len++] = b;
                    }
                }
            }
        }
        if (len > 0 || tooLong) {
            handler.line(++number, tooLong ? null : Arrays.copyOf(buf, len));
        }
    }

    /** True for a line of nothing but JSON whitespace. */
    public static boolean isBlank(byte[] line) {
        for (byte b : line) {
            if (b != ' ' && b != '\t' && b != '\r' && b != '\n') {
                return false;
            }
        }
        return true;
    }
}
