package dev.critpath.core.event;

/**
 * Reads a packet event in either encoding, told apart by its first bytes: an Avro single-object
 * record (C3 01, {@link PacketEventAvro}) or JSON ({@link PacketEventJson}), so that one stream
 * can carry both while its sensors move from one to the other. Not thread-safe: one per reader.
 */
public final class PacketEventReader {
    private final PacketEventJson json = PacketEventJson.standard();
    private final PacketEventAvro avro = PacketEventAvro.standard();

    public PacketEvent parse(byte[] record) throws InvalidEventException {
        return PacketEventAvro.isAvro(record) ? avro.parse(record) : json.parse(record);
    }
}
