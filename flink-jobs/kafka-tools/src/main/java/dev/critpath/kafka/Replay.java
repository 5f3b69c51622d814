package dev.critpath.kafka;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.PacketEventAvro;
import dev.critpath.core.event.PacketEventJson;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.pcap.PcapEvents;
import dev.critpath.core.pcap.PcapReader;
import dev.critpath.core.pcap.PcapFormatException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.function.BiConsumer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RoundRobinPartitioner;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Publishes captures to Kafka as the Zeek sensors would: one packet event per packet and sensor
 * (JSON, or Avro as the compiled sensor writes it with CritPath::encoding=AVRO), no record key (zeek-kafka sets none), each record on the next partition, and the
 * sensors' packets merged in the order of their own timestamps.
 */
public final class Replay {
    private Replay() {
    }

    /** One capture file and the sensor it stands for. */
    public record Capture(Path file, String sensor, SensorRole role) {
    }

    /** All captures' packet events merged by timestamp (each sensor's own clock, as recorded). */
    public static List<PacketEvent> events(List<Capture> captures) throws IOException, PcapFormatException {
        return events(captures, (file, stats) -> { });
    }

    /** The same, telling {@code read} what the reader counted in each file (packets skipped, corruption). */
    public static List<PacketEvent> events(List<Capture> captures, BiConsumer<Path, PcapReader.Stats> read)
            throws IOException, PcapFormatException {
        List<PacketEvent> all = new ArrayList<>();
        for (Capture c : captures) {
            read.accept(c.file(), new PcapEvents(c.sensor(), c.role(), 0).stream(c.file(), all::add));
        }
        all.sort(Comparator.comparingLong(PacketEvent::tsUs)); // stable: a sensor's own order survives ties
        return all;
    }

    /** The trace lab's runs under a directory: its subdirectories holding client.pcap and server.pcap. */
    public static List<Path> labRunsUnder(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(d -> Files.isRegularFile(d.resolve("client.pcap")) && Files.isRegularFile(d.resolve("server.pcap"))).sorted().toList();
        }
    }

    /**
     * Trace-lab runs (directories with client.pcap and server.pcap) as the two sensors lab-client
     * and lab-server would publish them, one client network per connection.
     */
    public static List<PacketEvent> labRuns(List<Path> runs) throws IOException, PcapFormatException {
        List<Capture> caps = new ArrayList<>();
        for (Path d : runs) {
            caps.add(new Capture(d.resolve("client.pcap"), "lab-client", SensorRole.CLIENT));
            caps.add(new Capture(d.resolve("server.pcap"), "lab-server", SensorRole.SERVER));
        }
        return onePathPerConnection(events(caps));
    }

    /**
     * Gives each connection a client network of its own (10.N.M.2, Community ID recomputed). The
     * trace lab sets delays per connection, so its connections are different paths in truth; on
     * one address they would look like one path whose delay keeps changing.
     */
    public static List<PacketEvent> onePathPerConnection(List<PacketEvent> events) {
        Map<String, String[]> renamed = new HashMap<>(); // flow -> its client address and Community ID
        List<PacketEvent> out = new ArrayList<>(events.size());
        for (PacketEvent e : events) {
            String flow = e.origH() + " " + e.origP() + " " + e.respH() + " " + e.respP();
            String[] to = renamed.computeIfAbsent(flow, f -> {
                int n = renamed.size();
                String client = "10." + (100 + n / 256) + "." + (n % 256) + ".2";
                return new String[] {client, e.communityIdWithClient(client)};
            });
            out.add(e.withClient(to[0], to[1]));
        }
        return out;
    }

    /** How a sensor writes its events to Kafka; the names are the --encoding values. */
    public enum Encoding {
        /** JSON, schemas/packet-event.schema.json: what every sensor writes by default. */
        json,
        /** Avro single-object records of schemas/packet-event.avsc. */
        avro;

        public byte[] encode(PacketEvent e) {
            return this == avro ? PacketEventAvro.encode(e) : Replay.json(e);
        }

        public List<byte[]> encode(List<PacketEvent> events) {
            List<byte[]> out = new ArrayList<>(events.size());
            for (PacketEvent e : events) {
                out.add(encode(e));
            }
            return out;
        }
    }

    public static List<byte[]> json(List<PacketEvent> events) {
        return Encoding.json.encode(events);
    }

    /** The record a sensor publishes for one event. */
    public static byte[] json(PacketEvent e) {
        return PacketEventJson.toJson(e).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Sends the records in order and waits until the broker has them all; stops at the first
     * record the broker refuses and throws, so that nobody takes a failed replay for a done one.
     *
     * @param progress told the number sent so far, every 10,000 records and at the end
     */
    public static void publish(String bootstrapServers, String topic, Iterable<byte[]> values, LongConsumer progress) {
        publish(bootstrapServers, KafkaClientProperties.NONE, topic, values, progress);
    }

    /** The same to a broker that wants the client settings {@code client} (authentication, TLS). */
    public static void publish(String bootstrapServers, KafkaClientProperties client, String topic, Iterable<byte[]> values, LongConsumer progress) {
        AtomicReference<Exception> failure = new AtomicReference<>();
        AtomicLong failed = new AtomicLong();
        long sent = 0;
        try (KafkaProducer<byte[], byte[]> producer = producer(bootstrapServers, client)) {
            for (byte[] v : values) {
                if (failure.get() != null) {
                    break;
                }
                producer.send(new ProducerRecord<>(topic, null, v), (meta, e) -> {
                    if (e != null) {
                        failed.incrementAndGet();
                        failure.compareAndSet(null, e);
                    }
                });
                if (++sent % 10_000 == 0) {
                    progress.accept(sent);
                }
            }
            producer.flush();
        }
        if (failure.get() != null) {
            throw new IllegalStateException(failed.get() + " of " + sent + " records sent to topic " + topic
                    + " were refused, and the rest not sent: " + failure.get().getMessage(), failure.get());
        }
        progress.accept(sent);
    }

    /** A producer as the sensors' (zeek-kafka) behaves: no key, records spread over partitions. */
    public static KafkaProducer<byte[], byte[]> producer(String bootstrapServers) {
        return producer(bootstrapServers, KafkaClientProperties.NONE);
    }

    /** The same with the client settings {@code client} (authentication, TLS); acks, batching and partitioning stay the sensors' whatever they say. */
    public static KafkaProducer<byte[], byte[]> producer(String bootstrapServers, KafkaClientProperties client) {
        Properties p = client.properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, "262144");
        p.put(ProducerConfig.PARTITIONER_CLASS_CONFIG, RoundRobinPartitioner.class.getName());
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }
}
