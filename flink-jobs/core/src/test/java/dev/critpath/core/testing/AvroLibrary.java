package dev.critpath.core.testing;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.SensorRole;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageDecoder;

/** Apache Avro's Java library on the packet-event contract: the reference the Avro encoding is held to. */
public final class AvroLibrary {
    private AvroLibrary() {
    }

    /** schemas/packet-event.avsc. */
    public static Schema schema() {
        return new Schema.Parser().parse(new String(Repo.schemaResource("packet-event.avsc"), StandardCharsets.UTF_8));
    }

    /** The library's reader of single-object records of packet-event.avsc. */
    public static BinaryMessageDecoder<GenericRecord> singleObjectDecoder() {
        return new BinaryMessageDecoder<>(GenericData.get(), schema());
    }

    /** The event an Avro record of packet-event.avsc holds, as read by Avro's own library. */
    public static PacketEvent fromAvro(GenericRecord r) {
        Object sack = r.get("sack");
        long[] blocks = sack == null ? null : ((List<?>) sack).stream().mapToLong(x -> (Long) x).toArray();
        Object role = r.get("sensor_role");
        return new PacketEvent(r.get("sensor").toString(), role == null ? null : SensorRole.fromWire(role.toString()),
                (Long) r.get("ts_us"), r.get("community_id").toString(), r.get("orig_h").toString(), (Integer) r.get("orig_p"),
                r.get("resp_h").toString(), (Integer) r.get("resp_p"), (Boolean) r.get("is_orig"), (Integer) r.get("flags"),
                (Long) r.get("seq"), (Long) r.get("ack"), (Integer) r.get("len"), (Integer) r.get("win"),
                optInt(r.get("wscale")), optInt(r.get("mss")), (Boolean) r.get("sack_ok"), blocks,
                optLong(r.get("tsval")), optLong(r.get("tsecr")), optInt(r.get("ip_id")), (Integer) r.get("ttl"),
                optLong(r.get("capture_index")));
    }

    private static int optInt(Object o) {
        return o == null ? PacketEvent.ABSENT : (Integer) o;
    }

    private static long optLong(Object o) {
        return o == null ? PacketEvent.ABSENT : (Long) o;
    }
}
