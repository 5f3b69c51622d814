package dev.critpath.streaming.kafka;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * A real single-node Kafka broker in KRaft mode (broker and controller in one process) on
 * localhost, run from the Maven Central jars in flink-jobs/kafka-broker/target/lib in a JVM of
 * its own. For the embedded default and the integration tests; production points at a cluster.
 */
public final class LocalKafka implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    private final Process process;
    private final int port;
    private final Path dir;

    private LocalKafka(Process process, int port, Path dir) {
        this.process = process;
        this.port = port;
        this.dir = dir;
    }

    /**
     * Formats a fresh log directory under {@code dir} and starts the broker on free ports.
     *
     * @param libDir the broker's jars (flink-jobs/kafka-broker/target/lib)
     */
    public static LocalKafka start(Path libDir, Path dir) throws IOException, InterruptedException {
        if (!Files.isDirectory(libDir) || !Files.exists(libDir.resolve(brokerJarName(libDir)))) {
            throw new IOException("the Kafka broker's jars are missing in " + libDir + " (build with: mvn -B package -DskipTests)");
        }
        Files.createDirectories(dir);
        int port = freePort();
        int controllerPort = freePort();
        Path props = dir.resolve("server.properties");
        Properties p = new Properties();
        p.setProperty("process.roles", "broker,controller");
        p.setProperty("node.id", "1");
        p.setProperty("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        p.setProperty("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.setProperty("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
        p.setProperty("controller.listener.names", "CONTROLLER");
        p.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.setProperty("log.dirs", dir.resolve("data").toString());
        p.setProperty("offsets.topic.replication.factor", "1");
        p.setProperty("transaction.state.log.replication.factor", "1");
        p.setProperty("transaction.state.log.min.isr", "1");
        p.setProperty("group.initial.rebalance.delay.ms", "0");
        p.setProperty("num.partitions", "1");
        try (var w = Files.newBufferedWriter(props, StandardCharsets.UTF_8)) {
            p.store(w, "critpath local broker");
        }
        Path log4j = dir.resolve("log4j.properties");
        Files.writeString(log4j, String.join("\n",
                "log4j.rootLogger=WARN, file",
                "log4j.appender.file=org.apache.log4j.FileAppender",
                "log4j.appender.file.File=" + dir.resolve("broker.log"),
                "log4j.appender.file.layout=org.apache.log4j.PatternLayout",
                "log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n", ""));
        String clusterId = kafkaUuid();
        Process format = java(libDir, log4j, dir.resolve("format.log"), "kafka.tools.StorageTool", "format", "-t", clusterId, "-c", props.toString());
        if (!format.waitFor(60, TimeUnit.SECONDS) || format.exitValue() != 0) {
            format.destroyForcibly();
            throw new IOException("formatting the Kafka log directory failed; see " + dir.resolve("format.log"));
        }
        Process broker = java(libDir, log4j, dir.resolve("broker.out"), "kafka.Kafka", props.toString());
        LocalKafka kafka = new LocalKafka(broker, port, dir);
        try {
            kafka.awaitReady();
        } catch (IOException | RuntimeException e) {
            kafka.close();
            throw e;
        }
        return kafka;
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    /** The broker's process, e.g. to read the CPU time it used. */
    public ProcessHandle process() {
        return process.toHandle();
    }

    /** Creates a topic (no-op if it exists). */
    public void createTopic(String name, int partitions) throws IOException {
        createTopic(bootstrapServers(), name, partitions);
    }

    /** Creates a topic on any single-broker Kafka (no-op if it exists). */
    public static void createTopic(String bootstrapServers, String name, int partitions) throws IOException {
        try (Admin admin = admin(bootstrapServers)) {
            if (!admin.listTopics().names().get().contains(name)) {
                admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get();
            }
        } catch (ExecutionException e) {
            throw new IOException("creating topic " + name + ": " + e.getCause().getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    private static Admin admin(String bootstrapServers) {
        Properties p = new Properties();
        p.setProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.setProperty(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        p.setProperty(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
        return Admin.create(p);
    }

    private void awaitReady() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("the Kafka broker exited with " + process.exitValue() + "; see " + dir.resolve("broker.log")
                        + " and " + dir.resolve("broker.out"));
            }
            if (accepts(port)) {
                try (Admin admin = admin(bootstrapServers())) {
                    admin.describeCluster().nodes().get(10, TimeUnit.SECONDS);
                    return;
                } catch (ExecutionException | TimeoutException e) {
                    // the controller may still be electing itself
                }
            }
            Thread.sleep(200);
        }
        throw new IOException("the Kafka broker did not come up within " + START_TIMEOUT.toSeconds() + " s; see " + dir.resolve("broker.log"));
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private static Process java(Path libDir, Path log4j, Path out, String mainClass, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms128m", "-Xmx512m", "-Dlog4j.configuration=file:" + log4j, "-cp", libDir.resolve("*").toString(), mainClass));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    }

    private static String brokerJarName(Path libDir) throws IOException {
        try (var s = Files.list(libDir)) {
            return s.map(f -> f.getFileName().toString()).filter(n -> n.startsWith("kafka_2.13-")).findFirst().orElse("kafka_2.13-*.jar");
        }
    }

    /** Kafka's cluster ids are base64url UUIDs without padding. */
    /** A cluster id as Kafka's own Uuid makes them: never with a leading '-', which the format tool would read as an option. */
    private static String kafkaUuid() {
        while (true) {
            UUID u = UUID.randomUUID();
            ByteBuffer b = ByteBuffer.allocate(16).putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits());
            String id = Base64.getUrlEncoder().withoutPadding().encodeToString(b.array());
            if (!id.startsWith("-")) {
                return id;
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static boolean accepts(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
