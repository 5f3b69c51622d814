package dev.critpath.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.critpath.core.event.CommunityId;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.PacketEventJson;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.event.TcpFlags;
import dev.critpath.core.testing.HandTrace;
import dev.critpath.core.testing.PcapBuilder;
import dev.critpath.core.testing.Repo;
import dev.critpath.streaming.StreamProcess;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AnalyzeCommandTest {
    @TempDir
    Path tmp;

    /** A client's capture given as the server's: said on each connection and in the summary, and in the profiles. */
    @Test
    void aCaptureGivenAsTheWrongSideIsSaidToBe(@TempDir Path tmp) throws Exception {
        Path espn = Repo.shared("traces/public").resolve("chrissanders-packets/http_espn.pcapng");
        assumeTrue(Files.isRegularFile(espn), "public capture absent: " + espn);
        Path json = tmp.resolve("out.jsonl");
        CliRun r = CliRun.of("analyze", "--quiet", "--server-pcap", espn.toString(), "--json", json.toString());
        assertEquals(0, r.exit(), r.err());
        long rows = r.out().lines().filter(l -> l.matches("\\d+ +\\d.*")).count();
        long warned = r.out().lines().filter(l -> l.contains("WARNING: given as the server's capture, but its packets")).count();
        assertTrue(rows > 10 && warned == rows, rows + " connections, " + warned + " warned: " + r.out());
        assertTrue(r.out().contains("WARNING: " + rows + " connection(s) captured on the other side than the one given"), r.out());
        for (String line : Files.readAllLines(json)) {
            assertTrue(new ObjectMapper().readTree(line).get("side_contradicted").asBoolean(), line);
        }
    }

    /**
     * The same capture given as both sides (a user's slip, or two taps on one link) is analysed as
     * that capture alone, as if given once, and said to be: two-point analysis of it made the
     * round trip host time (server 482.9 ms of 484.5, a server stall).
     */
    @Test
    void oneCaptureGivenAsBothSidesIsAnalysedAsItselfAndSaidToBe() throws Exception {
        Path once = tmp.resolve("once.jsonl");
        Path twice = tmp.resolve("twice.jsonl");
        String client = lab("dl-500k", "client.pcap");
        CliRun single = CliRun.of("analyze", "--quiet", "--client-pcap", client, "--json", once.toString());
        CliRun both = CliRun.of("analyze", "--quiet", "--client-pcap", client, "--server-pcap", client, "--json", twice.toString());
        assertEquals(0, single.exit(), single.err());
        assertEquals(0, both.exit(), both.err());
        assertTrue(both.out().contains("WARNING: both captures saw it at one point") && both.out().contains("analysed as the client-side capture alone"),
                both.out());
        assertTrue(both.out().contains("WARNING: 1 connection(s) seen by both captures at one point"), both.out());
        JsonNode alone = new ObjectMapper().readTree(Files.readString(once));
        JsonNode merged = new ObjectMapper().readTree(Files.readString(twice));
        assertTrue(merged.get("sensors_colocated").asBoolean(), merged.toString());
        assertEquals("client_side", merged.get("mode").asText());
        for (String column : List.of("duration_us", "client_us", "propagation_us", "server_or_queuing_us", "min_rtt_us")) {
            assertEquals(alone.get(column), merged.get(column), column);
        }
    }

    private static String lab(String scenario, String file) {
        return Repo.testdata("lab").resolve(scenario).resolve(file).toString();
    }

    /** The tables are written on a thread of their own: a warehouse that cannot be made still fails the run, in one line saying why. */
    @Test
    void aWarehouseThatCannotBeMadeFailsTheRunSayingWhy() throws Exception {
        Path taken = Files.writeString(tmp.resolve("a-file"), "");
        CliRun r = CliRun.of("analyze", "--quiet", "--server-pcap", lab("think-100ms", "server.pcap"), "--parquet", taken.toString());
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.err().strip().matches("critpath: writing the Parquet tables: " + java.util.regex.Pattern.quote(taken.toString())
                + "/profiles/dt=[0-9-]+: Not a directory"), r.err());
    }

    @Test
    void twoPointCapturesGiveATableJsonAndParquet() throws Exception {
        Path json = tmp.resolve("out.jsonl");
        Path warehouse = tmp.resolve("wh");
        CliRun r = CliRun.of("analyze", "--quiet", "--client-pcap", lab("think-100ms", "client.pcap"), "--server-pcap",
                lab("think-100ms", "server.pcap"), "--json", json.toString(), "--parquet", warehouse.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("10.71.1.2:"), r.out());
        assertTrue(r.out().contains("two-point"), r.out());
        assertTrue(r.out().contains("LOOK: server stall"), r.out());
        assertTrue(!r.out().contains("WARNING"), "each capture is on the side given: " + r.out());
        assertTrue(r.out().contains("why: server stalled"), r.out());
        List<String> lines = Files.readAllLines(json);
        assertEquals(1, lines.size());
        JsonNode c = new ObjectMapper().readTree(lines.get(0));
        assertEquals(c.get("duration_us").asLong(), c.get("server_us").asLong() + c.get("client_us").asLong()
                + c.get("propagation_us").asLong() + c.get("queuing_us").asLong());
        assertEquals(1, c.get("exchanges").size());
        assertTrue(c.get("screen").get("failed_rules").toString().contains("no_server_stall"));
        try (Stream<Path> files = Files.walk(warehouse)) {
            // one file per table but dead_letters; the flagged connection keeps its packets
            assertEquals(5, files.filter(p -> p.toString().endsWith(".parquet")).count(), "one file per table");
        }
        // the jar's sql command runs the Python SQL layer as the launcher does
        assertEquals(0, CliRun.of("sql", "--warehouse", warehouse.toString(), "-c", "select count(*) from profiles").exit());
        assertEquals(1, CliRun.of("sql", "--warehouse", warehouse.toString(), "-c", "select nothing from nowhere").exit());
    }

    @Test
    void aSingleCaptureIsAnalysedFromItsSide() {
        CliRun r = CliRun.of("analyze", "--quiet", "--pcap", lab("dl-20k", "server.pcap"), "--arcs");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("server-side"), r.out());
        assertTrue(r.out().contains("client|queuing"), "honest category for what one capture cannot split: " + r.out());
        assertTrue(r.out().contains(" network "), "--arcs prints the path");
    }

    @Test
    void unreadableOrNonTcpInputGetsAClearErrorNotAStackTrace() throws Exception {
        Path text = tmp.resolve("notes.pcap");
        Files.writeString(text, "definitely not a capture file, just words and more words");
        CliRun bad = CliRun.of("analyze", "--quiet", "--pcap", text.toString());
        assertEquals(2, bad.exit());
        assertTrue(bad.err().contains("not a pcap or pcapng file"), bad.err());
        assertTrue(!bad.err().contains("at dev.critpath"), "no stack trace: " + bad.err());

        CliRun missing = CliRun.of("analyze", "--pcap", tmp.resolve("missing.pcap").toString());
        assertEquals(2, missing.exit());
        assertTrue(missing.err().contains("no such file"), missing.err());

        Path empty = tmp.resolve("empty.pcap");
        byte[] header = {(byte) 0xd4, (byte) 0xc3, (byte) 0xb2, (byte) 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, 0, 0, 1, 0, 0, 0};
        Files.write(empty, header);
        CliRun none = CliRun.of("analyze", "--quiet", "--pcap", empty.toString());
        assertEquals(2, none.exit());
        assertTrue(none.err().contains("no TCP packets"), none.err());

        CliRun nothing = CliRun.of("analyze");
        assertEquals(2, nothing.exit());
        assertTrue(nothing.err().contains("see --help"), nothing.err());
    }

    @Test
    void eventFilesWithBrokenLinesKeepTheGoodOnesAndCountTheRest() throws Exception {
        Path events = tmp.resolve("events.jsonl");
        List<String> lines = new java.util.ArrayList<>();
        for (var e : dev.critpath.core.pcap.PcapEvents.readAll(Path.of(lab("dl-1k", "client.pcap")), "edge-a", null)) {
            lines.add(dev.critpath.core.event.PacketEventJson.toJson(e));
        }
        lines.add(2, "{\"sensor\":\"edge-a\",\"ts_us\":4102444800000000}"); // 2100: out of range
        lines.add(5, "not json at all");
        lines.add("{\"truncated\": ");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (String line : lines) {
            bytes.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        }
        // a NUL-prefixed record and bytes that are not UTF-8 (a text reader stops at them), then a line longer than any event
        bytes.write(new byte[] {0, 0, 0, '{', '\n', (byte) 0xff, (byte) 0xfe, '\n'});
        bytes.write(("x".repeat(1 << 17) + "\n").getBytes(StandardCharsets.US_ASCII));
        bytes.write(lines.get(0).getBytes(StandardCharsets.UTF_8)); // a good last line without a newline
        Files.write(events, bytes.toByteArray());
        CliRun r = CliRun.of("analyze", "--events", events.toString(), "--sensor-role", "edge-a=client");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.err().contains("rejected events by reason: {OUT_OF_RANGE=1, MALFORMED_JSON=4, LINE_TOO_LONG=1}"), r.err());
        assertTrue(r.err().contains(events + ":" + (lines.size() + 3) + ": rejected (LINE_TOO_LONG)"), "the line number: " + r.err());
        assertTrue(r.out().contains("client-side"), r.out());
        CliRun wrongRole = CliRun.of("analyze", "--events", events.toString(), "--sensor-role", "edge-a=middle");
        assertEquals(2, wrongRole.exit());
        assertTrue(wrongRole.err().contains("role must be client or server"), wrongRole.err());
    }

    @Test
    void topShowsTheConnectionsWorthALookBeforeAnyBoringOne() throws Exception {
        // with only this rule, 2 of the 40 connections fail it, and boring ones outscore the second
        Path screen = tmp.resolve("screen.properties");
        Files.writeString(screen, "rules = no_timeout\n");
        CliRun r = CliRun.of("analyze", "--quiet", "--server-pcap", lab("random-batch", "server.pcap"), "--screen", screen.toString(), "--top", "2");
        assertEquals(0, r.exit(), r.err());
        List<String> rows = r.out().lines().filter(l -> l.matches("\\d+ +\\d.*")).toList();
        assertEquals(2, rows.size(), r.out());
        assertTrue(rows.stream().allMatch(l -> l.endsWith("LOOK: timeouts")), r.out());
        assertTrue(r.out().contains("40 connections, 38 boring, 2 worth a look (2 shown"), r.out());
    }

    @Test
    void halfOpenFlowsAreSetAsideAsTheStreamSetsThemAside() throws Exception {
        Path syns = tmp.resolve("syns.jsonl");
        List<String> lines = new java.util.ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            String client = "198.51.100." + i;
            lines.add(PacketEventJson.toJson(new PacketEvent("lab-server", SensorRole.SERVER, 1_795_000_000_000_000L + i,
                    CommunityId.tcpV1(client, 40000, "10.71.2.2", 8080, 0), client, 40000, "10.71.2.2", 8080, true, TcpFlags.SYN, 1, 0, 0,
                    64240, 7, 1460, Boolean.TRUE, null, -1, -1, 1, 64, PacketEvent.ABSENT)));
        }
        Files.write(syns, lines);
        Path json = tmp.resolve("out.jsonl");
        CliRun r = CliRun.of("analyze", "--quiet", "--pcap", lab("dl-20k", "server.pcap"), "--events", syns.toString(), "--json", json.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.err().contains("3 half-open flows (no payload, no handshake completed: SYN floods, scans) set aside"), r.err());
        assertEquals(1, Files.readAllLines(json).size(), "only the real connection is profiled");
    }

    @Test
    void aSynFloodIsSetAsideAndCounted() throws Exception {
        Path syns = tmp.resolve("flood.jsonl");
        List<String> lines = new java.util.ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            String client = "198.51." + (100 + i / 250) + "." + (i % 250 + 1);
            lines.add(PacketEventJson.toJson(new PacketEvent("edge", SensorRole.SERVER, 1_795_000_000_000_000L + 10L * i,
                    CommunityId.tcpV1(client, 40000, "10.71.2.2", 80, 0), client, 40000, "10.71.2.2", 80, true, TcpFlags.SYN, i, 0, 0,
                    64240, 7, 1460, Boolean.TRUE, null, -1, -1, 1, 64, PacketEvent.ABSENT)));
        }
        Files.write(syns, lines);
        CliRun r = CliRun.of("analyze", "--quiet", "--events", syns.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.err().contains("2000 half-open flows (no payload, no handshake completed: SYN floods, scans) set aside"), r.err());
        assertTrue(r.out().contains("0 connections, 0 boring, 0 worth a look"), r.out());
    }

    /**
     * A flood of connections that open and stay open (every handshake completed, nothing more), in
     * a JVM of 64 MB: the connections a quarter of the heap holds are analysed, the rest refused
     * and counted. With a million held at most, as before the cap followed the heap, it ran out of
     * memory.
     */
    @Test
    void aFloodOfOpenConnectionsIsHeldWithinTheHeapAndTheRestCounted() throws Exception {
        int connections = 60_000;
        String out = analyzeInSmallHeap(connections, 30, false);
        int analysed = connectionsAnalysed(out);
        assertTrue(analysed > 1_000 && analysed < connections, analysed + " connections analysed: " + out);
        assertTrue(out.contains((connections - analysed) + " packets of new connections refused while --max-open-connections"), out);
    }

    /**
     * Short connections, each closed at once, in the same small heap: a closed connection's
     * tombstone (kept a minute for stragglers) is not a connection held, so none is refused though
     * four times the heap's cap on open connections close within the minute (those in their close
     * grace, 5 s of them, stay within it).
     */
    @Test
    void shortConnectionsClosingFasterThanTheCapAreAllAnalysed() throws Exception {
        int connections = 40_000; // 1,000 a second for 40 s
        String out = analyzeInSmallHeap(connections, 1_000, true);
        assertEquals(connections, connectionsAnalysed(out), out);
        assertFalse(out.contains("refused"), out);
    }

    /** Runs analyze in a 64 MB JVM on one capture of handshakes, {@code spacingUs} apart, each closed by FINs at once or left open. */
    private String analyzeInSmallHeap(int connections, long spacingUs, boolean closed) throws Exception {
        PcapBuilder.Pcap pcap = new PcapBuilder.Pcap(1, java.nio.ByteOrder.LITTLE_ENDIAN, false, 65535);
        long t0 = 1_795_000_000_000_000L;
        for (int i = 0; i < connections; i++) {
            String client = "10." + (100 + i / 62_500) + "." + (i / 250 % 250) + "." + (i % 250 + 1);
            int port = 1024 + i % 60_000;
            long isn = 7919L * i;
            long at = t0 + spacingUs * i;
            pcap.add(at, PcapBuilder.ethernet(PcapBuilder.ipv4Tcp(client, port, "10.71.2.2", 80, isn, 0, TcpFlags.SYN, 64240, 0, 1, 64, new byte[0])));
            pcap.add(at + 10, PcapBuilder.ethernet(PcapBuilder.ipv4Tcp("10.71.2.2", 80, client, port, 31, isn + 1,
                    TcpFlags.SYN | TcpFlags.ACK, 64240, 0, 1, 64, new byte[0])));
            pcap.add(at + 20, PcapBuilder.ethernet(PcapBuilder.ipv4Tcp(client, port, "10.71.2.2", 80, isn + 1, 32, TcpFlags.ACK, 64240, 0, 2, 64,
                    new byte[0])));
            if (closed) {
                pcap.add(at + 30, PcapBuilder.ethernet(PcapBuilder.ipv4Tcp(client, port, "10.71.2.2", 80, isn + 1, 32,
                        TcpFlags.FIN | TcpFlags.ACK, 64240, 0, 3, 64, new byte[0])));
                pcap.add(at + 40, PcapBuilder.ethernet(PcapBuilder.ipv4Tcp("10.71.2.2", 80, client, port, 32, isn + 2,
                        TcpFlags.FIN | TcpFlags.ACK, 64240, 0, 2, 64, new byte[0])));
                pcap.add(at + 50, PcapBuilder.ethernet(PcapBuilder.ipv4Tcp(client, port, "10.71.2.2", 80, isn + 2, 33, TcpFlags.ACK, 64240, 0, 4, 64,
                        new byte[0])));
            }
        }
        Path capture = tmp.resolve("connections.pcap");
        Files.write(capture, pcap.bytes());
        Path log = tmp.resolve("analyze.log");
        Process p = StreamProcess.start(List.of("analyze", "--server-pcap", capture.toString()), log, "-Xmx64m", "-XX:+UseSerialGC");
        assertTrue(p.waitFor(5, java.util.concurrent.TimeUnit.MINUTES), "finished");
        assertEquals(0, p.exitValue(), StreamProcess.tail(log));
        return Files.readString(log);
    }

    private static int connectionsAnalysed(String out) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+) connections, (\\d+) boring").matcher(out);
        assertTrue(m.find(), out);
        return Integer.parseInt(m.group(1));
    }

    /** Sensor clocks minutes apart: the captures are merged on the corrected clock and the connection is the same. */
    @Test
    void capturesWhoseClocksAreMinutesApartAreMergedOnACorrectedClock() throws Exception {
        Path shifted = tmp.resolve("client-5-minutes-ahead.jsonl");
        List<String> lines = new java.util.ArrayList<>();
        for (PacketEvent e : dev.critpath.core.pcap.PcapEvents.readAll(Path.of(lab("dl-20k", "client.pcap")), "client-side", SensorRole.CLIENT)) {
            lines.add(PacketEventJson.toJson(new PacketEvent(e.sensor(), e.sensorRole(), e.tsUs() + 300_000_000L, e.communityId(), e.origH(),
                    e.origP(), e.respH(), e.respP(), e.isOrig(), e.flags(), e.seq(), e.ack(), e.len(), e.win(), e.wscale(), e.mss(), e.sackOk(),
                    e.sack(), e.tsval(), e.tsecr(), e.ipId(), e.ttl(), e.captureIndex())));
        }
        Files.write(shifted, lines);
        CliRun together = CliRun.of("analyze", "--quiet", "--client-pcap", lab("dl-20k", "client.pcap"), "--server-pcap", lab("dl-20k", "server.pcap"));
        CliRun apart = CliRun.of("analyze", "--server-pcap", lab("dl-20k", "server.pcap"), "--events", shifted.toString());
        assertEquals(0, apart.exit(), apart.err());
        // 300 s ahead, less the SYN's 30 ms from the client's sensor to the server's
        assertTrue(apart.err().contains("clock +299.970 s"), "the offset is found and said: " + apart.err());
        assertEquals(row(together.out()), row(apart.out()), "the same time split, the same verdict");
    }

    private static String row(String table) {
        return table.lines().filter(l -> l.startsWith("1 ")).findFirst().orElseThrow(() -> new AssertionError("no row in " + table));
    }

    @Test
    void progressSaysHowFarAndIsOffWhenNotATerminal() {
        CliRun quietByDefault = CliRun.of("analyze", "--server-pcap", lab("random-batch", "server.pcap"));
        assertTrue(quietByDefault.err().lines().noneMatch(l -> l.contains("packets (")), "stderr is no terminal here: " + quietByDefault.err());
        CliRun r = CliRun.of("analyze", "--progress", "--server-pcap", lab("random-batch", "server.pcap"));
        assertEquals(0, r.exit(), r.err());
        String last = r.err().lines().filter(l -> l.contains("packets (")).reduce((a, b) -> b).orElseThrow(() -> new AssertionError(r.err()));
        assertTrue(last.matches("[\\d,]+ packets \\([\\d,]+/s\\), [\\d.,]+ MB of [\\d.,]+ MB \\(100%\\), about 0 s left, 0 connections open, 40 analysed"), last);
    }

    @Test
    void aConnectionOverTheWorkBudgetIsReportedAndTheRestAnalysed() throws Exception {
        HandTrace amplified = new HandTrace(5, 5).mss(1);
        amplified.c(0).syn();
        amplified.s(5).syn();
        amplified.c(10).ack(1);
        for (int i = 0; i < 20; i++) {
            amplified.c(11 + i).data(1 << 20); // the event schema's largest payload, an MSS of 1 byte
        }
        Path events = tmp.resolve("amplified.jsonl");
        Files.write(events, amplified.clientCapture().stream().map(PacketEventJson::toJson).toList());
        CliRun r = CliRun.of("analyze", "--quiet", "--pcap", lab("dl-20k", "server.pcap"), "--events", events.toString());
        assertEquals(1, r.exit(), r.err());
        assertTrue(r.err().contains("could not be analysed") && r.err().contains("over the budget"), r.err());
        assertTrue(r.out().contains("10.71.1.2:"), "the other connection is analysed: " + r.out());
    }

    @Test
    void helpExplainsTheOptions() {
        CliRun r = CliRun.of("analyze", "--help");
        assertEquals(0, r.exit());
        for (String s : List.of("--client-pcap", "--server-pcap", "--parquet", "--json", "--screen", "Examples:")) {
            assertTrue(r.out().contains(s), s);
        }
    }
}
