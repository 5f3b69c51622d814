package dev.critpath.core.analysis.profile;

import dev.critpath.core.analysis.Endpoint;
import dev.critpath.core.analysis.align.Timeline;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.analysis.sender.SenderMarks;
import java.util.Arrays;
import java.util.List;

/**
 * One host's own link, as the capture next to it shows it: the rate at which bursts leave (packet
 * pairs), and for a packet that left behind others of a back-to-back burst, how long the link was
 * busy serialising them. That part of the host's time is its link, not its application.
 */
final class HostLink {
    /** Spacing up to this much over the link's time for a packet still counts as back to back (timer and stamp jitter). */
    private static final double BACK_TO_BACK = 1.5;
    private static final long STAMP_SLACK_US = 20;

    /** Payload bytes per µs, or {@link PacketPairs#UNKNOWN}. */
    final double rate;
    private final List<Tx> departures;
    /** Per transmission, its place among the departures, or -1. */
    private final int[] place;

    private HostLink(double rate, List<Tx> departures, int transmissions) {
        this.rate = rate;
        this.departures = departures;
        this.place = new int[transmissions];
        Arrays.fill(place, -1);
        for (int i = 0; i < departures.size(); i++) {
            place[departures.get(i).idx()] = i;
        }
    }

    /** The link of the host at this end, from the data it sent; its rate is unknown when no capture saw its departures. */
    static HostLink of(Timeline tl, Endpoint host, SenderMarks marks) {
        List<Tx> departures = PacketPairs.departures(tl, host.sends());
        return new HostLink(PacketPairs.sendingRate(departures, marks), departures, tl.txs.size());
    }

    /** A rate in payload bytes per µs as Mbit/s; unknown stays negative. */
    static double mbps(double bytesPerUs) {
        return bytesPerUs < 0 ? -1 : bytesPerUs * 8;
    }

    /**
     * Of the host's wait from {@code fromUs} to packet {@code t} leaving, the time its link spent on
     * the packets just before it: back to back at the link's rate, after {@code fromUs}.
     */
    long serialisingBefore(Tx t, long fromUs) {
        int i = t.idx() < place.length ? place[t.idx()] : -1;
        if (rate <= 0 || i < 0) {
            return 0;
        }
        long start = t.dep();
        for (int k = i; k > 0 && start > fromUs; k--) {
            Tx cur = departures.get(k);
            Tx prev = departures.get(k - 1);
            if (cur.dep() - prev.dep() > cur.p.len / rate * BACK_TO_BACK + STAMP_SLACK_US) {
                break;
            }
            start = prev.dep();
        }
        return t.dep() - Math.max(start, fromUs);
    }
}
