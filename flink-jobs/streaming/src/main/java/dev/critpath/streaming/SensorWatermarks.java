package dev.critpath.streaming;

import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;

/**
 * Bounded out-of-orderness watermarks that also move with the events themselves, every
 * {@code stepMs} of event time, not only on the periodic tick: a replay read faster than real time
 * then passes connections' quiet periods as a live stream does, so long-lived connections are cut
 * (and their packets dropped) instead of piling up until the tick.
 */
final class SensorWatermarks implements WatermarkGenerator<Incoming> {
    private final long outOfOrdernessMs;
    private final long stepMs;
    private long maxTsMs = Long.MIN_VALUE;
    private long emittedMs = Long.MIN_VALUE;

    SensorWatermarks(long outOfOrdernessMs, long stepMs) {
        this.outOfOrdernessMs = outOfOrdernessMs;
        this.stepMs = stepMs;
    }

    @Override
    public void onEvent(Incoming in, long timestampMs, WatermarkOutput output) {
        if (in.event == null) {
            return; // dead letters carry no event time
        }
        maxTsMs = Math.max(maxTsMs, timestampMs);
        if (current() >= emittedMs + stepMs || emittedMs == Long.MIN_VALUE) {
            emit(output);
        }
    }

    @Override
    public void onPeriodicEmit(WatermarkOutput output) {
        if (maxTsMs != Long.MIN_VALUE && current() > emittedMs) {
            emit(output);
        }
    }

    private long current() {
        return maxTsMs - outOfOrdernessMs - 1;
    }

    private void emit(WatermarkOutput output) {
        emittedMs = current();
        output.emitWatermark(new Watermark(emittedMs));
    }
}
