package dev.critpath.core.event;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.critpath.core.pcap.PcapEvents;
import dev.critpath.core.pcap.PcapFormatException;
import dev.critpath.core.testing.AnalysisRows;
import dev.critpath.core.testing.AvroLibrary;
import dev.critpath.core.testing.Peers;
import dev.critpath.core.testing.Repo;
import dev.critpath.core.testing.ZeekLabEvents;
import dev.critpath.core.testing.ZeekSensor;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageDecoder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * Zeek's events and the Java reader's give identical analysis rows (profiles, exchanges,
 * critical-path arcs) on every lab capture and every public capture: Zeek (the ZEEK environment
 * variable, else zeek on PATH) runs the critpath-sensor package on each, through
 * zeek-scripts/tools (its compiled path where the plugin is built in zeek-scripts/plugin/build or
 * installed, else its script path). It also holds the committed lab events (testdata/zeek/lab) to what Zeek
 * writes today, so that ZeekBaselineTest, which checks those where Zeek is not installed, cannot
 * go stale, and the compiled sensor's Avro records to its JSON events. Skips, saying why, where
 * there is no Zeek.
 */
class ZeekEqualityTest {
    /** Both readers name the sensor of a public capture alike: the name compare-analysis gives it. */
    private static final String PUBLIC_SENSOR = "capture";

    private static final String SNOOP = "a Solaris snoop file: libpcap, so Zeek, cannot read it, nor can the Java reader;"
            + " the editcap conversion beside it (the same name with .pcap added) is compared instead";

    /**
     * The public captures that are not compared, by path under ../shared/traces/public, and why.
     * Each must still be unreadable by both: one that either reader reads must be compared.
     */
    private static final Map<String, String> UNREADABLE = Map.of(
            "blitz-tcptrace/input/NASA_ipv6.snoop", SNOOP,
            "blitz-tcptrace/input/ipv6_ftp_nasa.snp", SNOOP);

    @Test
    void everyLabCapture(@TempDir Path tmp) throws Exception {
        Path zeek = zeekOrSkip();
        Path fresh = tmp.resolve("lab");
        ZeekSensor.labEvents(zeek, fresh);
        assertAll(ZeekLabEvents.scenarios().stream().map(scenario -> (Executable) () -> {
            ZeekLabEvents.assertJavaReaderAgrees(fresh, scenario);
            for (String side : ZeekLabEvents.SIDES) {
                List<String> committed = ZeekLabEvents.lines(ZeekLabEvents.committed(), scenario, side);
                List<String> today = ZeekLabEvents.lines(fresh, scenario, side);
                assertTrue(committed.equals(today), "testdata/zeek/lab/" + scenario + "/" + side + ".jsonl.gz is not what Zeek"
                        + " writes today (regenerate it with zeek-scripts/tools/lab-events): committed, then today's, at "
                        + AnalysisRows.firstDifference(committed, today));
            }
        }));
    }

    @Test
    void everyPublicCapture() throws Exception {
        Path zeek = zeekOrSkip();
        Path dir = Repo.shared("traces/public");
        assumeTrue(Files.isDirectory(dir), "no public captures: " + dir + " (optional on a fresh clone) is absent");
        List<Path> files = Peers.publicFiles();
        List<String> names = files.stream().map(f -> dir.relativize(f).toString()).toList();
        assertTrue(names.containsAll(UNREADABLE.keySet()), "every exception names a capture there is");
        assertAll(files.stream().map(file -> {
            String name = dir.relativize(file).toString();
            return named(name, () -> {
                ZeekSensor.Run run = ZeekSensor.events(zeek, file, PUBLIC_SENSOR, SensorRole.UNKNOWN);
                String unreadable = UNREADABLE.get(name);
                if (unreadable != null) {
                    assertNotEquals(0, run.exit(), "listed as " + unreadable + ", but Zeek reads it");
                    assertThrows(PcapFormatException.class, () -> PcapEvents.readAll(file, PUBLIC_SENSOR, SensorRole.UNKNOWN),
                            "listed as " + unreadable + ", but the Java reader reads it");
                    return;
                }
                assertEquals(0, run.exit(), "Zeek cannot read it: " + run.errors());
                AnalysisRows.assertSame(PcapEvents.readAll(file, PUBLIC_SENSOR, SensorRole.UNKNOWN), ZeekSensor.parse(run.events()), "analysis rows");
            });
        }));
    }

    /**
     * The compiled sensor's Avro records (CritPath::encoding=AVRO), as Avro's Java library reads
     * them one after another, are its JSON events, record for record: on every lab capture (the
     * committed events, which the test above holds to today's Zeek) and on the package's own traces
     * (backwards stamps, a SYN/ACK first, packets Zeek discards, loopback).
     */
    @Test
    void avroRecordsAreTheJsonEvents() throws Exception {
        Path zeek = zeekOrSkip();
        assumeTrue(Files.isDirectory(Repo.root().resolve("zeek-scripts/plugin/build/lib")),
                "the compiled sensor is not built (zeek-scripts/plugin/build.sh): only it writes Avro");
        List<Executable> checks = new ArrayList<>();
        for (String scenario : ZeekLabEvents.scenarios()) {
            for (String side : ZeekLabEvents.SIDES) {
                Path capture = Repo.testdata("lab").resolve(scenario).resolve(side + ".pcap");
                checks.add(named(scenario + "/" + side, () -> assertAvroIs(
                        ZeekSensor.avroEvents(zeek, capture, side + "-side", SensorRole.fromWire(side)),
                        ZeekLabEvents.lines(ZeekLabEvents.committed(), scenario, side))));
            }
        }
        List<Path> traces = new ArrayList<>(List.of(Repo.testdata("zeek/loopback-http.pcap")));
        try (var s = Files.list(Repo.root().resolve("zeek-scripts/testing/Traces"))) {
            s.filter(f -> f.toString().endsWith(".pcap")).sorted().forEach(traces::add);
        }
        for (Path capture : traces) {
            checks.add(named(capture.getFileName().toString(), () -> assertAvroIs(
                    ZeekSensor.avroEvents(zeek, capture, PUBLIC_SENSOR, SensorRole.UNKNOWN),
                    ZeekSensor.events(zeek, capture, PUBLIC_SENSOR, SensorRole.UNKNOWN).events())));
        }
        assertAll(checks);
    }

    private static void assertAvroIs(ZeekSensor.Run avro, List<String> json) throws Exception {
        assertEquals(0, avro.exit(), avro.errors());
        BinaryMessageDecoder<GenericRecord> avroLibrary = AvroLibrary.singleObjectDecoder();
        List<PacketEvent> got = new ArrayList<>();
        ByteArrayInputStream records = new ByteArrayInputStream(avro.output());
        while (records.available() > 0) {
            got.add(AvroLibrary.fromAvro(avroLibrary.decode(records)));
        }
        assertTrue(!json.isEmpty(), "no events to compare");
        assertEquals(ZeekSensor.parse(json), got);
    }

    private static Path zeekOrSkip() {
        Optional<Path> zeek = ZeekSensor.zeek();
        assumeTrue(zeek.isPresent(), "Zeek is not installed (no ZEEK variable naming the zeek binary, no zeek on PATH);"
                + " ZeekBaselineTest checks Zeek's committed events instead");
        return zeek.get();
    }

    /** One public capture's check, whose failure, whatever it is, names the capture among the others'. */
    private static Executable named(String capture, Executable check) {
        return () -> {
            try {
                check.execute();
            } catch (Throwable t) {
                throw new AssertionError(capture + ": " + t.getMessage(), t);
            }
        };
    }
}
