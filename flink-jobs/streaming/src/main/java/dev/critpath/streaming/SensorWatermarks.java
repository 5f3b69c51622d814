package dev.critpath.streaming;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.util.clock.RelativeClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounded out-of-orderness watermarks for one partition that no single sensor, and no single
 * event, can run ahead of the others.
 *
 * <p>Each sensor's time moves with its own events, but a jump of more than {@code maxAheadMs}
 * counts only once {@value #EVENTS_TO_CONFIRM_JUMP} events in a row confirm it (a replay's gap
 * does, one mis-stamped event does not). The partition's time is the latest sensor time among the
 * sensors not more than {@code maxAheadMs} ahead of the lower median of the sensors heard lately:
 * a sensor whose clock runs minutes fast does not make every other sensor's events late. Events
 * themselves all go on; ahead of the wall clock they are dead letters already (the deserializer).
 *
 * <p>Time also moves with the events every {@code stepMs} of event time, not only on the periodic
 * tick: a replay read faster than real time then passes connections' quiet periods as a live
 * stream does, so long-lived connections are cut instead of piling up until the tick.
 *
 * <p>Once no event has come for {@code idleMs} the partition is idle. Before saying so it lets
 * the time of every sensor that spoke until the end count, a sensor ahead included, and emits
 * that time: the others have stopped, so nothing they say can be made late, and the connections
 * the ahead sensor's time closes would otherwise wait for good (Flink's {@code withIdleness}
 * stops asking the generator while idle). Only sensors heard within {@code idleMs} of the last
 * event and with at least {@value #EVENTS_TO_CONFIRM_JUMP} events count then: a sensor seen
 * long ago or a one-event name cannot move time at a pause. Records without an event (dead
 * letters) are not activity.
 */
final class SensorWatermarks implements WatermarkGenerator<Incoming> {
    static final int EVENTS_TO_CONFIRM_JUMP = 16;
    /** Sensors tracked per partition: a stream of made-up sensor names cannot grow it further. */
    static final int MAX_SENSORS = 4096;
    private static final int FEW_SENSORS = 64;
    private static final Logger LOG = LoggerFactory.getLogger(SensorWatermarks.class);

    private final long outOfOrdernessMs;
    private final long stepMs;
    private final long maxAheadMs;
    private final long idleNs;
    /** Input activity time: it stands still while the split is paused for watermark alignment or backpressured. */
    private final RelativeClock clock;
    private final Map<String, SensorTime> sensors = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, SensorTime> eldest) {
            return size() > MAX_SENSORS;
        }
    };
    /** Sensor times above this are ahead of the others; recomputed on each tick and new sensor. */
    private long ceilingMs = Long.MAX_VALUE;
    private long maxTsMs = Long.MIN_VALUE;
    private long emittedMs = Long.MIN_VALUE;
    /** Clock time at the last tick: events are stamped with it (the clock's read is synchronised). */
    private long tickNs;
    private long lastEventNs;
    private boolean idle;

    private static final class SensorTime {
        long confirmedMs = Long.MIN_VALUE;
        int jumpRun;
        long jumpMinMs;
        long heardNs;
        /** Events heard, up to {@value #EVENTS_TO_CONFIRM_JUMP}. */
        int events;
        boolean reportedAhead;
    }

    /** {@code idleMs}: how long a sensor, or the whole partition, may be silent and still hold time back. */
    SensorWatermarks(long outOfOrdernessMs, long stepMs, long maxAheadMs, long idleMs, RelativeClock clock) {
        this.outOfOrdernessMs = outOfOrdernessMs;
        this.stepMs = stepMs;
        this.maxAheadMs = maxAheadMs;
        this.idleNs = idleMs * 1_000_000;
        this.clock = clock;
        this.tickNs = clock.relativeTimeNanos();
        this.lastEventNs = tickNs;
    }

    @Override
    public void onEvent(Incoming in, long timestampMs, WatermarkOutput output) {
        if (in.event == null) {
            return; // dead letters carry no event time, and a flood of them must not keep the partition from idling
        }
        lastEventNs = tickNs;
        if (idle) {
            output.markActive();
            idle = false;
        }
        SensorTime s = sensors.get(in.event.sensor());
        boolean isNew = s == null;
        if (isNew) {
            s = new SensorTime();
            sensors.put(in.event.sensor(), s);
            s.confirmedMs = timestampMs;
        }
        s.heardNs = lastEventNs;
        if (s.events < EVENTS_TO_CONFIRM_JUMP) {
            s.events++;
        }
        if (isNew && sensors.size() <= FEW_SENSORS) { // beyond, the tick does it: made-up names must not cost a sort each
            recomputeCeiling();
        }
        advance(s, timestampMs);
        if (s.confirmedMs <= ceilingMs) {
            maxTsMs = Math.max(maxTsMs, s.confirmedMs);
        }
        if (current() >= emittedMs + stepMs || emittedMs == Long.MIN_VALUE) {
            emit(output);
        }
    }

    private void advance(SensorTime s, long tsMs) {
        if (tsMs <= s.confirmedMs + maxAheadMs) {
            s.confirmedMs = Math.max(s.confirmedMs, tsMs);
            s.jumpRun = 0;
            return;
        }
        s.jumpMinMs = s.jumpRun == 0 ? tsMs : Math.min(s.jumpMinMs, tsMs);
        if (++s.jumpRun >= EVENTS_TO_CONFIRM_JUMP) {
            s.confirmedMs = s.jumpMinMs;
            s.jumpRun = 0;
        }
    }

    @Override
    public void onPeriodicEmit(WatermarkOutput output) {
        tickNs = clock.relativeTimeNanos();
        recomputeCeiling();
        if (maxTsMs != Long.MIN_VALUE && current() > emittedMs) {
            emit(output);
        } else if (!idle && tickNs - lastEventNs > idleNs) {
            // not in the tick that emitted: Flink combines the splits' watermarks after the tick and leaves an idle one's out
            output.markIdle();
            idle = true;
        }
    }

    /**
     * The lower median of the sensors heard lately, plus the tolerance. If none was, every sensor
     * that spoke until the end counts (see the class comment) and the ceiling stays as it was.
     */
    private void recomputeCeiling() {
        if (sensors.isEmpty()) {
            return;
        }
        long[] times = new long[sensors.size()];
        int n = 0;
        for (SensorTime s : sensors.values()) {
            if (tickNs - s.heardNs <= idleNs) {
                times[n++] = s.confirmedMs;
            }
        }
        if (n == 0) {
            for (SensorTime s : sensors.values()) {
                if (s.events >= EVENTS_TO_CONFIRM_JUMP && lastEventNs - s.heardNs <= idleNs) {
                    maxTsMs = Math.max(maxTsMs, s.confirmedMs);
                }
            }
            return;
        }
        Arrays.sort(times, 0, n);
        long median = times[(n - 1) / 2];
        ceilingMs = median > Long.MAX_VALUE - maxAheadMs ? Long.MAX_VALUE : median + maxAheadMs;
        for (Map.Entry<String, SensorTime> e : sensors.entrySet()) {
            SensorTime s = e.getValue();
            boolean ahead = s.confirmedMs > ceilingMs;
            if (ahead && !s.reportedAhead) {
                LOG.warn("sensor {} runs {} s ahead of the other sensors of its partition: its clock does not move event time",
                        e.getKey(), (s.confirmedMs - median) / 1000);
            } else if (!ahead) {
                maxTsMs = Math.max(maxTsMs, s.confirmedMs);
            }
            s.reportedAhead = ahead;
        }
    }

    int sensorsTracked() {
        return sensors.size();
    }

    private long current() {
        return maxTsMs - outOfOrdernessMs - 1;
    }

    private void emit(WatermarkOutput output) {
        emittedMs = current();
        output.emitWatermark(new Watermark(emittedMs));
    }
}
