package dev.critpath.core.offline;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.pcap.PcapFormatException;
import java.io.IOException;
import java.util.function.Consumer;

/** One input of an offline run (a capture, or one sensor's event file), read in its own order on its own thread. */
public interface EventInput {
    String name();

    /** The file's size in bytes, for progress; -1 when unknown. */
    long sizeBytes();

    /** Bytes of the file read so far (for a compressed file, of its uncompressed content); read by another thread. */
    long bytesRead();

    /** Whether {@link #bytesRead} counts the file's own bytes, so that it can be set against its size. */
    boolean bytesComparableToSize();

    /** Reads every event to the sink, in the file's order. */
    void read(Consumer<PacketEvent> sink) throws IOException, PcapFormatException;

    /** What reading found beyond the events (counts, rejected lines), for the user; after {@link #read}. */
    String summary();

    /** A warning that the input is not all there (truncated, corrupt), said even in quiet runs; null when none. */
    String partialRead();
}
