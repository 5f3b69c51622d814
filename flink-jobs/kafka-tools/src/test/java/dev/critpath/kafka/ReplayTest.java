package dev.critpath.kafka;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.testing.Repo;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The replay publisher against the local broker's authenticated listener (SASL SCRAM-SHA-256). */
class ReplayTest {
    private static final String USER = "sensor";
    private static final String PASSWORD = "pw-for-the-test";

    @TempDir
    Path tmp;

    @Test
    void aReplayWithAWrongPasswordIsRefusedNamingAuthentication() throws Exception {
        try (LocalKafka kafka = LocalKafka.startWithScramUser(Repo.root().resolve("flink-jobs/kafka-broker/target/lib"), tmp.resolve("kafka"), USER, PASSWORD)) {
            KafkaClientProperties wrong = KafkaClientProperties.load(LocalKafka.writeScramClientConfig(tmp.resolve("wrong.properties"), USER, "not-" + PASSWORD));
            kafka.createTopic("refused", 1);
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> Replay.publish(kafka.authenticatedBootstrapServers(), wrong, "refused", List.of(new byte[] {'{', '}'}), n -> { }));
            assertTrue(e.getMessage().contains("Authentication failed"), e.getMessage());
        }
    }
}
