package dev.critpath.core.pcap;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.GZIPInputStream;

/** A file's bytes, inflated on the fly when they start with gzip's magic: captures and event files may come either way. */
public final class MaybeGzip {
    private static final int BUFFER = 1 << 16;

    private MaybeGzip() {
    }

    /** The stream to read; an instance of GZIPInputStream when {@code raw} is compressed. */
    public static InputStream open(InputStream raw) throws IOException {
        BufferedInputStream b = new BufferedInputStream(raw, BUFFER);
        b.mark(2);
        int m0 = b.read();
        int m1 = b.read();
        b.reset();
        return m0 == 0x1f && m1 == 0x8b ? new GZIPInputStream(b, BUFFER) : b;
    }
}
