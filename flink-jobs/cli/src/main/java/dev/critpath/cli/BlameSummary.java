package dev.critpath.cli;

import dev.critpath.warehouse.WarehouseReader;
import dev.critpath.warehouse.WarehouseTable;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.avro.generic.GenericRecord;

/** The demo's closing words: server vs network blame over a warehouse, what the screen found, and the connections worth a look. */
final class BlameSummary {
    /** A label, then the profiles columns it sums; CategoryListsTest checks that they are the categories, each once. */
    static final String[][] GROUPS = {
        {"server", "server_us"},
        {"client", "client_us"},
        {"network: propagation", "propagation_us"},
        {"network: queuing", "queuing_us"},
        {"loss (timeouts, fast retransmits, backoff)", "loss_timeout_us", "loss_fast_retransmit_us", "loss_backoff_us"},
        {"server or queuing (client-side capture only)", "server_or_queuing_us"},
        {"client or queuing (server-side capture only)", "client_or_queuing_us"},
        {"idle / unknown", "idle_us", "unknown_us"},
    };
    private static final int WORST = 5;

    private BlameSummary() {
    }

    /** {@code aboutInput} says, where it helps, what kind of connections the warehouse holds (or is empty). */
    static void print(Path warehouse, String aboutInput, PrintWriter out) throws IOException {
        List<GenericRecord> profiles = WarehouseReader.read(warehouse, WarehouseTable.PROFILES);
        List<GenericRecord> screening = WarehouseReader.read(warehouse, WarehouseTable.SCREENING);
        long total = profiles.stream().mapToLong(p -> (Long) p.get("duration_us")).sum();
        out.printf(Locale.ROOT, "%nServer vs network blame over %d connections (%.1f s of connection time):%n", profiles.size(), total / 1e6);
        for (String[] g : GROUPS) {
            long us = 0;
            for (GenericRecord p : profiles) {
                for (int i = 1; i < g.length; i++) {
                    us += (Long) p.get(g[i]);
                }
            }
            if (us > 0) {
                out.printf(Locale.ROOT, "  %-46s %9.1f ms  %5.1f%%  %s%n", g[0], us / 1000.0, 100.0 * us / Math.max(total, 1), bar(us, total));
            }
        }
        printScreen(profiles, screening, aboutInput, out);
        String tables = Arrays.stream(WarehouseTable.values()).map(WarehouseTable::tableName)
                .filter(t -> Files.isDirectory(warehouse.resolve(t))).collect(Collectors.joining(", "));
        out.printf("%nWarehouse: %s (tables %s; Parquet, partitioned by dt/hour)%n", warehouse.toAbsolutePath(), tables);
        out.printf("Query it, e.g.: ./critpath sql --warehouse %s -c \"select * from blame_by_server\"%n", warehouse);
        out.flush();
    }

    private static void printScreen(List<GenericRecord> profiles, List<GenericRecord> screening, String aboutInput, PrintWriter out) {
        List<GenericRecord> flagged = screening.stream().filter(s -> !(Boolean) s.get("boring")).toList();
        out.printf(Locale.ROOT, "%nScreen: %d of %d connections worth a look, %d boring.%s%n", flagged.size(), screening.size(),
                screening.size() - flagged.size(), aboutInput.isEmpty() ? "" : " " + aboutInput);
        if (flagged.isEmpty()) {
            return;
        }
        Map<String, Long> byRule = new TreeMap<>(flagged.stream().flatMap(s -> ((List<?>) s.get("failed_rules")).stream())
                .collect(Collectors.groupingBy(Object::toString, Collectors.counting())));
        out.println("  Connections failing each rule (one connection can fail several):");
        byRule.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .forEach(e -> out.printf(Locale.ROOT, "    %-28s %5d%n", e.getKey(), e.getValue()));

        Map<String, GenericRecord> profileByUid = profiles.stream().collect(Collectors.toMap(p -> p.get("conn_uid").toString(), Function.identity()));
        List<GenericRecord> worst = flagged.stream()
                .sorted(Comparator.comparingLong((GenericRecord s) -> (Long) s.get("score_us")).reversed()).limit(WORST).toList();
        out.printf(Locale.ROOT, "%nThe %d worth a look with the most time not explained by propagation or idling (the screen's score):%n", worst.size());
        out.printf(Locale.ROOT, "  %-4s %-46s %12s %12s%n", "rank", "connection (client > server)", "duration", "score");
        int rank = 0;
        for (GenericRecord s : worst) {
            GenericRecord p = profileByUid.get(s.get("conn_uid").toString());
            String conn = p == null ? s.get("conn_uid").toString()
                    : p.get("client_addr") + ":" + p.get("client_port") + " > " + p.get("server_addr") + ":" + p.get("server_port");
            String duration = p == null ? "?" : String.format(Locale.ROOT, "%,.1f ms", (Long) p.get("duration_us") / 1000.0);
            out.printf(Locale.ROOT, "  %-4d %-46s %12s %12s%n       why: %s%n", ++rank, conn, duration,
                    String.format(Locale.ROOT, "%,.1f ms", (Long) s.get("score_us") / 1000.0), s.get("explanation"));
        }
    }

    private static String bar(long part, long total) {
        int n = (int) Math.round(30.0 * part / Math.max(total, 1));
        return "#".repeat(n);
    }
}
