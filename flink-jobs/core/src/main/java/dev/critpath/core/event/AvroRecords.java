package dev.critpath.core.event;

import java.io.IOException;
import java.io.InputStream;
import java.util.function.LongConsumer;

/**
 * Reads Avro single-object records written one after another, as the compiled Zeek sensor writes
 * them to critpath_packets.avro (the same bytes it sends to Kafka, one record per message). Each
 * record's end is where its decoding ends; a record that is not valid costs itself only, since
 * reading goes on at the next record header (C3 01 and the schema's fingerprint).
 */
public final class AvroRecords {
    /** Receives each event, or why the record at a byte offset was refused. */
    public interface Handler {
        void event(PacketEvent e);

        void rejected(long offset, InvalidEventException why);
    }

    /** Bytes kept ahead of the record being read: many times a valid record's size (a few hundred bytes at most). */
    private static final int WINDOW = 1 << 16;

    private AvroRecords() {
    }

    /**
     * @param progress told the bytes read so far, every 1024 records and at the end
     * @return the bytes read
     */
    public static long read(InputStream in, PacketEventAvro codec, Handler handler, LongConsumer progress) throws IOException {
        byte[] buf = new byte[4 * WINDOW];
        long base = 0; // offset of buf[0] in the stream
        int start = 0;
        int fill = 0;
        boolean eof = false;
        long records = 0;
        boolean skipping = false; // past a refused record, looking for the next header
        while (true) {
            if (!eof && fill - start < WINDOW) {
                System.arraycopy(buf, start, buf, 0, fill - start);
                base += start;
                fill -= start;
                start = 0;
                int n;
                while (fill < buf.length && (n = in.read(buf, fill, buf.length - fill)) > 0) {
                    fill += n;
                }
                eof = fill < buf.length;
            }
            if (start == fill) {
                break;
            }
            if (skipping) {
                int at = nextHeader(buf, start, fill);
                skipping = at < 0;
                // a header may begin in the last bytes of the window and end past them
                start = at >= 0 ? at : eof ? fill : Math.max(start, fill - PacketEventAvro.HEADER_BYTES + 1);
                continue;
            }
            try {
                handler.event(codec.parse(buf, start, fill));
                start = codec.position();
            } catch (InvalidEventException why) {
                handler.rejected(base + start, why);
                start++;
                skipping = true;
            }
            if ((++records & 0x3ff) == 0) {
                progress.accept(base + start);
            }
        }
        progress.accept(base + fill);
        return base + fill;
    }

    /** Where the first record header at or after {@code from} starts, or -1. */
    private static int nextHeader(byte[] buf, int from, int fill) {
        for (int at = from; at < fill; at++) {
            if (PacketEventAvro.headerAt(buf, at, fill)) {
                return at;
            }
        }
        return -1;
    }
}
