package dev.critpath.core.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.critpath.core.analysis.CaptureMode;
import dev.critpath.core.analysis.Category;
import dev.critpath.core.analysis.ConnectionProfile;
import dev.critpath.core.analysis.DirectionStats;
import dev.critpath.core.testing.LabFixtures.Connection;
import dev.critpath.core.testing.LabFixtures.Scenario;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The per-scenario table of docs/accuracy.md: what the lab injected, what critpath measured, what the pie said. */
public final class AccuracyTable {
    private AccuracyTable() {
    }

    /**
     * Writes a rendered table to target/NAME and asserts docs/accuracy.md carries it as rendered:
     * figures the analysis no longer gives fail here, not in a reader's hands.
     */
    public static void writeAndCheckDocs(String table, String name) throws IOException {
        Path out = Path.of("target", name);
        Files.writeString(out, table);
        String docs = Files.readString(Repo.root().resolve("docs").resolve("accuracy.md"));
        assertTrue(docs.contains(table.strip()),
                "docs/accuracy.md does not carry the table as measured now: put " + out.toAbsolutePath() + " in its place");
    }

    public static String markdown(List<Scenario> scenarios) {
        StringBuilder sb = new StringBuilder();
        sb.append("| scenario | injected | duration ms | server ms: executed / on path | propagation ms: expected / measured | queuing ms | loss: kernel / critpath (ms on path, ms it cost) | clock offset ms: injected / estimated ± bound | pie 002 ms: client / server / network | critical path ms: client / server / network+loss |\n");
        sb.append("|---|---|---|---|---|---|---|---|---|---|\n");
        for (Scenario s : scenarios) {
            if (randomBatch(s)) {
                continue; // the random batch gets its own summary below
            }
            for (int i = 0; i < s.connections().size(); i++) {
                sb.append(row(s, i)).append('\n');
            }
        }
        for (Scenario s : scenarios) {
            if (randomBatch(s)) {
                sb.append('\n').append(batchSummary(s));
            }
        }
        return sb.toString();
    }

    /**
     * The single-capture table: each scenario analysed from each capture alone next to both,
     * against the lab's truth (the remote host's logged time, the kernels' counters).
     */
    public static String singleCapture(List<Scenario> twoPoint, java.util.function.BiFunction<Scenario, CaptureMode, Scenario> alone) {
        StringBuilder sb = new StringBuilder();
        sb.append("| scenario | capture | propagation ms: expected / alone / both | local host ms: alone / both | remote host ms: spent / merged category alone | loss: kernel / alone |\n");
        sb.append("|---|---|---|---|---|---|\n");
        for (Scenario s : twoPoint) {
            if (s.connections().size() > 1) {
                continue;
            }
            Connection both = s.connections().get(0);
            for (CaptureMode mode : List.of(CaptureMode.SERVER_SIDE, CaptureMode.CLIENT_SIDE)) {
                Connection one = alone.apply(s, mode).connections().get(0);
                ConnectionProfile p = one.result().profile();
                ConnectionProfile p2 = both.result().profile();
                boolean serverSide = mode == CaptureMode.SERVER_SIDE;
                Category local = serverSide ? Category.SERVER : Category.CLIENT;
                Category merged = serverSide ? Category.CLIENT_OR_QUEUING : Category.SERVER_OR_QUEUING;
                sb.append(String.format(Locale.ROOT, "| %s | %s | %.1f / %.1f / %.1f | %.1f / %.1f | %.1f / %.1f | %s |%n", s.name(),
                        serverSide ? "server side" : "client side", both.expectedPropagationUs() / 1e3, p.times.get(Category.PROPAGATION) / 1e3,
                        p2.times.get(Category.PROPAGATION) / 1e3, p.times.get(local) / 1e3, p2.times.get(local) / 1e3,
                        remoteSpentUs(one, !serverSide) / 1e3, p.times.get(merged) / 1e3, loss(one, p)));
            }
        }
        return sb.toString();
    }

    /** What the remote host spent on purpose: the server's executed delays, or the client's pauses. */
    public static long remoteSpentUs(Connection c, boolean serverIsRemote) {
        long sum = 0;
        JsonNode exchanges = c.truth().get("exchanges");
        for (int i = 0; i < exchanges.size(); i++) {
            sum += serverIsRemote ? c.injectedServerDelayUs(i) : exchanges.get(i).get("client_pause_us_executed").asLong();
        }
        return sum;
    }

    /** Connections each with their own delays: summarised, not one row each. */
    private static boolean randomBatch(Scenario s) {
        return s.truth().get("config").get("delay_us").isNull();
    }

    /** One connection's row; a scenario of several connections (twins) names each by its place. */
    private static String row(Scenario s, int place) {
        Connection c = s.connections().get(place);
        String name = s.connections().size() == 1 ? s.name() : s.name() + " #" + (place + 1);
        ConnectionProfile p = c.result().profile();
        JsonNode cfg = s.truth().get("config");
        long serverInjected = 0;
        long serverMeasured = 0;
        for (int i = 0; i < c.result().exchanges().size(); i++) {
            serverInjected += c.injectedServerDelayUs(i);
            serverMeasured += c.result().exchanges().get(i).times().get(Category.SERVER);
        }
        String link = p.costs.serverLinkUs() >= 1000 ? String.format(Locale.ROOT, " (its link %.1f)", p.costs.serverLinkUs() / 1e3) : "";
        return String.format(Locale.ROOT, "| %s | %s | %.1f | %.1f / %.1f%s | %.1f / %.1f | %.1f | %s | %.1f / %.3f ± %.1f | %s | %.1f / %.1f / %.1f |",
                name, injected(s, c), p.durationUs() / 1e3, serverInjected / 1e3, serverMeasured / 1e3, link,
                c.expectedPropagationUs() / 1e3, p.times.get(Category.PROPAGATION) / 1e3, p.times.get(Category.QUEUING) / 1e3,
                loss(c, p), cfg.get("server_clock_offset_us").asLong() / 1e3, p.timing.clockOffsetUs() / 1e3,
                p.timing.clockOffsetUncertaintyUs() / 1e3, pie(p),
                p.times.get(Category.CLIENT) / 1e3, p.times.get(Category.SERVER) / 1e3, (p.times.network() + p.times.loss()) / 1e3);
    }

    private static String injected(Scenario s, Connection c) {
        JsonNode cfg = s.truth().get("config");
        JsonNode d = c.truth().get("delay_us");
        List<String> parts = new ArrayList<>();
        parts.add(ms(d.get("c2s")) + "/" + ms(d.get("s2c")) + " ms one way");
        for (String dir : List.of("c2s", "s2c")) {
            if (!cfg.get("rate_kbit").get(dir).isNull()) {
                parts.add(String.format(Locale.ROOT, "%s %d kbit/s, queue %.1f KB", dir, cfg.get("rate_kbit").get(dir).asLong(),
                        cfg.get("queue_bytes").get(dir).asLong() / 1e3));
            }
            if (cfg.get("jitter_us").get(dir).asLong() > 0) {
                parts.add(dir + " jitter 0-" + ms(cfg.get("jitter_us").get(dir)) + " ms");
            }
            if (cfg.path("batch_us").path(dir).asLong() > 0) {
                parts.add(dir + " in " + ms(cfg.get("batch_us").get(dir)) + " ms batches");
            }
            if (cfg.get("random_loss").path(dir).asDouble() > 0) {
                parts.add(String.format(Locale.ROOT, "%s %.0f%% random loss", dir, cfg.get("random_loss").get(dir).asDouble() * 100));
            }
        }
        int drops = c.truth().get("drops").size();
        if (drops > 0) {
            long acks = 0;
            for (JsonNode drop : c.truth().get("drops")) {
                acks += "ack".equals(drop.get("kind").asText()) ? 1 : 0;
            }
            parts.add(drops + " drop(s)" + (acks > 0 ? ", " + acks + " of them pure ACKs" : ""));
        }
        if (!cfg.path("server_link_kbit").isNull() && !cfg.path("server_link_kbit").isMissingNode()) {
            parts.add("server link " + cfg.get("server_link_kbit").asLong() + " kbit/s");
        }
        if (!"reno".equals(cfg.get("cc").asText())) {
            parts.add(cfg.get("cc").asText());
        }
        if (cfg.get("sack").asBoolean()) {
            parts.add("SACK");
        }
        if (cfg.path("early_retrans").asInt(3) == 0) {
            parts.add("TLP off");
        }
        return String.join(", ", parts);
    }

    private static String ms(JsonNode us) {
        return String.format(Locale.ROOT, "%.0f", us.asLong() / 1e3);
    }

    private static String loss(Connection c, ConnectionProfile p) {
        JsonNode k = c.truth().get("kernel").get("server");
        JsonNode kc = c.truth().get("kernel").get("client");
        long kernelTimers = k.get("TcpExtTCPTimeouts").asLong() + kc.get("TcpExtTCPTimeouts").asLong();
        long kernelFast = k.get("TcpExtTCPFastRetrans").asLong() + kc.get("TcpExtTCPFastRetrans").asLong();
        long kernelProbes = k.get("TcpExtTCPLossProbes").asLong() + kc.get("TcpExtTCPLossProbes").asLong();
        if (kernelTimers + kernelFast + kernelProbes + p.retransmissions() == 0) {
            return "none / none";
        }
        DirectionStats a = p.c2s;
        DirectionStats b = p.s2c;
        return String.format(Locale.ROOT, "%s / %s (%.1f, %.1f)", counts(kernelFast, kernelTimers, kernelProbes, 0),
                counts(a.fastRetransmits + b.fastRetransmits, a.timeouts + b.timeouts + a.backoffs + b.backoffs, a.tailLossProbes + b.tailLossProbes,
                        a.probesOrTimeouts + b.probesOrTimeouts),
                p.times.loss() / 1e3, p.costs.lossCostUs() / 1e3);
    }

    /** probesOrTimeouts: of the probes, those an RTO's timing fits too. */
    private static String counts(long fast, long timers, long probes, long probesOrTimeouts) {
        List<String> parts = new ArrayList<>();
        if (fast > 0) {
            parts.add(fast + " fast");
        }
        if (timers > 0) {
            parts.add(timers + " RTO");
        }
        if (probes > probesOrTimeouts) {
            parts.add(probes - probesOrTimeouts + " TLP");
        }
        if (probesOrTimeouts > 0) {
            parts.add(probesOrTimeouts + " TLP or RTO");
        }
        return parts.isEmpty() ? "none" : String.join(" + ", parts);
    }

    private static String pie(ConnectionProfile p) {
        return String.format(Locale.ROOT, "%.1f / %.1f / %.1f", p.pie.clientUs() / 1e3, p.pie.serverUs() / 1e3, p.pie.networkUs() / 1e3);
    }

    private static String batchSummary(Scenario s) {
        List<double[]> server = new ArrayList<>();
        double maxErr = 0;
        double sumErr = 0;
        int classified = 0;
        int drops = 0;
        for (Connection c : s.connections()) {
            double injected = c.injectedServerDelayUs(0);
            double measured = c.result().exchanges().get(0).times().get(Category.SERVER);
            server.add(new double[] {injected, measured});
            maxErr = Math.max(maxErr, Math.abs(measured - injected));
            sumErr += Math.abs(measured - injected);
            JsonNode k = c.truth().get("kernel").get("server");
            DirectionStats d = c.result().profile().s2c;
            drops += c.truth().get("drops").size();
            if (k.get("TcpExtTCPFastRetrans").asLong() == d.fastRetransmits && k.get("TcpExtTCPTimeouts").asLong() == d.timeouts + d.backoffs) {
                classified += c.truth().get("drops").size();
            }
        }
        return String.format(Locale.ROOT, "**%s** (%d connections, seed %s): server delay executed vs on the path: correlation %.5f, "
                        + "mean absolute error %.2f ms, largest %.2f ms; %d of %d drops recovered as the server's kernel counted them.%n",
                s.name(), s.connections().size(), s.truth().get("config").get("seed").asText(), LabFixtures.pearson(server),
                sumErr / server.size() / 1e3, maxErr / 1e3, classified, drops);
    }
}
