package dev.critpath.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.screen.Screen;
import dev.critpath.core.testing.Repo;
import dev.critpath.kafka.LocalKafka;
import dev.critpath.kafka.Replay;
import dev.critpath.warehouse.WarehouseTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * The product as deployed: the critpath jar submitted with `flink run` to a Flink session cluster
 * (JobManager and TaskManager containers from the local Flink image) reading the Kafka container,
 * writing Parquet to a shared warehouse directory. The committed rows equal the core engine's.
 */
@ExtendWith(ContainerEngine.class) // first: it finds podman where Docker is absent
@Testcontainers(disabledWithoutDocker = true)
class FlinkSessionClusterTest {
    private static final String FLINK_PROPERTIES = String.join("\n",
            "jobmanager.rpc.address: jobmanager",
            "rest.address: jobmanager",
            "taskmanager.numberOfTaskSlots: 2",
            "state.backend.type: rocksdb",
            "execution.checkpointing.dir: file:///warehouse/_checkpoints");

    @TempDir
    Path tmp;

    @Test
    void theJarOnASessionClusterGivesTheCoreEnginesRows() throws Exception {
        List<PacketEvent> events = LabReplay.events(LabReplay.scenarios("dl-20k", "fast-retransmit", "keepalive-3", "clock-offset", "random-batch"));
        Path warehouse = Files.createDirectories(tmp.resolve("warehouse"));
        Path jar = Repo.root().resolve("flink-jobs/cli/target/critpath.jar");
        assertTrue(Files.isRegularFile(jar), "the shaded jar is built before this module's tests: " + jar);
        String flinkImage = LocalImages.get("FLINK_IMAGE");
        String topic = "session-cluster";
        try (Network network = Network.newNetwork();
                var jobmanager = flink(flinkImage, network, warehouse).withCommand("jobmanager").withNetworkAliases("jobmanager")
                        .withExposedPorts(8081).withFileSystemBind(jar.toString(), "/opt/critpath/critpath.jar", BindMode.READ_ONLY)
                        .waitingFor(Wait.forHttp("/overview").forPort(8081).withStartupTimeout(Duration.ofMinutes(2)));
                var taskmanager = flink(flinkImage, network, warehouse).withCommand("taskmanager")
                        .waitingFor(Wait.forLogMessage(".*Successful registration at resource manager.*\\n", 1)
                                .withStartupTimeout(Duration.ofMinutes(2)))) {
            KafkaContainers.Broker kafka = KafkaContainers.broker(network);
            try (var broker = kafka.container()) {
                broker.start();
                jobmanager.start();
                taskmanager.start();
                LocalKafka.createTopic(kafka.bootstrapServers(), topic, 2);

                ExecResult run = jobmanager.execInContainer("flink", "run", "-d", "-m", "localhost:8081", "/opt/critpath/critpath.jar", "stream",
                        "--bootstrap-servers", KafkaContainers.INTERNAL_BOOTSTRAP, "--topic", topic, "--warehouse", "file:///warehouse",
                        "--checkpoint-dir", "file:///warehouse/_checkpoints", "--checkpoint-interval-s", "1", "--state-backend", "rocksdb",
                        "--parallelism", "2");
                assertEquals(0, run.getExitCode(), run.getStdout() + run.getStderr());
                assertTrue(run.getStdout().contains("Job has been submitted with JobID"), run.getStdout());

                Replay.publish(kafka.bootstrapServers(), topic, Replay.json(LabReplay.disordered(events, 500_000, 13)), n -> { });
                // event time moves ten minutes on, past every connection's close timer
                LabReplay.passTime(kafka.bootstrapServers(), topic, 2, events.get(events.size() - 1), 600_000_000L);
                // the core's rows with the built-in screen rules only: the jar has no test plugin rule
                Properties builtIn = new Properties();
                builtIn.setProperty("rules", String.join(",", Screen.DEFAULT_RULES));
                var expected = LabReplay.expectedRows(events, Screen.fromProperties(builtIn, null));
                LabReplay.awaitProfiles(warehouse, expected.get(WarehouseTable.PROFILES).size(), Duration.ofMinutes(3),
                        () -> "TaskManager log ends:\n" + tail(taskmanager.getLogs()));
                Thread.sleep(3000); // a few more checkpoints: a row committed twice would show now
                LabReplay.assertTablesEqual(expected, LabReplay.warehouseRows(warehouse));
            }
        }
    }

    @SuppressWarnings("resource") // closed by the test's try-with-resources
    private static GenericContainer<?> flink(String image, Network network, Path warehouse) {
        return new GenericContainer<>(image).withNetwork(network).withEnv("FLINK_PROPERTIES", FLINK_PROPERTIES)
                .withFileSystemBind(warehouse.toString(), "/warehouse", BindMode.READ_WRITE);
    }

    private static String tail(String log) {
        return log.substring(Math.max(0, log.length() - 4000));
    }
}
