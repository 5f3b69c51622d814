package dev.critpath.core.analysis.align;

import dev.critpath.core.analysis.clean.Packet;
import dev.critpath.core.event.PacketEvent;
import java.util.List;

/**
 * How much longer than the path's shortest one-way delay each packet from the unwatched end took,
 * told by its own clock: a TSval stamps when the packet left (RFC 7323), so arrival minus stamp
 * grows by whatever queue, jitter or batching held it on the way. One capture then places a remote
 * packet's departure by evidence, not at a fixed half round trip before its arrival.
 */
public final class RemoteStamps {
    /** Timestamp clocks in use tick every 1 µs to 10 ms (Linux 1 ms; old kernels 4 or 10 ms). */
    private static final long[] TICKS_US = {1, 10, 100, 1_000, 4_000, 10_000};
    /** Ticks a connection's stamps must span before their clock's rate can be told. */
    private static final long MIN_SPAN_TICKS = 50;
    /** Stamps a later arrival may carry below an earlier one's: packets reordered on the way. */
    private static final long MAX_STEP_BACK = 50;
    /** How far a clock's rate over the span may stray from its tick's, once any drift both ways show is taken out. */
    private static final double RATE_FIT = 0.10;
    /** How far a clock may run off its tick's rate (a host losing timer ticks, an emulator's clock) for its drift to be looked for. */
    private static final double MAX_DRIFT = 0.25;

    /** The far end sends client to server. */
    private final boolean fromC2s;
    /** The far end's first and latest stamped packets taken, in capture order; null before any. */
    private Packet first;
    private Packet latest;
    /** A stamp ran back further than reordering steps. */
    private boolean ranBack;
    /** Greatest common divisor of the steps forward from one stamp to the next. */
    private long steps;
    /** µs per tick of their clock; 0 when they are no clock. */
    private long tick;
    /** µs of the capture's clock per tick: the tick, corrected for their clock's drift against the capture's. */
    private double usPerTick;
    /**
     * µs a stamp may lag its packet's making: one step of the clock (one counting milliseconds may
     * advance ten at once, a 100 Hz timer).
     */
    private long resolution;
    /** The least arrival less stamp of the far end's packets. */
    private long quickest = Long.MAX_VALUE;

    private RemoteStamps(boolean fromC2s) {
        this.fromC2s = fromC2s;
    }

    /**
     * The stamps of the packets of {@code pkts} (one sensor's, capture order) sent by the far end
     * ({@code c2s == fromC2s}), their clock's drift against the capture's taken out where the
     * local end's timestamps, echoed, show it both ways.
     */
    static RemoteStamps of(Packet[] pkts, boolean fromC2s, TimestampEchoes echoes) {
        RemoteStamps s = new RemoteStamps(fromC2s);
        for (Packet p : pkts) {
            if (p.c2s == fromC2s && p.tsval != PacketEvent.ABSENT) {
                s.take(p);
            }
        }
        s.tick = s.clockTick(MAX_DRIFT);
        if (s.tick != 0) {
            s.resolution = s.tick * Math.max(1, s.steps);
            s.usPerTick = s.tick; // the drift is looked for at the tick's own rate
            long stamps = stampsAfter(s.first, s.latest);
            long span = s.latest.ts - s.first.ts;
            double drifting = s.tick / (1 - echoes.drift(s));
            // taken out only where it brings the stamps' rate nearer the span's
            if (drifting > 0 && misfit(span, stamps, drifting) < misfit(span, stamps, s.tick)) {
                s.usPerTick = drifting;
            }
            if (!fits(span, stamps, s.usPerTick, RATE_FIT)) {
                s.tick = 0;
            }
        }
        if (s.clocked()) {
            for (Packet p : pkts) {
                if (s.stampedRemote(p)) {
                    s.quickest = Math.min(s.quickest, p.ts - s.stampedAt(p));
                }
            }
        }
        return s;
    }

    /** The next stamped packet of the far end. */
    private void take(Packet p) {
        if (first == null) {
            first = p;
        } else {
            long step = stampsAfter(latest, p);
            ranBack |= step < -MAX_STEP_BACK;
            if (step > 0 && steps != 1) { // a clock stepping by one stays so
                steps = gcd(steps, step);
            }
        }
        latest = p;
    }

    /** Whether the far end's stamps tell time: its packets carry them and they fit a clock. */
    boolean clocked() {
        return tick != 0;
    }

    /** Whether this packet is one of the far end's, stamped by its clock. */
    boolean stampedRemote(Packet p) {
        return clocked() && p.c2s == fromC2s && p.tsval != PacketEvent.ABSENT;
    }

    /**
     * When a stamped remote packet was made by the far end's clock, in µs on the capture's clock up
     * to a constant (the clocks' offset): no later than it left, and up to {@link #resolutionUs()}
     * before the moment it stands for.
     */
    long stampedAt(Packet p) {
        return first.ts + Math.round(stampsAfter(first, p) * usPerTick);
    }

    /** When the far end's first and latest stamped packets were captured. */
    long firstUs() {
        return first.ts;
    }

    long latestUs() {
        return latest.ts;
    }

    long resolutionUs() {
        return resolution;
    }

    /**
     * For one of the far end's stamped packets, the µs it spent on the way beyond the quickest such
     * packet, less two steps of the stamps' resolution (a stamp rounds its departure down by up to
     * one, and the host may hold a stamped packet a little before it leaves); 0 for other packets,
     * and for all when the stamps' clock cannot be told.
     */
    long extraDelay(Packet p) {
        return stampedRemote(p) ? Math.max(0, p.ts - stampedAt(p) - quickest - 2 * resolution) : 0;
    }

    private static long gcd(long a, long b) {
        return b == 0 ? a : gcd(b, a % b);
    }

    /** Stamps from one packet's to another's, through a wrap of the 32-bit counter. */
    private static long stampsAfter(Packet from, Packet to) {
        return relative(to.tsval, from.tsval);
    }

    /** A 32-bit timestamp (TSval or TSecr) less another, through a wrap of the counter. */
    public static long relative(long ts, long from) {
        return (int) (ts - from);
    }

    /**
     * The µs per tick of the clock that stamped one sender's packets (capture order, each with a
     * TSval), or 0 when they are no clock: none, stamps that run back further than reordering
     * steps (randomised or rewritten on the way), or a rate that fits no tick over the span.
     */
    public static long tickUs(List<Packet> stamped) {
        RemoteStamps s = new RemoteStamps(false);
        for (int i = 0, n = stamped.size(); i < n; i++) {
            s.take(stamped.get(i));
        }
        return s.clockTick(RATE_FIT);
    }

    /** The tick of the stamps taken whose rate fits their span within {@code fit}, as {@link #tickUs}. */
    private long clockTick(double fit) {
        return ranBack || first == null ? 0 : tick(first, latest, fit);
    }

    /** The clock whose rate fits the capture's span within {@code fit}, or 0 when none does or the span is too short. */
    private static long tick(Packet first, Packet last, double fit) {
        long stamps = stampsAfter(first, last);
        long us = last.ts - first.ts;
        for (long tick : TICKS_US) {
            if (stamps >= MIN_SPAN_TICKS && fits(us, stamps, tick, fit)) {
                return tick;
            }
        }
        return 0;
    }

    /** Whether {@code stamps} ticks of {@code usPerTick} each span {@code us} within the share {@code fit}. */
    private static boolean fits(long us, long stamps, double usPerTick, double fit) {
        return misfit(us, stamps, usPerTick) <= stamps * usPerTick * fit;
    }

    /** How far {@code stamps} ticks of {@code usPerTick} each fall from spanning {@code us}. */
    private static double misfit(long us, long stamps, double usPerTick) {
        return Math.abs(us - stamps * usPerTick);
    }
}
