package dev.critpath.core.offline;

import dev.critpath.core.event.InvalidEventException;
import dev.critpath.core.event.JsonLines;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.PacketEventJson;
import dev.critpath.core.pcap.MaybeGzip;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.zip.GZIPInputStream;

/**
 * Packet events as JSON lines (schemas/packet-event.schema.json), gzip or not: one sensor's log,
 * in the order it wrote it. A bad line is rejected with its reason (the first of each reason is
 * said with its line number) and costs that line only.
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
        PacketEventJson codec = PacketEventJson.standard();
        try (InputStream in = MaybeGzip.open(Files.newInputStream(file))) {
            compressed(in instanceof GZIPInputStream);
            long[] bytes = {0};
            JsonLines.read(in, MAX_EVENT_LINE_BYTES, (lineNo, line) -> {
                bytes[0] += line == null ? MAX_EVENT_LINE_BYTES : line.length + 1;
                if ((lineNo & 0x3ff) == 0) {
                    bytesRead(bytes[0]);
                }
                String reason;
                String why;
                if (line == null) {
                    reason = "LINE_TOO_LONG";
                    why = "longer than " + MAX_EVENT_LINE_BYTES + " bytes";
                } else if (JsonLines.isBlank(line)) {
                    return;
                } else {
                    try {
                        sink.accept(codec.parse(line));
                        return;
                    } catch (InvalidEventException ex) {
                        reason = ex.error().name();
                        why = ex.getMessage();
                    } catch (RuntimeException | StackOverflowError ex) {
                        // a reader bug on some bytes costs that line, not the file
                        reason = "UNREADABLE";
                        why = ex.toString();
                    }
                }
                if (rejected.merge(reason, 1, Integer::sum) == 1) {
                    warn.accept(file + ":" + lineNo + ": rejected (" + reason + "): " + why);
                }
            });
            bytesRead(bytes[0]);
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
