package dev.critpath.core.offline;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.PacketEventAvro;
import dev.critpath.core.event.PacketEventJson;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.pcap.PcapEvents;
import dev.critpath.core.testing.AnalysisRows;
import dev.critpath.core.testing.AvroLibrary;
import dev.critpath.core.testing.Peers;
import dev.critpath.core.testing.Repo;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageDecoder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * The events of every lab run (both sensors) and every public capture, written as JSON lines and
 * as Avro records and read back as `critpath analyze --events` reads files, give the same analysis
 * rows; and Avro's Java library reads every record critpath's encoder wrote as the event it was.
 */
class AvroEventFilesTest {
    @TempDir
    Path tmp;

    @Test
    void labRunsGiveTheSameRowsFromAvroAsFromJson() throws Exception {
        List<Executable> checks = new ArrayList<>();
        try (Stream<Path> runs = Files.list(Repo.testdata("lab"))) {
            for (Path run : runs.filter(d -> Files.isRegularFile(d.resolve("client.pcap"))).sorted().toList()) {
                List<PacketEvent> events = new ArrayList<>(PcapEvents.readAll(run.resolve("client.pcap"), "lab-client", SensorRole.CLIENT));
                events.addAll(PcapEvents.readAll(run.resolve("server.pcap"), "lab-server", SensorRole.SERVER));
                events.sort(Comparator.comparingLong(PacketEvent::tsUs)); // as the two sensors' records arrive
                checks.add(() -> sameRowsBothWays(run.getFileName().toString(), events));
            }
        }
        assertTrue(checks.size() >= 20, checks.size() + " lab runs");
        assertAll(checks);
    }

    @Test
    void publicCapturesGiveTheSameRowsFromAvroAsFromJson() throws Exception {
        Path dir = Repo.shared("traces/public");
        assumeTrue(Files.isDirectory(dir), "no public captures: " + dir + " (optional on a fresh clone) is absent");
        List<Executable> checks = new ArrayList<>();
        for (Path capture : Peers.publicCaptures()) {
            String name = dir.relativize(capture).toString();
            checks.add(() -> sameRowsBothWays(name, PcapEvents.readAll(capture, "capture", SensorRole.UNKNOWN)));
        }
        assertTrue(checks.size() >= 150, checks.size() + " public captures");
        assertAll(checks);
    }

    private void sameRowsBothWays(String name, List<PacketEvent> events) throws Exception {
        Path json = tmp.resolve(name.replace('/', '_') + ".jsonl");
        Path avro = tmp.resolve(name.replace('/', '_') + ".avro");
        BinaryMessageDecoder<GenericRecord> avroLibrary = AvroLibrary.singleObjectDecoder();
        try (Writer j = Files.newBufferedWriter(json, StandardCharsets.UTF_8); OutputStream a = Files.newOutputStream(avro)) {
            for (PacketEvent e : events) {
                j.write(PacketEventJson.toJson(e));
                j.write('\n');
                byte[] record = PacketEventAvro.encode(e);
                assertEquals(e, AvroLibrary.fromAvro(avroLibrary.decode(record)), name + ": Avro's library reads what critpath wrote");
                a.write(record);
            }
        }
        List<PacketEvent> fromJson = read(json);
        List<PacketEvent> fromAvro = read(avro);
        assertEquals(events.size(), fromAvro.size(), name + ": every record read");
        assertEquals(AnalysisRows.of(fromJson), AnalysisRows.of(fromAvro), name + ": analysis rows");
    }

    private static List<PacketEvent> read(Path file) throws IOException {
        List<PacketEvent> out = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        new EventFileInput(file, warnings::add).read(out::add);
        assertEquals(List.of(), warnings, file.toString());
        return out;
    }
}
