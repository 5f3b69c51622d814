package dev.critpath.warehouse;

import dev.critpath.core.screen.ConnectionResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;

/**
 * Writes analysis results into a local warehouse: WAREHOUSE/TABLE/dt=.../hour=.../part-UUID.parquet.
 * Files appear atomically (written under a hidden name, then renamed), so readers that glob
 * *.parquet never see half a file.
 */
public final class ParquetTables {
    private ParquetTables() {
    }

    /** Writes every table's rows for these results; returns the files written per table. */
    public static Map<WarehouseTable, List<Path>> write(Path warehouse, List<ConnectionResult> results) throws IOException {
        Map<WarehouseTable, List<Path>> written = new EnumMap<>(WarehouseTable.class);
        for (WarehouseTable table : WarehouseTable.values()) {
            Map<Partition, List<GenericRecord>> byPartition = new LinkedHashMap<>();
            for (ConnectionResult r : results) {
                Partition p = Partition.of(r.profile().startUs);
                for (Map<String, Object> row : table.rows(r)) {
                    byPartition.computeIfAbsent(p, k -> new ArrayList<>()).add(AvroRows.toRecord(table.schema(), row));
                }
            }
            List<Path> files = new ArrayList<>();
            for (Map.Entry<Partition, List<GenericRecord>> e : byPartition.entrySet()) {
                files.add(writeFile(warehouse.resolve(table.tableName()).resolve(e.getKey().path()), table, e.getValue()));
            }
            written.put(table, files);
        }
        return written;
    }

    private static Path writeFile(Path dir, WarehouseTable table, List<GenericRecord> records) throws IOException {
        Files.createDirectories(dir);
        String name = "part-" + UUID.randomUUID() + ".parquet";
        Path hidden = dir.resolve("." + name + ".inprogress");
        try (ParquetWriter<GenericRecord> w = AvroParquetWriter.<GenericRecord>builder(new LocalOutputFile(hidden))
                .withSchema(table.schema())
                .withConf(new PlainParquetConfiguration())
                .withCompressionCodec(CompressionCodecName.SNAPPY)
                .build()) {
            for (GenericRecord r : records) {
                w.write(r);
            }
        }
        Path target = dir.resolve(name);
        Files.move(hidden, target, StandardCopyOption.ATOMIC_MOVE);
        return target;
    }
}
