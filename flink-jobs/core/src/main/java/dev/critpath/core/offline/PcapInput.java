package dev.critpath.core.offline;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.pcap.PcapEvents;
import dev.critpath.core.pcap.PcapFormatException;
import dev.critpath.core.pcap.PcapReader;
import dev.critpath.core.pcap.RawPacket;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Consumer;

/** A pcap or pcapng capture (gzip or not) as packet events of one sensor. */
public final class PcapInput extends FileInput {
    private final PcapEvents events;
    private PcapReader.Stats stats;

    /**
     * @param idleTimeout        how long the life cycle reading these events holds a quiet connection
     * @param maxOpenConnections how many it holds at most: the reader keeps as many flows' orientations
     */
    public PcapInput(Path file, String sensor, SensorRole role, Duration idleTimeout, int maxOpenConnections) {
        super(file);
        this.events = new PcapEvents(sensor, role, 0, idleTimeout, maxOpenConnections);
    }

    @Override
    public void read(Consumer<PacketEvent> sink) throws IOException, PcapFormatException {
        try (PcapReader reader = PcapReader.open(file)) {
            compressed(reader.compressed());
            RawPacket p = new RawPacket();
            PcapReader.Stats s = reader.stats();
            while (reader.next(p)) {
                sink.accept(events.toEvent(p));
                if ((s.tcpPackets & 0x3ff) == 0) {
                    bytesRead(s.bytesRead);
                }
            }
            bytesRead(s.bytesRead);
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
