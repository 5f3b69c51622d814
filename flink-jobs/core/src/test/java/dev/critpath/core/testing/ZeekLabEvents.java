package dev.critpath.core.testing;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.pcap.PcapEvents;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * Zeek's events for the lab captures, as zeek-scripts/tools/lab-events writes them:
 * SET/SCENARIO/{client,server}.jsonl.gz, the sensors named and placed as `critpath analyze
 * --client-pcap/--server-pcap` names them (client-side CLIENT, server-side SERVER). The committed
 * set is testdata/zeek/lab.
 */
public final class ZeekLabEvents {
    public static final List<String> SIDES = List.of("client", "server");

    private ZeekLabEvents() {
    }

    public static Path committed() {
        return Repo.testdata("zeek/lab");
    }

    /** The lab's scenarios: the directories of testdata/lab with a client and a server capture. */
    public static List<String> scenarios() throws IOException {
        try (Stream<Path> dirs = Files.list(Repo.testdata("lab"))) {
            return dirs.filter(d -> Files.isRegularFile(d.resolve("client.pcap")) && Files.isRegularFile(d.resolve("server.pcap")))
                    .map(d -> d.getFileName().toString()).sorted().toList();
        }
    }

    /** The JSON lines of one capture's events in a set. */
    public static List<String> lines(Path set, String scenario, String side) throws IOException {
        try (InputStream in = new GZIPInputStream(Files.newInputStream(set.resolve(scenario).resolve(side + ".jsonl.gz")))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
    }

    /**
     * A set's events for one scenario give the Java reader's analysis rows for each capture alone
     * and for the two together (the two-point analysis).
     */
    public static void assertJavaReaderAgrees(Path set, String scenario) throws Exception {
        List<PacketEvent> allJava = new ArrayList<>();
        List<PacketEvent> allZeek = new ArrayList<>();
        for (String side : SIDES) {
            Path pcap = Repo.testdata("lab").resolve(scenario).resolve(side + ".pcap");
            List<PacketEvent> java = PcapEvents.readAll(pcap, side + "-side", SensorRole.fromWire(side));
            List<PacketEvent> zeek = ZeekSensor.parse(lines(set, scenario, side));
            AnalysisRows.assertSame(java, zeek, scenario + "/" + side + ".pcap");
            allJava.addAll(java);
            allZeek.addAll(zeek);
        }
        AnalysisRows.assertSame(allJava, allZeek, scenario + ", both captures");
    }
}
