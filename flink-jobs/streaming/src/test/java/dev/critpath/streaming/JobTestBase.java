package dev.critpath.streaming;

import dev.critpath.core.testing.Repo;
import dev.critpath.kafka.LocalKafka;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** A real Kafka broker per test class, and the job run on a local MiniCluster until its input ends. */
abstract class JobTestBase {
    @TempDir
    static Path tmp;
    static LocalKafka kafka;

    @BeforeAll
    static void broker() throws Exception {
        kafka = LocalKafka.start(Repo.root().resolve("flink-jobs/kafka-broker/target/lib"), tmp.resolve("kafka"));
    }

    @AfterAll
    static void stop() {
        if (kafka != null) {
            kafka.close();
        }
    }

    static StreamConfig boundedJob(String topic, Path warehouse) {
        return StreamConfig.defaults(kafka.bootstrapServers(), warehouse.toString()).withTopic(topic, "test-" + topic).withBounded(true)
                .withCheckpointing(Duration.ofSeconds(1), null).withParallelism(2);
    }

    static void run(StreamConfig cfg) throws Exception {
        CritpathJob job = CritpathJob.kafkaToParquet(cfg);
        job.run(job.localEnvironment());
    }
}
