package dev.critpath.core.analysis;

import java.util.List;
import java.util.function.Supplier;

/**
 * A connection's packets as its sensors captured them, marked by the analysis: the rows of the
 * `packets` table. Made only when asked for (the screen keeps them for the connections worth a
 * look), so analysing a boring connection costs nothing more.
 */
public final class ConnectionPackets {
    public static final ConnectionPackets NONE = new ConnectionPackets(-1, List::of);

    private final long segmentStartUs;
    private final Supplier<List<PacketSighting>> source;
    private List<PacketSighting> made;

    /** @param segmentStartUs where a segment of a long-lived connection starts (its transmissions are numbered from there), -1 for a whole connection */
    public ConnectionPackets(long segmentStartUs, Supplier<List<PacketSighting>> source) {
        this.segmentStartUs = segmentStartUs;
        this.source = source;
    }

    /** In time order. */
    public synchronized List<PacketSighting> sightings() {
        if (made == null) {
            made = List.copyOf(source.get());
        }
        return made;
    }

    /** The first {@code max} sightings, made now: the timeline they came from can be let go. */
    public ConnectionPackets first(int max) {
        List<PacketSighting> all = sightings();
        List<PacketSighting> kept = all.size() <= max ? all : all.subList(0, max);
        ConnectionPackets c = new ConnectionPackets(segmentStartUs, () -> kept);
        c.sightings();
        return c;
    }

    public long segmentStartUs() {
        return segmentStartUs;
    }
}
