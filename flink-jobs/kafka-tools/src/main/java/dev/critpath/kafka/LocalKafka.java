package dev.critpath.kafka;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.security.scram.ScramLoginModule;

/**
 * A real single-node Kafka broker in KRaft mode (broker and controller in one process) on
 * localhost, run from the Maven Central jars in flink-jobs/kafka-broker/target/lib in a JVM of
 * its own. For the embedded default and the integration tests; production points at a cluster.
 */
public final class LocalKafka implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    /** The authenticated listener's mechanism: SCRAM sends no password over the wire, unlike PLAIN. */
    private static final String SCRAM_MECHANISM = "SCRAM-SHA-256";

    private final Process process;
    private final int port;
    private final int saslPort;
    private final Path dir;

    private LocalKafka(Process process, int port, int saslPort, Path dir) {
        this.process = process;
        this.port = port;
        this.saslPort = saslPort;
        this.dir = dir;
    }

    /**
     * Formats a fresh log directory under {@code dir} and starts the broker on free ports.
     *
     * @param libDir the broker's jars (flink-jobs/kafka-broker/target/lib)
     */
    public static LocalKafka start(Path libDir, Path dir) throws IOException, InterruptedException {
        return start(libDir, dir, null, null);
    }

    /**
     * The same with a second listener, SASL_PLAINTEXT with SCRAM-SHA-256, that admits {@code user}
     * with {@code password} only (see {@link #authenticatedBootstrapServers()}). The plain listener
     * stays, for setting the broker up.
     */
    public static LocalKafka startWithScramUser(Path libDir, Path dir, String user, String password) throws IOException, InterruptedException {
        return start(libDir, dir, user, password);
    }

    private static LocalKafka start(Path libDir, Path dir, String scramUser, String scramPassword) throws IOException, InterruptedException {
        if (!Files.isDirectory(libDir) || !Files.exists(libDir.resolve(brokerJarName(libDir)))) {
            throw new IOException("the Kafka broker's jars are missing in " + libDir + " (build with: mvn -B package -DskipTests)");
        }
        Files.createDirectories(dir);
        int port = freePort();
        int controllerPort = freePort();
        int saslPort = scramUser == null ? -1 : freePort();
        Path props = dir.resolve("server.properties");
        Properties p = new Properties();
        p.setProperty("process.roles", "broker,controller");
        p.setProperty("node.id", "1");
        p.setProperty("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        String listeners = "PLAINTEXT://127.0.0.1:" + port + (saslPort > 0 ? ",SASL_PLAINTEXT://127.0.0.1:" + saslPort : "");
        p.setProperty("listeners", listeners + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.setProperty("advertised.listeners", listeners);
        p.setProperty("controller.listener.names", "CONTROLLER");
        p.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT");
        if (saslPort > 0) {
            p.setProperty("sasl.enabled.mechanisms", SCRAM_MECHANISM);
            // the users' credentials are in the cluster's metadata (added below), not in this file
            p.setProperty("listener.name.sasl_plaintext." + SCRAM_MECHANISM.toLowerCase(Locale.ROOT) + ".sasl.jaas.config",
                    ScramLoginModule.class.getName() + " required;");
        }
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
        LocalKafka kafka = new LocalKafka(broker, port, saslPort, dir);
        try {
            kafka.awaitReady();
            if (scramUser != null) {
                kafka.addScramUser(scramUser, scramPassword);
            }
        } catch (IOException | RuntimeException e) {
            kafka.close();
            throw e;
        }
        return kafka;
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    /** The SASL_PLAINTEXT listener of {@link #startWithScramUser}: clients need the settings {@link #writeScramClientConfig} writes. */
    public String authenticatedBootstrapServers() {
        if (saslPort < 0) {
            throw new IllegalStateException("this broker was started without an authenticated listener");
        }
        return "127.0.0.1:" + saslPort;
    }

    /** The client settings for the authenticated listener, as its user writes them in a --kafka-config file. */
    private static Map<String, String> scramClientSettings(String user, String password) {
        return Map.of(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT", SaslConfigs.SASL_MECHANISM, SCRAM_MECHANISM,
                SaslConfigs.SASL_JAAS_CONFIG, ScramLoginModule.class.getName() + " required username=\"" + user + "\" password=\"" + password + "\";");
    }

    /** Writes {@link #scramClientSettings} to {@code file}, readable by its owner only, as one keeps such a file. */
    public static Path writeScramClientConfig(Path file, String user, String password) throws IOException {
        Properties p = new Properties();
        p.putAll(scramClientSettings(user, password));
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try (var w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            p.store(w, "critpath: Kafka client settings for the local broker's authenticated listener");
        }
        return file;
    }

    /** The broker's process, e.g. to read the CPU time it used. */
    public ProcessHandle process() {
        return process.toHandle();
    }

    /** Creates a topic (no-op if it exists). */
    public void createTopic(String name, int partitions) throws IOException {
        createTopic(bootstrapServers(), name, partitions);
    }

    /**
     * Creates a topic on any single-broker Kafka (no-op if it exists) and returns once every
     * partition has its leader: an idempotent producer writing to a partition the broker has not
     * opened yet can lose a batch for good (KAFKA-15591: the first batch is refused, a later one
     * accepted, and the first then fails as out of order until the delivery timeout).
     */
    public static void createTopic(String bootstrapServers, String name, int partitions) throws IOException {
        try (Admin admin = admin(bootstrapServers)) {
            if (!admin.listTopics().names().get().contains(name)) {
                admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get();
            }
            awaitLeaders(admin, name);
        } catch (ExecutionException e) {
            throw new IOException("creating topic " + name + ": " + e.getCause().getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /**
     * Until the leader of each partition answers for it: listing offsets needs the partition open
     * there. Describing the topic is retried too: right after creation it may not be known yet.
     */
    private static void awaitLeaders(Admin admin, String topic) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (true) {
            try {
                int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
                Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
                for (int p = 0; p < partitions; p++) {
                    latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
                }
                admin.listOffsets(latest).all().get();
                return;
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof RetriableException) || System.nanoTime() > deadline) {
                    throw new IOException("the partitions of topic " + topic + " have no leader after " + START_TIMEOUT.toSeconds() + " s: "
                            + e.getCause().getMessage(), e);
                }
            }
            Thread.sleep(100);
        }
    }

    /**
     * Adds the user through the plain listener, then waits until the authenticated one admits it:
     * the controller has the credential before the broker's copy of the metadata does.
     */
    private void addScramUser(String user, String password) throws IOException, InterruptedException {
        try (Admin admin = admin(bootstrapServers())) {
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(user,
                    new ScramCredentialInfo(ScramMechanism.fromMechanismName(SCRAM_MECHANISM), 4096), password))).all().get();
        } catch (ExecutionException e) {
            throw new IOException("adding the SCRAM user " + user + ": " + e.getCause().getMessage(), e);
        }
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        Properties client = new Properties();
        client.putAll(scramClientSettings(user, password));
        while (true) {
            try (Admin admin = admin(authenticatedBootstrapServers(), client)) {
                admin.describeCluster().nodes().get(10, TimeUnit.SECONDS);
                return;
            } catch (ExecutionException | TimeoutException e) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("the authenticated listener did not admit " + user + " within " + START_TIMEOUT.toSeconds() + " s: "
                            + e.getMessage() + "; see " + dir.resolve("broker.log"), e);
                }
            }
            Thread.sleep(200);
        }
    }

    private static Admin admin(String bootstrapServers) {
        return admin(bootstrapServers, new Properties());
    }

    private static Admin admin(String bootstrapServers, Properties client) {
        Properties p = new Properties();
        p.putAll(client);
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

    /** A cluster id as Kafka's own Uuid makes them (base64url, no padding): never with a leading '-', which the format tool would read as an option. */
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
