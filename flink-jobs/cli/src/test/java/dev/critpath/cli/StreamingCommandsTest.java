package dev.critpath.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.testing.Repo;
import dev.critpath.kafka.LocalKafka;
import dev.critpath.warehouse.WarehouseReader;
import dev.critpath.warehouse.WarehouseTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The streaming commands as a user types them: demo, and replay into a broker then stream from it. */
class StreamingCommandsTest {
    @TempDir
    Path tmp;

    @Test
    void demoRunsThePipelineAndPrintsTheBlameSummary() throws Exception {
        Path warehouse = tmp.resolve("wh");
        CliRun r = CliRun.of("demo", "--warehouse", warehouse.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.err().contains("starting a Kafka broker") && r.err().contains("60 of 60 connections profiled and committed"), r.err());
        assertTrue(r.out().contains("Server vs network blame over 60 connections"), r.out());
        // the list worth a look names connections by address, with labelled figures, not by hash
        assertTrue(r.out().matches("(?s).*Screen: \\d+ of 60 connections worth a look, \\d+ boring\\. The bundled lab connections are troubled on purpose.*"), r.out());
        assertTrue(r.out().contains("Connections failing each rule"), r.out());
        assertTrue(r.out().matches("(?s).*rank +connection \\(client > server\\) +duration +score\\n"
                + "  1 +\\d+\\.\\d+\\.\\d+\\.\\d+:\\d+ > \\d+\\.\\d+\\.\\d+\\.\\d+:\\d+ +[\\d,]+\\.\\d ms +[\\d,]+\\.\\d ms\\n +why: .*"), r.out());
        assertTrue(!r.out().matches("(?s).*1:[A-Za-z0-9+/]{27}=.*"), "no Community ID hashes: " + r.out());
        assertEquals(60, WarehouseReader.read(warehouse, WarehouseTable.PROFILES).size());
    }

    @Test
    void replayedCapturesAreStreamedIntoTheWarehouse() throws Exception {
        try (LocalKafka kafka = LocalKafka.start(Repo.root().resolve("flink-jobs/kafka-broker/target/lib"), tmp.resolve("kafka"))) {
            kafka.createTopic("site-a", 2);
            Path lab = Repo.testdata("lab/keepalive-3");
            // the client site's sensor still on JSON, the server site's already on Avro
            CliRun replay = CliRun.of("replay", "--bootstrap-servers", kafka.bootstrapServers(), "--topic", "site-a",
                    "--client-pcap", lab.resolve("client.pcap").toString());
            assertEquals(0, replay.exit(), replay.err());
            CliRun replayAvro = CliRun.of("replay", "--bootstrap-servers", kafka.bootstrapServers(), "--topic", "site-a", "--encoding", "avro",
                    "--server-pcap", lab.resolve("server.pcap").toString());
            assertEquals(0, replayAvro.exit(), replayAvro.err());
            CliRun refused = CliRun.of("replay", "--bootstrap-servers", kafka.bootstrapServers(), "--topic", "no such topic!",
                    "--client-pcap", lab.resolve("client.pcap").toString());
            assertEquals(2, refused.exit(), "a replay the broker refused is not a success: " + refused.err());
            assertTrue(refused.err().contains("were refused"), refused.err());
            Path warehouse = tmp.resolve("wh");
            CliRun stream = CliRun.of("stream", "--bootstrap-servers", kafka.bootstrapServers(), "--topic", "site-a", "--bounded",
                    "--warehouse", warehouse.toString(), "--checkpoint-interval-s", "1", "--parallelism", "2", "--state-backend", "rocksdb");
            assertEquals(0, stream.exit(), stream.err());
            var profiles = WarehouseReader.read(warehouse, WarehouseTable.PROFILES);
            assertEquals(1, profiles.size());
            assertEquals("two_point", profiles.get(0).get("mode").toString(), "both sensors merged, one in JSON, one in Avro");
            assertEquals(3, WarehouseReader.read(warehouse, WarehouseTable.EXCHANGES).size(), "keep-alive: three exchanges");
        }
    }

    /**
     * A listener that authenticates (SASL SCRAM-SHA-256): with the settings file, replay and stream
     * go through it; with a wrong password each fails saying so (the job after its restarts), and
     * without the file the replay gives up saying what may be missing.
     */
    @Test
    void replayAndStreamAuthenticateWithTheKafkaConfigFile() throws Exception {
        try (LocalKafka kafka = LocalKafka.startWithScramUser(Repo.root().resolve("flink-jobs/kafka-broker/target/lib"), tmp.resolve("kafka"),
                "sensor", "right-password")) {
            kafka.createTopic("site-b", 2);
            Path lab = Repo.testdata("lab/keepalive-3");
            Path settings = LocalKafka.writeScramClientConfig(tmp.resolve("kafka.properties"), "sensor", "right-password");
            Path wrong = LocalKafka.writeScramClientConfig(tmp.resolve("wrong.properties"), "sensor", "wrong-password");
            List<String> replay = List.of("replay", "--bootstrap-servers", kafka.authenticatedBootstrapServers(), "--topic", "site-b",
                    "--client-pcap", lab.resolve("client.pcap").toString(), "--server-pcap", lab.resolve("server.pcap").toString());
            CliRun refused = CliRun.of(with(replay, "--kafka-config", wrong.toString()));
            assertEquals(2, refused.exit(), refused.err());
            assertTrue(refused.err().contains("Authentication failed"), refused.err());
            CliRun anonymous = CliRun.of(replay.toArray(String[]::new));
            assertEquals(2, anonymous.exit(), anonymous.err());
            assertTrue(anonymous.err().contains("not present in metadata") && anonymous.err().contains("give the client settings with --kafka-config"),
                    anonymous.err());
            CliRun replayed = CliRun.of(with(replay, "--kafka-config", settings.toString()));
            assertEquals(0, replayed.exit(), replayed.err());

            Path warehouse = tmp.resolve("wh");
            List<String> stream = List.of("stream", "--bootstrap-servers", kafka.authenticatedBootstrapServers(), "--topic", "site-b", "--bounded",
                    "--warehouse", warehouse.toString(), "--checkpoint-interval-s", "1");
            CliRun streamRefused = CliRun.of(with(stream, "--kafka-config", wrong.toString()));
            assertEquals(2, streamRefused.exit(), streamRefused.err());
            assertTrue(streamRefused.err().contains("Authentication failed"), streamRefused.err());
            CliRun streamed = CliRun.of(with(stream, "--kafka-config", settings.toString()));
            assertEquals(0, streamed.exit(), streamed.err());
            assertEquals(1, WarehouseReader.read(warehouse, WarehouseTable.PROFILES).size());
        }
    }

    /** A settings file that cannot work stops replay and stream at once, saying what is wrong with it; no broker needed. */
    @Test
    void aKafkaConfigFileThatCannotWorkIsRefusedClearly() throws Exception {
        Map<String, String> expectedComplaint = new LinkedHashMap<>();
        expectedComplaint.put("no such file", null);
        expectedComplaint.put("unknown Kafka client setting 'security.protcol'", "security.protcol=SASL_PLAINTEXT\n");
        expectedComplaint.put("security.protocol must be one of", "security.protocol=SASL_PLAIN\n");
        expectedComplaint.put("sasl.mechanism SCRAM-SHA-256 needs the credentials",
                "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n");
        expectedComplaint.put("bootstrap.servers is given with --bootstrap-servers", "bootstrap.servers=elsewhere:9092\n");
        int n = 0;
        for (Map.Entry<String, String> c : expectedComplaint.entrySet()) {
            Path file = tmp.resolve("settings-" + n++ + ".properties");
            if (c.getValue() != null) {
                Files.writeString(file, c.getValue());
            }
            Path lab = Repo.testdata("lab/keepalive-3");
            for (CliRun r : List.of(
                    CliRun.of("replay", "--bootstrap-servers", "127.0.0.1:1", "--kafka-config", file.toString(), "--pcap", lab.resolve("client.pcap").toString()),
                    CliRun.of("stream", "--bootstrap-servers", "127.0.0.1:1", "--kafka-config", file.toString(), "--warehouse", tmp.resolve("wh").toString()))) {
                assertEquals(2, r.exit(), r.err());
                assertTrue(r.err().contains(file.toString()) && r.err().contains(c.getKey()), r.err());
            }
        }
    }

    private static String[] with(List<String> args, String... more) {
        return java.util.stream.Stream.concat(args.stream(), java.util.stream.Stream.of(more)).toArray(String[]::new);
    }

    /** The benchmark at toy size: every pass commits every connection, and the figures come out. */
    @Test
    void benchStreamMeasuresThroughputPastTheFirstPass() {
        CliRun r = CliRun.of("bench-stream", "--measure", "throughput", "--events", "20000", "--passes", "3");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.err().contains("pass 3 of 3"), r.err());
        assertTrue(r.out().matches("(?s).*Kafka -> Parquet: +[\\d,]+ events/s sustained: the median of the last 2 passes.*"), r.out());
        assertTrue(r.out().matches("(?s).*\\s(\\d+) of \\1 connections profiled and committed in the last pass.*"), r.out());
        assertTrue(r.out().matches("(?s).*CPU per event: +\\d+\\.\\d+ µs in the job, \\d+\\.\\d+ µs in the broker.*"), r.out());
        assertEquals(2, CliRun.of("bench-stream", "--passes", "1").exit(), "one pass would measure only the JIT");
    }

    @Test
    void aFailedJobSaysWhy() throws Exception {
        // the job fails as it starts (no checkpoint directory can be made), before it reads Kafka: no broker needed
        Path notADirectory = Files.writeString(tmp.resolve("taken"), "a file where the warehouse should go");
        CliRun r = CliRun.of("stream", "--bootstrap-servers", "127.0.0.1:1", "--bounded",
                "--warehouse", notADirectory.resolve("wh").toString(), "--checkpoint-interval-s", "1");
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.err().contains("(cause: ") && r.err().contains("taken"), "the root cause, not only 'Job execution failed': " + r.err());
    }

    @Test
    void streamRefusesAnImpossibleConfigurationClearly() {
        CliRun r = CliRun.of("stream", "--bootstrap-servers", "127.0.0.1:1", "--warehouse", tmp.toString(), "--state-backend", "memory");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("state backend must be hashmap or rocksdb"), r.err());
    }
}
