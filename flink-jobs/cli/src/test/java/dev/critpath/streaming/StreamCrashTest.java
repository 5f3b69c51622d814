package dev.critpath.streaming;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.testing.Repo;
import dev.critpath.kafka.LocalKafka;
import dev.critpath.kafka.Replay;
import dev.critpath.warehouse.WarehouseReader;
import dev.critpath.warehouse.WarehouseTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `critpath stream` killed with SIGKILL mid-stream (the whole process, its MiniCluster with it),
 * then started again with the same arguments: it resumes from its last checkpoint, and the
 * warehouse holds every connection exactly once, equal to the core engine's analysis.
 */
class StreamCrashTest {
    @TempDir
    Path tmp;

    @Test
    void aKilledStreamProcessStartedAgainLosesNothingAndDuplicatesNothing() throws Exception {
        List<PacketEvent> events = LabReplay.events(LabReplay.scenarios("dl-20k", "fast-retransmit", "keepalive-3", "clock-offset", "random-batch"));
        int total = LabReplay.expectedRows(events).get(WarehouseTable.PROFILES).size();
        try (LocalKafka kafka = LocalKafka.start(Repo.root().resolve("flink-jobs/kafka-broker/target/lib"), tmp.resolve("kafka"))) {
            String topic = "crash";
            kafka.createTopic(topic, 2);
            int half = events.size() / 2;
            Replay.publish(kafka.bootstrapServers(), topic, Replay.json(events.subList(0, half)), n -> { });
            Path warehouse = tmp.resolve("wh");
            List<String> args = List.of("stream", "--bootstrap-servers", kafka.bootstrapServers(), "--topic", topic,
                    "--warehouse", warehouse.toString(), "--checkpoint-interval-s", "1", "--parallelism", "2");

            Path firstLog = tmp.resolve("first.log");
            Process first = StreamProcess.start(args, firstLog);
            try {
                LabReplay.awaitProfiles(warehouse, 1, Duration.ofSeconds(240), () -> "the first run: " + StreamProcess.tail(firstLog));
            } finally {
                first.destroyForcibly().waitFor(); // SIGKILL: no shutdown hook, no last checkpoint
            }
            int before = WarehouseReader.read(warehouse, WarehouseTable.PROFILES).size();
            assertTrue(before < total, "the kill must come mid-stream: " + before + " of " + total + " committed");
            // whether the kill caught a part file half written is chance: one such file is made sure of
            Path profiles = warehouse.resolve(WarehouseTable.PROFILES.tableName());
            Files.writeString(profiles.resolve(".part-" + UUID.randomUUID() + "-0-9.parquet.inprogress." + UUID.randomUUID()), "half a Parquet file");
            List<Path> leftBehind = inProgressParts(warehouse);
            System.out.println("the kill left " + (leftBehind.size() - 1) + " unfinished part files of its own");
            FileTime restartedAt = FileTime.from(Instant.now());

            Path secondLog = tmp.resolve("second.log");
            Process second = StreamProcess.start(args, secondLog);
            try {
                Replay.publish(kafka.bootstrapServers(), topic, Replay.json(events.subList(half, events.size())), n -> { });
                // event time moves past every connection's close timer
                PacketEvent last = events.get(events.size() - 1);
                LabReplay.passTime(kafka.bootstrapServers(), topic, 2, last, 600_000_000L);
                LabReplay.awaitProfiles(warehouse, total, Duration.ofSeconds(240), () -> "the second run: " + StreamProcess.tail(secondLog));
                Thread.sleep(3000); // a few more checkpoints: anything written twice would show now
            } finally {
                second.destroyForcibly().waitFor();
            }
            assertTrue(Files.readString(secondLog).contains("resuming from checkpoint"), StreamProcess.tail(secondLog));
            // those the checkpoint still held pending are committed instead
            assertTrue(Files.readString(secondLog).contains("unfinished part files an earlier run left"), StreamProcess.tail(secondLog));
            for (Path part : inProgressParts(warehouse)) {
                assertTrue(Files.getLastModifiedTime(part).compareTo(restartedAt) > 0, "left by the killed run: " + part);
            }
            LabReplay.assertTablesEqual(LabReplay.expectedRows(events), LabReplay.warehouseRows(warehouse)); // fails on any row seen twice
        }
    }

    private static List<Path> inProgressParts(Path warehouse) throws IOException {
        try (Stream<Path> files = Files.walk(warehouse)) {
            return files.filter(f -> f.getFileName().toString().contains(".inprogress.") && !f.toString().contains("_checkpoints")).toList();
        }
    }
}
