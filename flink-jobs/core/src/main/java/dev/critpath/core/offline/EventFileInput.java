package dev.critpath.core.offline;

import dev.critpath.core.event.AvroRecords;
import dev.critpath.core.event.InvalidEventException;
import dev.critpath.core.event.JsonLines;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.PacketEventAvro;
import dev.critpath.core.event.PacketEventJson;
import dev.critpath.core.pcap.MaybeGzip;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.zip.GZIPInputStream;

/**
 * Packet events as JSON lines (schemas/packet-event.schema.json) or as Avro single-object records
 * one after another (packet-event.avsc, what the compiled Zeek sensor writes in Avro), told apart
 * by the first bytes, gzip or not: one sensor's log, in the order it wrote it. A bad line or record
 * is rejected with its reason (the first of each reason is said with its line number or byte
 * offset) and costs that line or record only.
 */
public final class EventFileInput extends FileInput {
    /** A packet event is a few hundred bytes; a longer line is not one. */
    public static final int MAX_EVENT_LINE_BYTES = 1 << 16;

    private final Consumer<String> warn;
    private final Map<String, Integer> rejected = new LinkedHashMap<>();

    /** @param warn receives the first rejected line of each reason */
    public EventFileInput(Path file, Consumer<String> warn) {
        super(file);
        this.warn = warn;
    }

    @Override
    public void read(Consumer<PacketEvent> sink) throws IOException {
        try (InputStream gz = MaybeGzip.open(Files.newInputStream(file)); BufferedInputStream in = new BufferedInputStream(gz)) {
            compressed(gz instanceof GZIPInputStream);
            in.mark(2);
            byte[] first = in.readNBytes(2);
            in.reset();
            if (PacketEventAvro.isAvro(first)) {
                readAvro(in, sink);
            } else {
                readJsonLines(in, sink);
            }
        }
    }

    private void readAvro(InputStream in, Consumer<PacketEvent> sink) throws IOException {
        AvroRecords.read(in, PacketEventAvro.standard(), new AvroRecords.Handler() {
            @Override
            public void event(PacketEvent e) {
                sink.accept(e);
            }

            @Override
            public void rejected(long offset, InvalidEventException why) {
                reject(why.error().name(), "byte " + offset, why.getMessage());
            }
        }, this::bytesRead);
    }

    private void readJsonLines(InputStream in, Consumer<PacketEvent> sink) throws IOException {
        PacketEventJson codec = PacketEventJson.standard();
        long[] bytes = {0};
        JsonLines.read(in, MAX_EVENT_LINE_BYTES, (lineNo, line) -> {
            bytes[0] += line == null ? MAX_EVENT_LINE_BYTES : line.length + 1;
            if ((lineNo & 0x3ff) == 0) {
                bytesRead(bytes[0]);
            }
            if (line == null) {
                reject("LINE_TOO_LONG", String.valueOf(lineNo), "longer than " + MAX_EVENT_LINE_BYTES + " bytes");
            } else if (!JsonLines.isBlank(line)) {
                try {
                    sink.accept(codec.parse(line));
                } catch (InvalidEventException ex) {
                    reject(ex.error().name(), String.valueOf(lineNo), ex.getMessage());
                } catch (RuntimeException | StackOverflowError ex) {
                    // a reader bug on some bytes costs that line, not the file
                    reject("UNREADABLE", String.valueOf(lineNo), ex.toString());
                }
            }
        });
        bytesRead(bytes[0]);
    }

    /** Counts a refused line or record, and says the first of each reason. */
    private void reject(String reason, String where, String why) {
        if (rejected.merge(reason, 1, Integer::sum) == 1) {
            warn.accept(file + ":" + where + ": rejected (" + reason + "): " + why);
        }
    }

    @Override
    public String summary() {
        return rejected.isEmpty() ? "all events valid" : "rejected events by reason: " + rejected;
    }

    @Override
    public String partialRead() {
        return null;
    }
}
