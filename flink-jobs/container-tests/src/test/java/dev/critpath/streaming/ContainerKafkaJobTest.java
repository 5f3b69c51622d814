package dev.critpath.streaming;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.kafka.LocalKafka;
import dev.critpath.kafka.Replay;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.containers.Network;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * The streaming job on a MiniCluster reading the containerised broker (the local Kafka image):
 * every lab fixture, out of order and with +1.5 s sensors among them, gives the core engine's rows.
 */
@ExtendWith(ContainerEngine.class) // first: it finds podman where Docker is absent
@Testcontainers(disabledWithoutDocker = true)
class ContainerKafkaJobTest {
    @TempDir
    Path tmp;

    @Test
    void theJobOnTheKafkaImageGivesTheCoreEnginesRows() throws Exception {
        List<PacketEvent> events = LabReplay.events(LabReplay.scenarios());
        try (Network network = Network.newNetwork()) {
            KafkaContainers.Broker kafka = KafkaContainers.broker(network);
            try (var broker = kafka.container()) {
                broker.start();
                String topic = "container-fixtures";
                LocalKafka.createTopic(kafka.bootstrapServers(), topic, 3);
                Replay.publish(kafka.bootstrapServers(), topic, Replay.json(LabReplay.disordered(events, 500_000, 11)), n -> { });
                Path warehouse = tmp.resolve("wh");
                StreamConfig cfg = StreamConfig.defaults(kafka.bootstrapServers(), warehouse.toString()).withTopic(topic, "container-test")
                        .withBounded(true).withCheckpointing(Duration.ofSeconds(1), null).withParallelism(2);
                CritpathJob job = CritpathJob.kafkaToParquet(cfg);
                job.run(job.localEnvironment());
            }
            LabReplay.assertTablesEqual(LabReplay.expectedRows(events), LabReplay.warehouseRows(tmp.resolve("wh")));
        }
    }
}
