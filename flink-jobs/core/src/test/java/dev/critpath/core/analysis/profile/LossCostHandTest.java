package dev.critpath.core.analysis.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.analysis.Category;
import dev.critpath.core.analysis.ConnectionProfile;
import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.testing.HandTrace;
import org.junit.jupiter.api.Test;

/**
 * Loss cost and host link time on hand-built connections whose truth is known by construction:
 * a Reno sender (initial window 10, slow start, one ACK per segment) with a loss-free twin, and a
 * server whose own link spaces a burst.
 */
class LossCostHandTest {
    private static final double OWD = 10;
    /** The server's link sends a 1000-byte segment in 10 µs (800 Mbit/s). */
    private static final double SEGMENT_MS = 0.01;

    /** The server's link: a segment leaves when it is sent and the one before it has left. */
    private static final class ServerLink {
        private final HandTrace h;
        private double free;

        ServerLink(HandTrace h) {
            this.h = h;
        }

        /** Sends a 1000-byte segment wanted at this time; returns when it left. */
        double send(double wanted, boolean fin) {
            return send(wanted, fin, false);
        }

        /** The same, lost in the network when {@code lost}. */
        double send(double wanted, boolean fin, boolean lost) {
            double dep = Math.max(wanted, free);
            free = dep + SEGMENT_MS;
            HandTrace.P p = h.s(dep).data(1000);
            if (fin) {
                p.fin();
            }
            if (lost) {
                p.lost();
            }
            return dep;
        }
    }

    private static ConnectionProfile analyse(HandTrace h) {
        return Analyzer.defaults().analyze(h.bothSensors()).profile();
    }

    /** The client acknowledges a segment 1 µs after it arrives; returns the ACK's arrival at the server. */
    private static double ackedOnArrival(HandTrace h, double departure) {
        h.c(departure + OWD + 0.001);
        return departure + 2 * OWD + 0.001;
    }

    /**
     * 30 segments of 1000 bytes after a request reaching the server at 30 ms: the first 10 at once,
     * then two per ACK (slow start). The last carries the FIN; returns when it reaches the client.
     */
    private static double lossFreeTwin(HandTrace h) {
        double request = h.handshakeAndRequest(OWD);
        ServerLink link = new ServerLink(h);
        double[] acks = new double[10];
        for (int i = 1; i <= 10; i++) {
            acks[i - 1] = ackedOnArrival(h, link.send(request, false));
        }
        double last = 0;
        for (int i = 1; i <= 10; i++) {
            for (int k = 0; k < 2; k++) {
                last = link.send(acks[i - 1] + 0.001, i == 10 && k == 1);
                ackedOnArrival(h, last);
            }
        }
        return last + OWD;
    }

    /**
     * The same with the first flight's fifth segment lost: three duplicate ACKs, a fast retransmit,
     * the window halved to 7 (from 14), then congestion avoidance (one segment per ACK) for the rest.
     */
    private static double lossy(HandTrace h) {
        double request = h.handshakeAndRequest(OWD);
        ServerLink link = new ServerLink(h);
        double[] acks = new double[10];
        for (int i = 1; i <= 10; i++) {
            if (i == 5) {
                link.send(request, false, true);
            } else {
                acks[i - 1] = ackedOnArrival(h, link.send(request, false));
            }
        }
        int next = 11;
        for (int i = 1; i <= 4; i++) {                 // each ACK of new data releases two segments
            for (int k = 0; k < 2; k++, next++) {
                ackedOnArrival(h, link.send(acks[i - 1] + 0.001, false));
            }
        }
        double resend = Math.max(acks[7] + 0.001, link.free); // after the third duplicate ACK (the eighth segment's)
        h.s(resend).resend(4001, 1000);
        link.free = resend + SEGMENT_MS;
        double full = ackedOnArrival(h, resend);       // acknowledges everything up to segment 18
        double last = 0;
        double[] round = new double[7];
        for (int k = 0; k < 7; k++, next++) {
            last = link.send(full + 0.001, false);
            round[k] = ackedOnArrival(h, last);
        }
        for (int k = 0; next <= 30; k++, next++) {
            last = link.send(round[k] + 0.001, next == 30);
            ackedOnArrival(h, last);
        }
        return last + OWD;
    }

    private static void close(HandTrace h, double responseHeld) {
        h.c(responseHeld + 0.2).fin();
        h.s(responseHeld + 0.2 + OWD);
    }

    @Test
    void aLossThatCostsAWindowRoundCostsWhatTheLossFreeTwinSaves() {
        HandTrace twin = new HandTrace(OWD, OWD);
        double twinHeld = lossFreeTwin(twin);
        close(twin, twinHeld);
        HandTrace lost = new HandTrace(OWD, OWD);
        double lostHeld = lossy(lost);
        close(lost, lostHeld);

        ConnectionProfile free = analyse(twin);
        ConnectionProfile p = analyse(lost);
        long truth = Math.round((lostHeld - twinHeld) * 1000);
        long onPath = p.times.get(Category.LOSS_FAST_RETRANSMIT);
        assertEquals(0, free.costs.lossCostUs(), "the twin lost nothing");
        assertEquals(1, p.fastRetransmits());
        // the twin's times are rounded to the µs and its ACKs leave 1 µs after each arrival
        assertTrue(Math.abs(p.costs.lossCostUs() - truth) <= 10, "loss cost " + p.costs.lossCostUs() + " us, the twin was " + truth + " us sooner");
        assertTrue(truth > onPath + 15_000, "the window's lost round is beyond the " + onPath + " us loss arc: " + truth);
    }

    /** 5 ms think time, then ten 1000-byte segments 100 µs apart: the server's own link runs at 80 Mbit/s. */
    @Test
    void aBurstSpacedByTheServersOwnLinkIsItsLinkNotItsApplication() {
        HandTrace h = new HandTrace(OWD, OWD);
        double request = h.handshakeAndRequest(OWD);
        double last = 0;
        for (int i = 0; i < 10; i++) {
            last = request + 5 + 0.1 * i;
            if (i == 9) {
                h.s(last).data(1000).fin();
            } else {
                h.s(last).data(1000);
            }
            ackedOnArrival(h, last);
        }
        close(h, last + OWD);
        ConnectionProfile p = analyse(h);
        assertEquals(80.0, p.costs.serverLinkMbps(), 1e-9);
        assertEquals(5_900, p.times.get(Category.SERVER), "think time and the burst's serialisation");
        assertEquals(900, p.costs.serverLinkUs(), "nine packets' serialisation ahead of the last");
        assertEquals(-1, p.costs.clientLinkMbps(), "the client sent too few data packets for a rate");
    }
}
