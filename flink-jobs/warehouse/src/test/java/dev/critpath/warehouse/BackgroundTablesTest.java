package dev.critpath.warehouse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.lifecycle.PathAnalysis;
import dev.critpath.core.screen.ConnectionResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The tables written on a thread of their own: the same files' rows, and a failure that comes back instead of a hang. */
class BackgroundTablesTest {
    @TempDir
    Path dir;

    @Test
    void writesTheRowsParquetTablesWritesInTheSameOrder() throws IOException {
        List<ConnectionResult> results = ParquetTablesTest.keepAliveAndBatch();
        Map<WarehouseTable, List<Path>> direct = ParquetTables.write(dir.resolve("direct"), results);
        BackgroundTables background = new BackgroundTables(dir.resolve("background"));
        for (ConnectionResult r : results) {
            background.add(r, PathAnalysis.Rows.ALL);
        }
        background.close();
        for (WarehouseTable t : WarehouseTable.values()) {
            assertEquals(rows(direct.get(t)), rows(background.written().get(t)), t.tableName());
        }
    }

    /** The warehouse cannot be made (a file is in its place): the writer fails, keeps taking what is added, and the failure comes back. */
    @Test
    void aFailureToWriteComesBackAndAddingNeverBlocks() throws IOException {
        Path taken = Files.writeString(dir.resolve("not-a-directory"), "");
        ConnectionResult r = ParquetTablesTest.keepAliveAndBatch().get(0);
        IOException e = assertTimeoutPreemptively(Duration.ofMinutes(2), () -> assertThrows(IOException.class, () -> {
            try (BackgroundTables tables = new BackgroundTables(taken)) {
                for (int i = 0; i < 1000; i++) { // far more than may wait: a writer that stopped taking would block here
                    tables.add(r, PathAnalysis.Rows.ALL);
                }
            }
        }));
        assertTrue(e.getMessage().startsWith("writing the Parquet tables: "), e.getMessage());
    }

    /** A table's rows, file by file in the order of their partitions (each written once here). */
    private static List<String> rows(List<Path> files) throws IOException {
        List<String> out = new ArrayList<>();
        for (Path f : files.stream().sorted(Comparator.comparing(Path::getParent)).toList()) {
            ParquetTablesTest.read(f).forEach(g -> out.add(g.toString()));
        }
        return out;
    }
}
