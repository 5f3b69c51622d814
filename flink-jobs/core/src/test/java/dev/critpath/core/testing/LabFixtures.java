package dev.critpath.core.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.critpath.core.analysis.CaptureMode;
import dev.critpath.core.analysis.Direction;
import dev.critpath.core.analysis.PathArc;
import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.pcap.PcapEvents;
import dev.critpath.core.screen.ConnectionResult;
import dev.critpath.core.screen.Screen;
import dev.critpath.core.trace.ConnectionAssembler;
import dev.critpath.core.trace.ConnectionTrace;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/** The trace lab's fixtures (testdata/lab/SCENARIO/{client,server}.pcap + truth.json), analysed once. */
public final class LabFixtures {
    private static final Map<String, Scenario> CACHE = new ConcurrentHashMap<>();
    /** The default screen, keeping every connection's packets (the `packets` table's tests count them all). */
    private static final Screen KEEP_EVERY_PACKET = Screen.fromProperties(keepEveryPacket(), null);

    private LabFixtures() {
    }

    /** One lab connection: its truth entry and what critpath made of it. */
    public record Connection(JsonNode truth, ConnectionResult result) {
        public int clientPort() {
            return truth.get("client_port").asInt();
        }

        /**
         * What the server host actually spent on exchange i: from the kernel's arrival stamp of the
         * request's last bytes to the first response byte (scheduler wake-up, think time, its own
         * processing), plus its stalls.
         */
        public long injectedServerDelayUs(int i) {
            JsonNode x = truth.get("exchanges").get(i);
            long d = x.get("first_byte_ts_us").asLong() - x.get("request_arrival_ts_us").asLong();
            for (JsonNode s : x.get("stalls")) {
                d += s.get("stall_us_executed").asLong();
            }
            return d;
        }

        /**
         * The server's own time around its socket calls for exchange i that no stamp pins down: its
         * send windows, each from the stamp before a response part's first send (after a stall, the
         * stall's end) to the return of its last send or of the shutdown that queues the FIN. The
         * part's first segment and the FIN leave within them, so the server's time on the path lies
         * between {@link #injectedServerDelayUs} and that plus these windows. Zero for fixtures
         * recorded before the server logged them.
         */
        public long serverSendWindowsUs(int i) {
            JsonNode windows = truth.get("exchanges").get(i).get("send_windows");
            long sum = 0;
            for (JsonNode w : windows == null ? List.<JsonNode>of() : windows) {
                sum += w.get("end_ts_us").asLong() - w.get("start_ts_us").asLong();
            }
            return sum;
        }

        /**
         * The smallest one-way delay the lab's path gave a packet of this direction: the configured
         * delay plus the least the delay line added on top to any packet (a bottleneck's
         * serialisation of the packet itself, batching in phase with the traffic, the smallest
         * jitter draw). No capture can tell that part from propagation; fixtures recorded before the
         * delay line reported it have only the configured delay.
         */
        public long pathDelayUs(Direction dir) {
            String d = dir == Direction.C2S ? "c2s" : "s2c";
            JsonNode extra = truth.path("delay_line").path("extra_delay").path(d).path("extra");
            return truth.get("delay_us").get(d).asLong() + (extra.path("packets").asLong() > 0 ? extra.get("min_us").asLong() : 0);
        }

        /** The path's one-way delay of each direction times the network arcs of that direction on the path. */
        public long expectedPropagationUs() {
            long c2s = pathDelayUs(Direction.C2S);
            long s2c = pathDelayUs(Direction.S2C);
            long sum = 0;
            for (PathArc a : result.arcs()) {
                if (a.kind() == PathArc.Kind.NETWORK) {
                    sum += a.direction() == Direction.C2S ? c2s : s2c;
                }
            }
            return sum;
        }
    }

    public record Scenario(String name, Path dir, JsonNode truth, List<Connection> connections, CaptureMode mode) {
    }

    public static List<Scenario> all() {
        Path lab = Repo.testdata("lab");
        if (!Files.isDirectory(lab)) {
            return List.of();
        }
        try (Stream<Path> dirs = Files.list(lab)) {
            return dirs.filter(d -> Files.isRegularFile(d.resolve("truth.json"))).sorted().map(LabFixtures::load).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The one connection the sensors' events make together; fails the test if they make another number. */
    @SafeVarargs
    public static ConnectionTrace oneConnection(List<PacketEvent>... sensors) {
        ConnectionAssembler as = new ConnectionAssembler();
        for (List<PacketEvent> events : sensors) {
            events.forEach(as::add);
        }
        List<ConnectionTrace> all = as.connections();
        if (all.size() != 1) {
            throw new AssertionError("expected one connection, the events make " + all.size());
        }
        return all.get(0);
    }

    public static Scenario scenario(String name) {
        return load(Repo.testdata("lab").resolve(name));
    }

    public static Scenario scenario(String name, CaptureMode mode) {
        return load(Repo.testdata("lab").resolve(name), mode);
    }

    /** Analyses a lab run directory (fixtures or a fresh live run) from both captures. */
    public static Scenario load(Path dir) {
        return load(dir, CaptureMode.TWO_POINT);
    }

    /** Analyses a lab run directory from the captures the mode names, each sensor's side told as a user would with --client-pcap/--server-pcap. */
    public static Scenario load(Path dir, CaptureMode mode) {
        Path abs = dir.toAbsolutePath();
        return CACHE.computeIfAbsent(abs + "#" + mode, key -> {
            Path d = abs;
            try {
                JsonNode truth = new ObjectMapper().readTree(d.resolve("truth.json").toFile());
                ConnectionAssembler as = new ConnectionAssembler();
                if (mode != CaptureMode.SERVER_SIDE) {
                    PcapEvents.readAll(d.resolve("client.pcap"), "client-side", SensorRole.CLIENT).forEach(as::add);
                }
                if (mode != CaptureMode.CLIENT_SIDE) {
                    PcapEvents.readAll(d.resolve("server.pcap"), "server-side", SensorRole.SERVER).forEach(as::add);
                }
                Map<Integer, ConnectionResult> byPort = new HashMap<>();
                Analyzer analyzer = Analyzer.defaults();
                Screen screen = KEEP_EVERY_PACKET;
                for (ConnectionTrace t : as.connections()) {
                    byPort.put(t.clientPort(), screen.apply(analyzer.analyze(t)));
                }
                List<Connection> conns = new ArrayList<>();
                for (JsonNode c : truth.get("connections")) {
                    ConnectionResult r = byPort.get(c.get("client_port").asInt());
                    if (r == null) {
                        throw new IllegalStateException(d + ": no analysed connection for client port " + c.get("client_port"));
                    }
                    conns.add(new Connection(c, r));
                }
                return new Scenario(d.getFileName().toString(), d, truth, conns, mode);
            } catch (Exception e) {
                throw new IllegalStateException("cannot analyse lab run " + d, e);
            }
        });
    }

    private static java.util.Properties keepEveryPacket() {
        java.util.Properties p = new java.util.Properties();
        p.setProperty("packets.boring_sample_rate", "1");
        p.setProperty("packets.max_per_connection", String.valueOf(Integer.MAX_VALUE));
        return p;
    }

    public static double pearson(List<double[]> xy) {
        int n = xy.size();
        double mx = xy.stream().mapToDouble(p -> p[0]).sum() / n;
        double my = xy.stream().mapToDouble(p -> p[1]).sum() / n;
        double sxy = 0;
        double sxx = 0;
        double syy = 0;
        for (double[] p : xy) {
            sxy += (p[0] - mx) * (p[1] - my);
            sxx += (p[0] - mx) * (p[0] - mx);
            syy += (p[1] - my) * (p[1] - my);
        }
        return sxy / Math.sqrt(sxx * syy);
    }
}
