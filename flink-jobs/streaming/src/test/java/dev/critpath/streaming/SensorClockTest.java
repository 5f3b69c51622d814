package dev.critpath.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.kafka.Replay;
import dev.critpath.warehouse.WarehouseReader;
import dev.critpath.warehouse.WarehouseTable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A sensor whose clock runs ten minutes fast, and one event stamped ten minutes ahead, in
 * live-paced traffic into an unbounded job: they are sensor_clock_ahead dead letters, and every
 * other sensor's connection is profiled exactly as the core engine profiles it, none late, none
 * cut short. On one partition (where they share the watermark) and on several.
 */
class SensorClockTest extends JobTestBase {
    private static final long TEN_MINUTES_US = LabReplay.TEN_MINUTES_US;

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void aSensorOrAnEventMinutesAheadCostsItsOwnEventsNeverTheOthers(int partitions) throws Exception {
        String topic = "sensor-clock-" + partitions;
        kafka.createTopic(topic, partitions);
        Path warehouse = tmp.resolve("wh-clock-" + partitions);
        CritpathJob job = CritpathJob.kafkaToParquet(boundedJob(topic, warehouse).withBounded(false).withParallelism(Math.min(2, partitions)));
        StreamExecutionEnvironment env = job.localEnvironment();
        job.build(env);
        JobClient client = env.executeAsync("critpath");
        List<PacketEvent> good;
        int fastEvents;
        try {
            long startUs = System.currentTimeMillis() * 1000 + 5_000_000; // after the job is up
            good = LabReplay.live(LabReplay.events(LabReplay.scenarios("dl-20k", "fast-retransmit", "keepalive-3", "clock-offset",
                    "tail-timeout", "think-100ms")), startUs);
            List<LabReplay.Timed> sends = new ArrayList<>();
            good.forEach(e -> sends.add(LabReplay.Timed.of(e.tsUs(), e)));
            PacketEvent first = good.get(0);
            List<PacketEvent> fast = LabReplay.fastClockSensor(good);
            fastEvents = fast.size();
            fast.forEach(e -> sends.add(LabReplay.Timed.of(e.tsUs() - TEN_MINUTES_US, e)));
            PacketEvent ahead = LabReplay.syn(first.sensor(), "192.0.2.200", first.tsUs() + 2_000_000 + TEN_MINUTES_US);
            sends.add(LabReplay.Timed.of(ahead.tsUs() - TEN_MINUTES_US, ahead));
            long lastUs = good.get(good.size() - 1).tsUs();
            for (long t = lastUs + 100_000, i = 0; t < lastUs + 15_000_000; t += 100_000, i++) { // live traffic goes on
                sends.add(LabReplay.Timed.of(t, LabReplay.syn(first.sensor(), "198.51.100." + (1 + i % 250), t)));
            }
            LabReplay.publishLive(kafka.bootstrapServers(), topic, sends);
            int total = LabReplay.expectedRows(good).get(WarehouseTable.PROFILES).size();
            LabReplay.awaitProfiles(warehouse, total, Duration.ofSeconds(120), () -> jobState(client));
            Thread.sleep(3000); // a few more checkpoints: anything late or written twice would show now
            assertEquals(JobStatus.RUNNING, client.getJobStatus().get(), "the job still runs");
        } finally {
            if (!client.getJobExecutionResult().isDone()) {
                client.cancel().get();
            }
        }
        LabReplay.assertTablesEqual(LabReplay.expectedRows(good), LabReplay.warehouseRows(warehouse));
        Map<String, Integer> reasons = new TreeMap<>();
        for (GenericRecord d : WarehouseReader.read(warehouse, WarehouseTable.DEAD_LETTERS)) {
            reasons.merge(d.get("reason").toString(), 1, Integer::sum);
            if (d.get("reason").toString().equals("sensor_clock_ahead")) {
                assertTrue(d.get("detail").toString().matches("sensor \\S+ stamped this event (59\\d|600) s ahead of the job's clock.*"), d.toString());
            }
        }
        assertEquals(0, reasons.getOrDefault("late_event", 0), "no good event late: " + reasons);
        assertEquals(fastEvents + 1, reasons.getOrDefault("sensor_clock_ahead", 0), reasons.toString());
    }

    /**
     * Yesterday's traffic replayed as fast as it reads: nothing is ahead of the job's clock, so the
     * fast sensor's events and the mis-stamped one go on, but they do not move event time.
     */
    @Test
    void inAReplayOfHistoryASensorAheadDoesNotMakeTheOthersLate() throws Exception {
        List<PacketEvent> good = LabReplay.events(LabReplay.scenarios("dl-20k", "fast-retransmit", "keepalive-3", "clock-offset",
                "tail-timeout", "think-100ms"));
        good = new ArrayList<>(good);
        good.sort(PacketEvent.CAPTURE_ORDER);
        List<PacketEvent> fast = LabReplay.fastClockSensor(good);
        PacketEvent first = good.get(0);
        List<PacketEvent> records = new ArrayList<>(good);
        for (PacketEvent f : fast) { // published as it happened, stamped ten minutes on
            records.add(records.indexOf(good.get(0)) + 1 + fast.indexOf(f), f);
        }
        records.add(40, LabReplay.syn(first.sensor(), "192.0.2.200", first.tsUs() + TEN_MINUTES_US));
        String topic = "sensor-clock-replay";
        kafka.createTopic(topic, 1);
        Replay.publish(kafka.bootstrapServers(), topic, Replay.json(records), n -> { });
        Path warehouse = tmp.resolve("wh-clock-replay");
        run(boundedJob(topic, warehouse).withParallelism(1));

        List<PacketEvent> analysed = new ArrayList<>(good);
        analysed.addAll(fast); // the fast sensor's own connection is whole: analysed once event time reaches it
        LabReplay.assertTablesEqual(LabReplay.expectedRows(analysed), LabReplay.warehouseRows(warehouse));
        Map<String, Integer> reasons = new TreeMap<>();
        WarehouseReader.read(warehouse, WarehouseTable.DEAD_LETTERS).forEach(d -> reasons.merge(d.get("reason").toString(), 1, Integer::sum));
        assertEquals(Map.of("half_open_connection", 1), reasons, "only the mis-stamped SYN's own flow");
    }

    /**
     * History and the present read in one go, as a job resumed from a checkpoint reads the history
     * it had not taken yet beside a sensor speaking now, then silence: the present sensor is far
     * ahead of the replayed ones, so its time does not count while they speak; once every sensor
     * has fallen silent it must, or the history's last connections wait for good.
     */
    @Test
    void whenTheReplayedSensorsFallSilentTheLiveOneClosesTheirConnections() throws Exception {
        List<PacketEvent> history = LabReplay.events(LabReplay.scenarios("dl-20k", "fast-retransmit", "think-100ms"));
        List<byte[]> records = new ArrayList<>(Replay.json(history));
        long nowUs = System.currentTimeMillis() * 1000;
        for (int i = 0; i < SensorWatermarks.EVENTS_TO_CONFIRM_JUMP; i++) { // fewer would not count at the pause
            records.add(Replay.json(LabReplay.syn("live-sensor", "198.51.100." + (1 + i), nowUs + i)));
        }
        String topic = "history-then-silence";
        kafka.createTopic(topic, 1); // one partition: the live sensor and the replayed ones share its watermark
        Replay.publish(kafka.bootstrapServers(), topic, records, n -> { });
        Path warehouse = tmp.resolve("wh-history-then-silence");
        CritpathJob job = CritpathJob.kafkaToParquet(boundedJob(topic, warehouse).withBounded(false).withParallelism(1));
        StreamExecutionEnvironment env = job.localEnvironment();
        job.build(env);
        JobClient client = env.executeAsync("critpath");
        try {
            int total = LabReplay.expectedRows(history).get(WarehouseTable.PROFILES).size();
            LabReplay.awaitProfiles(warehouse, total, Duration.ofSeconds(180), () -> jobState(client));
        } finally {
            if (!client.getJobExecutionResult().isDone()) {
                client.cancel().get();
            }
        }
        LabReplay.assertTablesEqual(LabReplay.expectedRows(history), LabReplay.warehouseRows(warehouse));
    }

    static String jobState(JobClient client) {
        var result = client.getJobExecutionResult();
        if (!result.isDone()) {
            return "job running";
        }
        try {
            return "job ended: " + result.get();
        } catch (Exception e) {
            Throwable root = e;
            while (root.getCause() != null) {
                root = root.getCause();
            }
            return "job failed: " + root;
        }
    }
}
