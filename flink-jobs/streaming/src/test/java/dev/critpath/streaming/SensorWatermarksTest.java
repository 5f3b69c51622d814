package dev.critpath.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.event.CommunityId;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.event.TcpFlags;
import java.time.Duration;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.util.clock.ManualClock;
import org.junit.jupiter.api.Test;

/** The partition's event time as the watermark generator moves it, sensor by sensor. */
class SensorWatermarksTest {
    private static final long OUT_OF_ORDER_MS = 2_000;
    private static final long MAX_AHEAD_MS = 60_000;
    private static final long T0 = 1_795_000_000_000L;

    private static final long IDLE_MS = 30_000;

    private final ManualClock clock = new ManualClock();
    private final SensorWatermarks generator = new SensorWatermarks(OUT_OF_ORDER_MS, 100, MAX_AHEAD_MS, IDLE_MS, clock);
    private long watermark = Long.MIN_VALUE;
    private boolean idle;
    private final WatermarkOutput output = new WatermarkOutput() {
        @Override
        public void emitWatermark(Watermark w) {
            watermark = Math.max(watermark, w.getTimestamp());
            idle = false;
        }

        @Override
        public void markIdle() {
            idle = true;
        }

        @Override
        public void markActive() {
            idle = false;
        }
    };

    private void event(String sensor, long tsMs) {
        PacketEvent e = new PacketEvent(sensor, SensorRole.CLIENT, tsMs * 1000, CommunityId.tcpV1("10.0.0.1", 40000, "10.0.0.2", 80, 0),
                "10.0.0.1", 40000, "10.0.0.2", 80, true, TcpFlags.ACK, 1, 1, 0, 1000, -1, -1, null, null, -1, -1, 1, 64, PacketEvent.ABSENT);
        generator.onEvent(Incoming.of(e), tsMs, output);
        generator.onPeriodicEmit(output);
    }

    /** Time as the watermark says it: the latest event time that counts. */
    private long time() {
        return watermark + OUT_OF_ORDER_MS + 1;
    }

    @Test
    void aTickBeforeAnyEventEmitsNothing() {
        generator.onPeriodicEmit(output);
        assertEquals(Long.MIN_VALUE, watermark);
    }

    @Test
    void oneEventStampedMinutesAheadDoesNotMoveTime() {
        for (int i = 0; i < 100; i++) {
            event("a", T0 + i * 10);
        }
        event("a", T0 + 600_000);
        for (int i = 100; i < 200; i++) {
            event("a", T0 + i * 10);
        }
        assertEquals(T0 + 1990, time());
    }

    @Test
    void aJumpTheSensorsNextEventsConfirmMovesTime() {
        event("a", T0);
        for (int i = 0; i < SensorWatermarks.EVENTS_TO_CONFIRM_JUMP - 1; i++) {
            event("a", T0 + 600_000 + i);
        }
        assertEquals(T0, time(), "not yet: a quiet gap in a replay looks the same as mis-stamped events at first");
        event("a", T0 + 600_000 + 99);
        assertEquals(T0 + 600_000, time(), "the earliest of the run that confirmed it");
    }

    @Test
    void aSensorMinutesAheadOfTheOthersDoesNotMoveTimeButSecondsAheadDoes() {
        for (int i = 0; i < 50; i++) {
            event("client-side", T0 + i * 10);
            event("server-side", T0 + 1500 + i * 10); // unsynchronised, 1.5 s ahead: normal
            event("fast-clock", T0 + 600_000 + i * 10);
        }
        assertEquals(T0 + 1500 + 490, time());
    }

    /**
     * History replayed while a sensor speaks the present (a job resumed from a checkpoint reads
     * both at once), then silence: the present's time must count before the partition goes idle,
     * or the replayed connections wait for good.
     */
    @Test
    void whenEverySensorFallsSilentTheOneAheadMovesTimeBeforeThePartitionIsIdle() {
        long now = T0 + 86_400_000;
        for (int i = 0; i < 50; i++) {
            event("replayed-client", T0 + i * 10);
            event("replayed-server", T0 + 5 + i * 10);
        }
        for (int i = 0; i < 64; i++) {
            event("live", now + i);
        }
        assertEquals(T0 + 5 + 490, time(), "while the replayed sensors speak, the live one is ahead of them");
        clock.advanceTime(Duration.ofMillis(IDLE_MS));
        generator.onPeriodicEmit(output);
        assertEquals(T0 + 5 + 490, time(), "silent for the idle time, not longer: still held back");
        assertFalse(idle);
        clock.advanceTime(Duration.ofMillis(200));
        generator.onPeriodicEmit(output);
        assertEquals(now + 63, time(), "every sensor silent: nothing can be made late any more");
        assertFalse(idle, "not idle in the tick that emits: Flink would leave the time out");
        generator.onPeriodicEmit(output);
        assertTrue(idle, "then the partition is idle");
        generator.onPeriodicEmit(output);
        assertTrue(idle, "and stays so");
        event("replayed-client", T0 + 600);
        assertFalse(idle, "an event wakes it");
        assertEquals(now + 63, time(), "time never goes back");
    }

    @Test
    void atAPauseOnlySensorsThatSpokeUntilTheEndAndWereConfirmedMoveTime() {
        for (int i = 0; i < 50; i++) {
            event("replay-a", T0 + i * 10);
            event("replay-b", T0 + 5 + i * 10);
            event("long-gone", T0 + 3_600_000 + i); // an hour ahead, then silent
        }
        for (int i = 50; i < 500; i++) { // the replay goes on for longer than the idle time
            clock.advanceTime(Duration.ofMillis(IDLE_MS / 100));
            event("replay-a", T0 + i * 10);
            event("replay-b", T0 + 5 + i * 10);
        }
        event("one-event-name", T0 + 1_800_000);
        clock.advanceTime(Duration.ofMillis(IDLE_MS + 200));
        generator.onPeriodicEmit(output);
        generator.onPeriodicEmit(output);
        assertTrue(idle);
        assertEquals(T0 + 5 + 4990, time(), "a paused replay's time stays its own");
    }

    @Test
    void deadLettersAloneDoNotKeepThePartitionActive() {
        event("a", T0);
        DeadLetter d = new DeadLetter(T0 * 1000, "sensor_clock_ahead", "", "fast", "json", "{}");
        for (int i = 0; i <= IDLE_MS / 100; i++) {
            clock.advanceTime(Duration.ofMillis(101));
            generator.onEvent(Incoming.dead(d), T0, output);
            generator.onPeriodicEmit(output);
        }
        assertTrue(idle, "only dead letters for longer than the idle time: idle, so the other partitions' time moves on");
    }

    @Test
    void aPartitionWithoutEventsGoesIdleAfterTheIdleTime() {
        clock.advanceTime(Duration.ofMillis(IDLE_MS));
        generator.onPeriodicEmit(output);
        assertFalse(idle);
        clock.advanceTime(Duration.ofMillis(1));
        generator.onPeriodicEmit(output);
        assertTrue(idle);
        assertEquals(Long.MIN_VALUE, watermark);
    }

    @Test
    void madeUpSensorNamesKeepTheTableBounded() {
        for (int i = 0; i < SensorWatermarks.MAX_SENSORS * 3; i++) {
            event("sensor-" + i, T0 + i);
        }
        assertEquals(SensorWatermarks.MAX_SENSORS, generator.sensorsTracked());
        assertEquals(T0 + SensorWatermarks.MAX_SENSORS * 3 - 1, time());
    }
}
