package dev.critpath.streaming;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.kafka.Replay;
import dev.critpath.warehouse.WarehouseReader;
import dev.critpath.warehouse.WarehouseTable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

/**
 * The running job loses its TaskManager mid-stream, restarts from its last checkpoint on a new
 * one, and the committed Parquet still holds every connection exactly once, equal to the core
 * engine's analysis.
 */
class FailoverTest extends JobTestBase {
    @Test
    void aTaskManagerLostMidStreamCostsNoRowAndDuplicatesNone() throws Exception {
        List<PacketEvent> events = LabReplay.events(LabReplay.scenarios("dl-20k", "fast-retransmit", "keepalive-3", "clock-offset", "random-batch"));
        String topic = "failover";
        kafka.createTopic(topic, 2);
        int half = events.size() / 2;
        Replay.publish(kafka.bootstrapServers(), topic, Replay.json(events.subList(0, half)), n -> { });

        Path warehouse = tmp.resolve("wh-failover");
        StreamConfig cfg = boundedJob(topic, warehouse).withBounded(false).withCheckpointing(Duration.ofMillis(500), tmp.resolve("checkpoints").toUri().toString());
        CritpathJob job = CritpathJob.kafkaToParquet(cfg);
        Configuration conf = job.flinkConfiguration();
        try (MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder().setConfiguration(conf)
                .setNumTaskManagers(1).setNumSlotsPerTaskManager(2).build())) {
            cluster.start();
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
            job.build(env);
            JobGraph graph = env.getStreamGraph().getJobGraph();
            JobID id = cluster.submitJob(graph).get().getJobID();

            int total = LabReplay.expectedRows(events).get(WarehouseTable.PROFILES).size();
            awaitProfiles(cluster, id, warehouse, 1, Duration.ofSeconds(120)); // a checkpoint committed some connections
            int before = WarehouseReader.read(warehouse, WarehouseTable.PROFILES).size();
            assertTrue(before < total, "the failure must come mid-stream: " + before + " of " + total + " done");
            cluster.startTaskManager();
            cluster.terminateTaskManager(0).get();

            Replay.publish(kafka.bootstrapServers(), topic, Replay.json(events.subList(half, events.size())), n -> { });
            // event time moves past every connection's close timer
            PacketEvent last = events.get(events.size() - 1);
            LabReplay.passTime(kafka.bootstrapServers(), topic, 2, last, 600_000_000L);
            awaitProfiles(cluster, id, warehouse, total, Duration.ofSeconds(180));
            Thread.sleep(1500); // a few more checkpoints: anything duplicated would show now

            assertTrue(cluster.getArchivedExecutionGraph(id).get().getStatusTimestamp(JobStatus.RESTARTING) > 0, "the job restarted");
            cluster.cancelJob(id).get();
        }
        LabReplay.assertTablesEqual(LabReplay.expectedRows(events), LabReplay.warehouseRows(warehouse)); // fails on any row seen twice
    }

    private static void awaitProfiles(MiniCluster cluster, JobID id, Path warehouse, int n, Duration timeout) throws Exception {
        LabReplay.awaitProfiles(warehouse, n, timeout, () -> {
            var graph = cluster.getArchivedExecutionGraph(id).get();
            return "job " + graph.getState() + (graph.getFailureInfo() == null ? "" : ", failed: " + graph.getFailureInfo().getExceptionAsString());
        });
    }
}
