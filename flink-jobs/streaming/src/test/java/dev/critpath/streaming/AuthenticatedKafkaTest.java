package dev.critpath.streaming;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.testing.Repo;
import dev.critpath.kafka.KafkaClientProperties;
import dev.critpath.kafka.LocalKafka;
import dev.critpath.kafka.Replay;
import dev.critpath.warehouse.WarehouseTable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker whose listener authenticates (SASL SCRAM-SHA-256): the replay and the job, given the
 * client settings file, go through it and the warehouse equals the core engine's analysis (a
 * replay with a wrong password: kafka-tools' ReplayTest).
 */
class AuthenticatedKafkaTest {
    private static final String USER = "sensor";
    private static final String PASSWORD = "pw-for-the-test";

    @TempDir
    static Path tmp;
    static LocalKafka kafka;

    @BeforeAll
    static void broker() throws Exception {
        kafka = LocalKafka.startWithScramUser(Repo.root().resolve("flink-jobs/kafka-broker/target/lib"), tmp.resolve("kafka"), USER, PASSWORD);
    }

    @AfterAll
    static void stop() {
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void theJobReadsEveryFixtureThroughTheAuthenticatedListener() throws Exception {
        KafkaClientProperties client = KafkaClientProperties.load(LocalKafka.writeScramClientConfig(tmp.resolve("client.properties"), USER, PASSWORD));
        List<PacketEvent> events = LabReplay.events(LabReplay.scenarios());
        String topic = "authenticated";
        kafka.createTopic(topic, 2);
        Replay.publish(kafka.authenticatedBootstrapServers(), client, topic, Replay.json(events), n -> { });
        Path warehouse = tmp.resolve("wh");
        StreamConfig cfg = StreamConfig.defaults(kafka.authenticatedBootstrapServers(), warehouse.toString()).withKafkaClient(client)
                .withTopic(topic, "test-" + topic).withBounded(true).withCheckpointing(Duration.ofSeconds(1), null).withParallelism(2);
        CritpathJob job = CritpathJob.kafkaToParquet(cfg);
        job.run(job.localEnvironment());

        Map<WarehouseTable, Map<String, List<String>>> expected = LabReplay.expectedRows(events);
        assertTrue(expected.get(WarehouseTable.PROFILES).size() >= 60, "fixtures hold " + expected.get(WarehouseTable.PROFILES).size() + " connections");
        LabReplay.assertTablesEqual(expected, LabReplay.warehouseRows(warehouse));
    }
}
