package dev.critpath.core.analysis.profile;

import dev.critpath.core.analysis.Direction;
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
    /** Every data transmission whose departure is known, in departure order; the host's are those {@link PacketPairs#captured} of its direction. */
    private final Tx[] dataByDep;
    private final boolean c2s;

    private HostLink(double rate, Tx[] dataByDep, boolean c2s) {
        this.rate = rate;
        this.dataByDep = dataByDep;
        this.c2s = c2s;
    }

    /**
     * The link of the host at this end, from the data it sent ({@code dataByDep}: every data
     * transmission with a departure, in departure order); its rate is unknown when no capture saw
     * its departures.
     */
    static HostLink of(Tx[] dataByDep, Endpoint host, SenderMarks marks) {
        return new HostLink(PacketPairs.sendingRate(dataByDep, host.sends(), marks), dataByDep, host.sends() == Direction.C2S);
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
        int i = rate <= 0 || !PacketPairs.captured(t, c2s) ? -1 : place(t);
        if (i < 0) {
            return 0;
        }
        long start = t.dep();
        Tx cur = t;
        for (int k = before(i); k >= 0 && start > fromUs; k = before(k)) {
            Tx prev = dataByDep[k];
            if (cur.dep() - prev.dep() > cur.p.len / rate * BACK_TO_BACK + STAMP_SLACK_US) {
                break;
            }
            start = prev.dep();
            cur = prev;
        }
        return t.dep() - Math.max(start, fromUs);
    }

    /** The place of the host's departure before place k, or -1. */
    private int before(int k) {
        do {
            k--;
        } while (k >= 0 && !PacketPairs.captured(dataByDep[k], c2s));
        return k;
    }

    /** Where t is in dataByDep (found by its time), or -1. */
    private int place(Tx t) {
        int lo = 0;
        int hi = dataByDep.length;
        while (lo < hi) { // the first departure no earlier than t's
            int mid = (lo + hi) >>> 1;
            if (dataByDep[mid].dep() < t.dep()) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        for (int i = lo; i < dataByDep.length && dataByDep[i].dep() == t.dep(); i++) {
            if (dataByDep[i] == t) {
                return i;
            }
        }
        return -1;
    }
}
