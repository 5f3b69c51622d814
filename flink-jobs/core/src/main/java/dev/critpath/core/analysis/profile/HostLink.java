package dev.critpath.core.analysis.profile;

import dev.critpath.core.analysis.Endpoint;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.analysis.sender.SenderMarks;

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
    /** The host's data departures a capture saw, in departure order. */
    private final Tx[] departures;

    private HostLink(double rate, Tx[] departures) {
        this.rate = rate;
        this.departures = departures;
    }

    /**
     * The link of the host at this end, from the data it sent ({@code dataByDep}: every data
     * transmission with a departure, in departure order); its rate is unknown when no capture saw
     * its departures.
     */
    static HostLink of(Tx[] dataByDep, Endpoint host, SenderMarks marks) {
        Tx[] departures = PacketPairs.departures(dataByDep, host.sends());
        return new HostLink(PacketPairs.sendingRate(departures, marks), departures);
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
        int i = rate <= 0 ? -1 : place(t);
        if (i < 0) {
            return 0;
        }
        long start = t.dep();
        for (int k = i; k > 0 && start > fromUs; k--) {
            Tx cur = departures[k];
            Tx prev = departures[k - 1];
            if (cur.dep() - prev.dep() > cur.p.len / rate * BACK_TO_BACK + STAMP_SLACK_US) {
                break;
            }
            start = prev.dep();
        }
        return t.dep() - Math.max(start, fromUs);
    }

    /** Where t is among the departures (found by its time), or -1. */
    private int place(Tx t) {
        int lo = 0;
        int hi = departures.length;
        while (lo < hi) { // the first departure no earlier than t's
            int mid = (lo + hi) >>> 1;
            if (departures[mid].dep() < t.dep()) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        for (int i = lo; i < departures.length && departures[i].dep() == t.dep(); i++) {
            if (departures[i] == t) {
                return i;
            }
        }
        return -1;
    }
}
