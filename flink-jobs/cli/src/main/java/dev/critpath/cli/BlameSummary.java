package dev.critpath.cli;

import dev.critpath.warehouse.WarehouseReader;
import dev.critpath.warehouse.WarehouseTable;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.apache.avro.generic.GenericRecord;

/** The demo's closing words: server vs network blame over a warehouse, and the connections worth a look. */
final class BlameSummary {
    private static final String[][] GROUPS = {
        {"server", "server_us"},
        {"client", "client_us"},
        {"network: propagation", "propagation_us"},
        {"network: queuing", "queuing_us"},
        {"loss (timeouts, fast retransmits, backoff)", "loss_timeout_us", "loss_fast_retransmit_us", "loss_backoff_us"},
        {"server or queuing (client-side capture only)", "server_or_queuing_us"},
        {"client or queuing (server-side capture only)", "client_or_queuing_us"},
        {"idle / unknown", "idle_us", "unknown_us"},
    };

    private BlameSummary() {
    }

    static void print(Path warehouse, PrintWriter out) throws IOException {
        List<GenericRecord> profiles = WarehouseReader.read(warehouse, WarehouseTable.PROFILES);
        List<GenericRecord> screening = WarehouseReader.read(warehouse, WarehouseTable.SCREENING);
        long total = profiles.stream().mapToLong(p -> (Long) p.get("duration_us")).sum();
        long boring = profiles.stream().filter(p -> (Boolean) p.get("boring")).count();
        out.printf(Locale.ROOT, "%nServer vs network blame over %d connections (%.1f s of connection time, %d boring, %d worth a look):%n",
                profiles.size(), total / 1e6, boring, profiles.size() - boring);
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
        List<GenericRecord> worst = screening.stream().filter(s -> !(Boolean) s.get("boring"))
                .sorted(Comparator.comparingLong((GenericRecord s) -> (Long) s.get("score_us")).reversed()).limit(5).toList();
        if (!worst.isEmpty()) {
            out.println("\nMost time not explained by propagation (screen score), and why:");
            for (GenericRecord s : worst) {
                out.printf(Locale.ROOT, "  %8.1f ms  %s%n             %s%n", (Long) s.get("score_us") / 1000.0, s.get("conn_uid"), s.get("explanation"));
            }
        }
        out.printf("%nWarehouse: %s (tables profiles, exchanges, critical_path, screening; Parquet, partitioned by dt/hour)%n", warehouse.toAbsolutePath());
        out.printf("Query it, e.g.: duckdb -c \"select mode, avg(server_us), avg(propagation_us) from read_parquet('%s/profiles/**/*.parquet', hive_partitioning=true) group by mode\"%n",
                warehouse.toAbsolutePath());
        out.flush();
    }

    private static String bar(long part, long total) {
        int n = (int) Math.round(30.0 * part / Math.max(total, 1));
        return "#".repeat(n);
    }
}
