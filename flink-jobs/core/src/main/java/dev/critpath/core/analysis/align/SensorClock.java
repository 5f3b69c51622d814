package dev.critpath.core.analysis.align;

import dev.critpath.core.analysis.PathPrior;
import java.util.ArrayList;
import java.util.List;

/**
 * The server-side sensor's clock against the client-side one, from the minimum one-way delays
 * of packets both saw (paper 000's offset estimate), with a drift line for long connections.
 *
 * @param offsetUs      server sensor clock minus client sensor clock, µs
 * @param uncertaintyUs half-width of the interval the offset must lie in whatever the path
 *                      asymmetry, or -1 when unknown
 * @param reliable      false when one direction had no packet seen by both sensors: the offset
 *                      is a guess or a hint
 * @param fromPair      the offset is the sensor pair's from earlier connections, this one could
 *                      not tell its own
 * @param driftPpm      how fast the server sensor's clock gains on the client sensor's, µs per
 *                      second (0 when not measurable)
 * @param driftEpochUs  client-sensor time at which the offset holds exactly; it moves by the
 *                      drift from there
 */
public record SensorClock(long offsetUs, long uncertaintyUs, boolean reliable, boolean fromPair, double driftPpm, long driftEpochUs) {
    /** One sensor: one clock. */
    static final SensorClock ONE_SENSOR = new SensorClock(0, -1, true, false, 0, 0);

    /** From strong matches only: a wrong weak match could fake a small delay. */
    static SensorClock estimate(Matching c2s, Matching s2c, PathPrior prior) {
        long minCs = c2s.minDelay();
        long minSc = s2c.minDelay();
        if (minCs != Long.MAX_VALUE && minSc != Long.MAX_VALUE) {
            SensorClock constant = new SensorClock(Math.floorDiv(minCs - minSc, 2), Math.floorDiv(minCs + minSc + 1, 2), true, false, 0, 0);
            return withDrift(constant, c2s, s2c);
        }
        if (prior.clock() != null) {
            return new SensorClock(prior.clock().offsetUs(), prior.clock().uncertaintyUs(), false, true, 0, 0);
        }
        if (minCs != Long.MAX_VALUE) {
            return new SensorClock(minCs, -1, false, false, 0, 0); // one direction only: assume the smallest delay is zero
        }
        if (minSc != Long.MAX_VALUE) {
            return new SensorClock(-minSc, -1, false, false, 0, 0);
        }
        return new SensorClock(0, -1, false, false, 0, 0);
    }

    /** Server-sensor time on the client's timeline: minus the offset, which moves with the drift. */
    public long serverToClient(long serverUs) {
        if (driftPpm == 0) {
            return serverUs - offsetUs;
        }
        long approx = serverUs - offsetUs;
        return serverUs - offsetUs - Math.round((approx - driftEpochUs) * driftPpm / 1e6);
    }

    private static final long DRIFT_MIN_SPAN_US = 20_000_000;
    private static final int DRIFT_WINDOWS = 12;
    /** Drift smaller than this over the connection is noise next to the minimum filter's own. */
    private static final long DRIFT_MIN_EFFECT_US = 200;

    /**
     * Long connections: the offset estimated per time window (minimum filtering in each), a
     * least-squares line through the windows, then re-centred so that every corrected one-way
     * delay stays at least half the minimum round trip, as with a constant offset.
     */
    private static SensorClock withDrift(SensorClock constant, Matching c2s, Matching s2c) {
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (long[] p : c2s.strongPairs()) {
            first = Math.min(first, p[0]);
            last = Math.max(last, p[0]);
        }
        if (last - first < DRIFT_MIN_SPAN_US) {
            return constant;
        }
        long width = (last - first) / DRIFT_WINDOWS + 1;
        long[][] minCs = windowMinima(c2s.strongPairs(), first, width);
        long[][] minSc = windowMinima(s2c.strongPairs(), first, width);
        List<double[]> points = new ArrayList<>();
        for (int w = 0; w < DRIFT_WINDOWS; w++) {
            if (minCs[w] != null && minSc[w] != null) {
                // at the times of the two minimal samples, not the window's middle
                points.add(new double[] {(minCs[w][0] + minSc[w][0]) / 2.0, (minCs[w][1] - minSc[w][1]) / 2.0});
            }
        }
        if (points.size() < 3) {
            return constant;
        }
        double mt = points.stream().mapToDouble(p -> p[0]).average().orElse(0);
        double mo = points.stream().mapToDouble(p -> p[1]).average().orElse(0);
        double sxy = 0;
        double sxx = 0;
        for (double[] p : points) {
            sxy += (p[0] - mt) * (p[1] - mo);
            sxx += (p[0] - mt) * (p[0] - mt);
        }
        double slope = sxy / sxx;
        if (Math.abs(slope) * (last - first) < DRIFT_MIN_EFFECT_US) {
            return constant;
        }
        long epoch = Math.round(mt);
        long lowCs = Long.MAX_VALUE;
        long lowSc = Long.MAX_VALUE;
        for (long[] p : c2s.strongPairs()) {
            lowCs = Math.min(lowCs, p[1] - Math.round(mo + slope * (p[0] - epoch)));
        }
        for (long[] p : s2c.strongPairs()) {
            lowSc = Math.min(lowSc, p[1] + Math.round(mo + slope * (p[0] - epoch)));
        }
        if (lowCs + lowSc < 0) {
            return constant; // the line does not fit the minima: keep the constant offset
        }
        return new SensorClock(Math.round(mo) + Math.floorDiv(lowCs - lowSc, 2), Math.floorDiv(lowCs + lowSc + 1, 2), true, false,
                slope * 1e6, epoch);
    }

    /** Per time window, the {time, delay} pair with the smallest delay (null for empty windows). */
    private static long[][] windowMinima(List<long[]> pairs, long first, long width) {
        long[][] min = new long[DRIFT_WINDOWS][];
        for (long[] p : pairs) {
            int w = (int) Math.max(0, Math.min(DRIFT_WINDOWS - 1, (p[0] - first) / width));
            if (min[w] == null || p[1] < min[w][1]) {
                min[w] = p;
            }
        }
        return min;
    }
}
