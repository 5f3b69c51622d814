package dev.critpath.core.analysis.sender;

import dev.critpath.core.analysis.align.Tx;
import java.util.Arrays;

/**
 * How early a packet of the unwatched sender can have left, from its arrivals at the one sensor.
 * Its departure is estimated as arrival minus the minimum one-way delay, which is late by
 * whatever queue it met. A FIFO bottleneck serves a busy period back to back, so a packet that
 * arrived after a gap longer than its own serialisation met an empty queue; a packet inside a
 * busy period left no earlier than the period's first packet did.
 */
final class QueueBound {
    /** A gap this many times the packet's serialisation at the fastest rate seen starts a busy period (spacing jitter). */
    private static final double GAP_FACTOR = 1.5;
    /** The low percentile of spacing per byte taken as the bottleneck's rate: robust to packets that arrived together. */
    private static final double RATE_PERCENTILE = 0.1;

    private QueueBound() {
    }

    /**
     * @param sends the sender's transmissions in order of their estimated departures (arrival order at the sensor)
     * @return per send (same order), the earliest departure its queue allows
     */
    static long[] earliestDepartures(Tx[] sends) {
        long[] earliest = new long[sends.length];
        double usPerByte = bottleneckUsPerByte(sends);
        long busyStart = Long.MIN_VALUE;
        for (int i = 0; i < sends.length; i++) {
            Tx t = sends[i];
            long gap = i == 0 ? Long.MAX_VALUE : t.arr() - sends[i - 1].arr();
            if (i == 0 || t.p.len == 0 || gap > GAP_FACTOR * usPerByte * t.p.len) {
                busyStart = t.dep();
            }
            earliest[i] = busyStart;
        }
        return earliest;
    }

    private static double bottleneckUsPerByte(Tx[] sends) {
        double[] perByte = new double[sends.length];
        int n = 0;
        for (int i = 1; i < sends.length; i++) {
            Tx t = sends[i];
            long gap = t.arr() - sends[i - 1].arr();
            if (t.p.len > 0 && gap > 0) {
                perByte[n++] = gap / (double) t.p.len;
            }
        }
        if (n == 0) {
            return 0;
        }
        Arrays.sort(perByte, 0, n);
        return perByte[(int) (RATE_PERCENTILE * (n - 1))];
    }
}
