package dev.critpath.streaming;

import dev.critpath.core.event.InvalidEventException;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.PacketEventAvro;
import dev.critpath.core.event.PacketEventReader;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Parses each Kafka record as a packet event: Avro single-object records (packet-event.avsc) by
 * their first bytes, C3 01, and anything else as JSON (packet-event.schema.json), record by record,
 * so that a topic can carry both while its sensors move from one to the other. Anything else
 * becomes a dead letter here, before watermarks are taken, so that no bad record can move time.
 */
final class PacketEventDeserializer implements KafkaRecordDeserializationSchema<Incoming> {
    private final long maxAheadUs;
    private transient PacketEventReader reader;

    PacketEventDeserializer(long maxAheadUs) {
        this.maxAheadUs = maxAheadUs;
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<Incoming> out) {
        if (reader == null) {
            reader = new PacketEventReader();
        }
        long kafkaTsUs = record.timestamp() * 1000;
        byte[] value = record.value();
        if (value == null || value.length == 0) {
            out.collect(Incoming.dead(new DeadLetter(kafkaTsUs, "empty_record", "a record without a value", null, source(record), null)));
            return;
        }
        try {
            PacketEvent e = reader.parse(value);
            long nowUs = System.currentTimeMillis() * 1000;
            if (e.tsUs() > nowUs + maxAheadUs) { // would move event time past every other sensor's
                out.collect(Incoming.dead(new DeadLetter(kafkaTsUs, "sensor_clock_ahead",
                        "sensor " + e.sensor() + " stamped this event " + aheadText(e.tsUs() - nowUs) + " ahead of the job's clock (tolerance "
                                + maxAheadUs / 1_000_000 + " s)",
                        e.sensor(), source(record), raw(value))));
                return;
            }
            out.collect(Incoming.of(e));
        } catch (InvalidEventException ex) {
            out.collect(Incoming.dead(new DeadLetter(kafkaTsUs, ex.error().name().toLowerCase(java.util.Locale.ROOT), ex.getMessage(),
                    null, source(record), raw(value))));
        } catch (RuntimeException | StackOverflowError ex) {
            // a reader bug on some byte sequence must cost that record, never the source (its restarts would meet it again)
            out.collect(Incoming.dead(new DeadLetter(kafkaTsUs, "unreadable_record", "the reader failed on this record: " + ex,
                    null, source(record), raw(value))));
        }
    }

    /** The record as the dead letter's text: JSON as it is, an Avro record (binary) in base64 after "avro:". */
    private static String raw(byte[] value) {
        return DeadLetter.cut(PacketEventAvro.isAvro(value) ? "avro:" + Base64.getEncoder().encodeToString(value)
                : new String(value, StandardCharsets.UTF_8));
    }

    private static String aheadText(long us) {
        long s = us / 1_000_000;
        return s < 3600 ? s + " s" : s / 3600 + " h";
    }

    /** Where a dead letter came from; made only for dead letters (a string per record cost 1% of the job). */
    private static String source(ConsumerRecord<?, ?> record) {
        return record.topic() + "-" + record.partition() + "@" + record.offset();
    }

    @Override
    public TypeInformation<Incoming> getProducedType() {
        return TypeInformation.of(Incoming.class);
    }
}
