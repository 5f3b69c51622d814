package dev.critpath.core.analysis.align;

import dev.critpath.core.analysis.clean.Packet;
import dev.critpath.core.event.PacketEvent;
import java.util.ArrayList;
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

    private RemoteStamps() {
    }

    /**
     * Per packet of {@code pkts}: for those sent by the far end ({@code c2s == fromC2s}) with a
     * TSval, the µs it spent on the way beyond the quickest such packet, less two steps of the
     * stamps' resolution (a stamp rounds its departure down by up to one, and the host may hold a
     * stamped packet a little before it leaves); 0 for the rest, and for all when the stamps'
     * clock cannot be told.
     */
    static long[] extraDelays(List<Packet> pkts, boolean fromC2s) {
        long[] extra = new long[pkts.size()];
        List<Packet> stamped = new ArrayList<>();
        for (Packet p : pkts) {
            if (p.c2s == fromC2s && p.tsval != PacketEvent.ABSENT) {
                stamped.add(p);
            }
        }
        long tick = tickUs(stamped);
        if (tick == 0) {
            return extra;
        }
        long resolution = tick * stepsOf(stamped);
        Packet first = stamped.get(0);
        long quickest = Long.MAX_VALUE;
        for (Packet p : stamped) {
            quickest = Math.min(quickest, lag(p, first, tick));
        }
        for (int i = 0; i < extra.length; i++) {
            Packet p = pkts.get(i);
            if (p.c2s == fromC2s && p.tsval != PacketEvent.ABSENT) {
                extra[i] = Math.max(0, lag(p, first, tick) - quickest - 2 * resolution);
            }
        }
        return extra;
    }

    /**
     * Ticks the stamps move by at a time: a clock counting milliseconds may advance ten at once
     * (a 100 Hz timer), so a stamp may be up to that much older than its packet's departure.
     */
    private static long stepsOf(List<Packet> stamped) {
        long steps = 0;
        for (int i = 1; i < stamped.size(); i++) {
            long step = stampsAfter(stamped.get(i - 1), stamped.get(i));
            if (step > 0) {
                steps = gcd(steps, step);
            }
        }
        return Math.max(1, steps);
    }

    private static long gcd(long a, long b) {
        return b == 0 ? a : gcd(b, a % b);
    }

    /** Arrival less departure by the far end's clock, up to a constant (the clocks' offset). */
    private static long lag(Packet p, Packet first, long tick) {
        return p.ts - first.ts - stampsAfter(first, p) * tick;
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
        for (int i = 1; i < stamped.size(); i++) {
            if (stampsAfter(stamped.get(i - 1), stamped.get(i)) < -MAX_STEP_BACK) {
                return 0;
            }
        }
        return stamped.isEmpty() ? 0 : tick(stamped.get(0), stamped.get(stamped.size() - 1));
    }

    /** The clock whose rate fits the capture's span within 10 %, or 0 when none does or the span is too short. */
    private static long tick(Packet first, Packet last) {
        long stamps = stampsAfter(first, last);
        long us = last.ts - first.ts;
        for (long tick : TICKS_US) {
            if (stamps >= MIN_SPAN_TICKS && Math.abs(us - stamps * tick) <= stamps * tick / 10) {
                return tick;
            }
        }
        return 0;
    }
}
