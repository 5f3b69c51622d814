package dev.critpath.core.offline;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.pcap.PcapEvents;
import dev.critpath.core.pcap.PcapFormatException;
import dev.critpath.core.pcap.PcapReader;
import dev.critpath.core.pcap.RawPacket;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;

/** A pcap or pcapng capture (gzip or not) as packet events of one sensor. */
public final class PcapInput implements EventInput {
    private final Path file;
    private final PcapEvents events;
    private volatile long bytesRead;
    private volatile boolean compressed;
    private PcapReader.Stats stats;

    public PcapInput(Path file, String sensor, SensorRole role) {
        this.file = file;
        this.events = new PcapEvents(sensor, role, 0);
    }

    @Override
    public String name() {
        return file.toString();
    }

    @Override
    public long sizeBytes() {
        try {
            return Files.size(file);
        } catch (IOException e) {
            return -1;
        }
    }

    @Override
    public long bytesRead() {
        return bytesRead;
    }

    @Override
    public boolean bytesComparableToSize() {
        return !compressed;
    }

    @Override
    public void read(Consumer<PacketEvent> sink) throws IOException, PcapFormatException {
        try (PcapReader reader = PcapReader.open(file)) {
            compressed = reader.compressed();
            RawPacket p = new RawPacket();
            PcapReader.Stats s = reader.stats();
            while (reader.next(p)) {
                sink.accept(events.toEvent(p));
                if ((s.tcpPackets & 0x3ff) == 0) {
                    bytesRead = s.bytesRead;
                }
            }
            bytesRead = s.bytesRead;
            stats = s;
        }
    }

    @Override
    public String summary() {
        return stats == null ? "not read" : stats.toString();
    }

    @Override
    public String partialRead() {
        return stats == null ? null : stats.partialRead("analysed");
    }
}
