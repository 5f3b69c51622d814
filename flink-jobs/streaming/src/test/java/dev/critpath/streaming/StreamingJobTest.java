package dev.critpath.streaming;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.kafka.Replay;
import dev.critpath.warehouse.WarehouseTable;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The job end to end on a real Kafka broker and a Flink MiniCluster: every lab fixture replayed as
 * the two sensors' events, read back from Parquet, must equal the core engine's own analysis of
 * the same events, table by table, row by row.
 */
class StreamingJobTest extends JobTestBase {
    /**
     * Three keyless partitions read by two parallel readers, and up to 500 ms of extra reordering;
     * the fixtures include three scenarios whose server sensor runs 1.5 s ahead.
     */
    @Test
    void everyFixtureReplayedOutOfOrderGivesTheCoreEnginesRows() throws Exception {
        List<PacketEvent> events = LabReplay.events(LabReplay.scenarios());
        String topic = "all-fixtures";
        kafka.createTopic(topic, 3);
        Replay.publish(kafka.bootstrapServers(), topic, Replay.json(LabReplay.disordered(events, 500_000, 7)), n -> { });
        Path warehouse = tmp.resolve("wh-all");
        run(boundedJob(topic, warehouse));

        Map<WarehouseTable, Map<String, List<String>>> expected = LabReplay.expectedRows(events);
        Map<WarehouseTable, Map<String, List<String>>> got = LabReplay.warehouseRows(warehouse);
        assertTrue(expected.get(WarehouseTable.PROFILES).size() >= 60, "fixtures hold " + expected.get(WarehouseTable.PROFILES).size() + " connections");
        LabReplay.assertTablesEqual(expected, got);
    }
}
