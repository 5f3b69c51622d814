package dev.critpath.streaming;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import org.testcontainers.containers.FixedHostPortGenericContainer;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.wait.strategy.Wait;

/**
 * A single-node KRaft broker from the local Kafka image, configured as docker-compose.yml does:
 * {@code kafka:9092} for other containers on the network, {@code localhost:PORT} for the tests.
 * The host port is fixed (and free) because the broker must advertise the one clients reach.
 */
final class KafkaContainers {
    static final String INTERNAL_BOOTSTRAP = "kafka:9092";

    private KafkaContainers() {
    }

    /** A broker container, not started yet, and the host port it will answer on. */
    record Broker(GenericContainer<?> container, int port) {
        String bootstrapServers() {
            return "localhost:" + port;
        }
    }

    @SuppressWarnings({"deprecation", "resource"}) // FixedHostPortGenericContainer: the advertised port must be known before start
    static Broker broker(Network network) throws IOException, InterruptedException {
        int port = freePort();
        return new Broker(new FixedHostPortGenericContainer<>(LocalImages.get("KAFKA_IMAGE"))
                .withFixedExposedPort(port, port)
                .withNetwork(network)
                .withNetworkAliases("kafka")
                .withEnv("KAFKA_NODE_ID", "1")
                .withEnv("KAFKA_PROCESS_ROLES", "broker,controller")
                .withEnv("KAFKA_LISTENERS", "PLAINTEXT://:9092,CONTROLLER://:9093,EXTERNAL://:" + port)
                .withEnv("KAFKA_ADVERTISED_LISTENERS", "PLAINTEXT://" + INTERNAL_BOOTSTRAP + ",EXTERNAL://localhost:" + port)
                .withEnv("KAFKA_LISTENER_SECURITY_PROTOCOL_MAP", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,EXTERNAL:PLAINTEXT")
                .withEnv("KAFKA_CONTROLLER_LISTENER_NAMES", "CONTROLLER")
                .withEnv("KAFKA_CONTROLLER_QUORUM_VOTERS", "1@localhost:9093")
                .withEnv("KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR", "1")
                .withEnv("KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR", "1")
                .withEnv("KAFKA_TRANSACTION_STATE_LOG_MIN_ISR", "1")
                .withEnv("KAFKA_HEAP_OPTS", "-Xmx512m -Xms512m")
                .waitingFor(Wait.forLogMessage(".*Kafka Server started.*\\n", 1).withStartupTimeout(Duration.ofMinutes(2))), port);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
