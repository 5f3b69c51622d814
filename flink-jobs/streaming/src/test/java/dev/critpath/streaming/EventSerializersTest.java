package dev.critpath.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.PacketEventJson;
import dev.critpath.core.lifecycle.FinishedConnection;
import dev.critpath.core.testing.Repo;
import dev.critpath.kafka.Replay;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputViewStreamWrapper;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputViewStreamWrapper;
import org.junit.jupiter.api.Test;

/** The hand-written serializers give back every field of every lab event, alone and as a connection's array. */
class EventSerializersTest {
    @Test
    void everyLabEventComesBackFieldForField() throws Exception {
        List<PacketEvent> events = LabReplay.events(LabReplay.scenarios());
        assertTrue(events.stream().anyMatch(e -> e.sack() != null) && events.stream().anyMatch(e -> e.sackOk() == null),
                "the fixtures exercise SACK blocks and absent options");
        DataOutputSerializer out = new DataOutputSerializer(256);
        for (PacketEvent e : events) {
            EventSerializers.PacketEventSerializer.INSTANCE.serialize(e, out);
        }
        DataInputDeserializer in = new DataInputDeserializer(out.getSharedBuffer(), 0, out.length());
        for (PacketEvent e : events) {
            assertSameEvent(e, EventSerializers.PacketEventSerializer.INSTANCE.deserialize(in));
        }
        assertEquals(0, in.available());
    }

    /** sensor_role is optional in the schema: an event without one must cross the job like any other. */
    @Test
    void anEventWithoutASensorRoleComesBack() throws Exception {
        PacketEvent e = PacketEventJson.standard().parse(Repo.schemaResource("vectors/packet-event/valid/data-minimal.json"));
        assertNull(e.sensorRole(), "the vector has no sensor_role");
        DataOutputSerializer out = new DataOutputSerializer(256);
        EventSerializers.PacketEventSerializer.INSTANCE.serialize(e, out);
        assertSameEvent(e, EventSerializers.PacketEventSerializer.INSTANCE.deserialize(new DataInputDeserializer(out.getSharedBuffer(), 0, out.length())));
    }

    @Test
    void aConnectionsEventsShareTheirStringsAndLoseNothing() throws Exception {
        List<PacketEvent> events = LabReplay.events(LabReplay.scenarios("keepalive-3"));
        FinishedConnection c = new FinishedConnection("path", events.toArray(PacketEvent[]::new), 3, "flow", 2, true);
        DataOutputSerializer out = new DataOutputSerializer(256);
        EventSerializers.FinishedConnectionSerializer.INSTANCE.serialize(c, out);
        DataOutputSerializer alone = new DataOutputSerializer(256);
        for (PacketEvent e : events) {
            EventSerializers.PacketEventSerializer.INSTANCE.serialize(e, alone);
        }
        assertTrue(out.length() < alone.length() * 3 / 4, out.length() + " bytes for the connection, " + alone.length() + " for its events alone");

        FinishedConnection back = EventSerializers.FinishedConnectionSerializer.INSTANCE.deserialize(new DataInputDeserializer(out.getSharedBuffer(), 0, out.length()));
        assertEquals(List.of("path", 3L, "flow", 2, true), List.of(back.pathKey(), back.eventsOverCap(), back.flow(), back.segment(), back.last()));
        assertEquals(events.size(), back.events().length);
        for (int i = 0; i < events.size(); i++) {
            assertSameEvent(events.get(i), back.events()[i]);
        }
        assertSame(back.events()[0].communityId(), back.events()[1].communityId(), "one string per connection, not per packet");
    }

    /**
     * Events read one by one (the shuffle to assembly) and written to a plain stream (checkpoint
     * files, where the record is put together in an array first): nothing lost, and the events
     * of one flow hold one copy of its strings between them.
     */
    @Test
    void eventsWrittenToStreamsComeBackWithTheirFlowsStringsShared() throws Exception {
        List<PacketEvent> events = LabReplay.events(LabReplay.scenarios("keepalive-3"));
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        DataOutputViewStreamWrapper stream = new DataOutputViewStreamWrapper(file);
        for (PacketEvent e : events) {
            EventSerializers.PacketEventSerializer.INSTANCE.serialize(e, stream);
        }
        FinishedConnection c = new FinishedConnection("path", events.toArray(PacketEvent[]::new), 0, "flow", 0, true);
        EventSerializers.FinishedConnectionSerializer.INSTANCE.serialize(c, stream);
        stream.flush();

        DataInputViewStreamWrapper in = new DataInputViewStreamWrapper(new ByteArrayInputStream(file.toByteArray()));
        List<PacketEvent> back = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            back.add(EventSerializers.PacketEventSerializer.INSTANCE.deserialize(in));
            assertSameEvent(events.get(i), back.get(i));
        }
        FinishedConnection connection = EventSerializers.FinishedConnectionSerializer.INSTANCE.deserialize(in);
        assertEquals(events.size(), connection.events().length);
        assertEquals(-1, in.read(), "everything read back, nothing more");
        PacketEvent first = back.get(0);
        for (PacketEvent e : back.subList(1, back.size())) {
            if (e.sensor().equals(first.sensor())) {
                assertSame(first.sensor(), e.sensor());
                assertSame(first.communityId(), e.communityId());
                assertSame(first.origH(), e.origH());
                assertSame(first.respH(), e.respH());
            }
        }
        assertSame(first.communityId(), connection.events()[0].communityId(), "shared across records read by one thread");
    }

    /** Every field, as the sensors' JSON record has it (records compare arrays by reference). */
    private static void assertSameEvent(PacketEvent want, PacketEvent got) {
        assertEquals(new String(Replay.json(want), StandardCharsets.UTF_8), new String(Replay.json(got), StandardCharsets.UTF_8));
    }
}
