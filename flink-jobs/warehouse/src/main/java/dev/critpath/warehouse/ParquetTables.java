package dev.critpath.warehouse;

import dev.critpath.core.lifecycle.PathAnalysis;
import dev.critpath.core.screen.ConnectionResult;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.Iterator;
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
 * Writes analysis results into a local warehouse as they come: WAREHOUSE/TABLE/dt=.../hour=.../part-UUID.parquet.
 * Files appear atomically (written under a hidden name, then renamed on {@link #close}), so
 * readers that glob *.parquet never see half a file. Memory stays bounded however many rows: row
 * groups are small, and only the most recent partitions of each table keep a file open.
 */
public final class ParquetTables implements Closeable {
    /** Results come roughly in time order, so few partitions are current at once. */
    private static final int OPEN_PARTITIONS_PER_TABLE = 4;
    private static final int ROW_GROUP_BYTES = 8 << 20;

    /** A part file being written, with the name it gets when done. */
    private record OpenFile(ParquetWriter<GenericRecord> writer, Path hidden, Path target) {
    }

    private final Path warehouse;
    /** Per table, its open files by partition, least recently written first. */
    private final Map<WarehouseTable, LinkedHashMap<Partition, OpenFile>> open = new EnumMap<>(WarehouseTable.class);
    private final Map<WarehouseTable, List<Path>> written = new EnumMap<>(WarehouseTable.class);

    public ParquetTables(Path warehouse) {
        this.warehouse = warehouse;
        for (WarehouseTable t : WarehouseTable.values()) {
            written.put(t, new ArrayList<>());
        }
    }

    /** Writes every table's rows for these results; returns the files written per table. */
    public static Map<WarehouseTable, List<Path>> write(Path warehouse, List<ConnectionResult> results) throws IOException {
        try (ParquetTables tables = new ParquetTables(warehouse)) {
            for (ConnectionResult r : results) {
                tables.add(r, PathAnalysis.Rows.ALL);
            }
            tables.close();
            return tables.written();
        }
    }

    /** Adds the rows of the tables that {@code rows} says a result gives. */
    public void add(ConnectionResult r, PathAnalysis.Rows rows) throws IOException {
        Partition p = Partition.of(r.profile().startUs);
        for (WarehouseTable table : WarehouseTable.written(rows)) {
            for (GenericRecord row : table.records(r)) {
                fileFor(table, p).writer().write(row);
            }
        }
    }

    /** The files written so far, per table. */
    public Map<WarehouseTable, List<Path>> written() {
        return written;
    }

    @Override
    public void close() throws IOException {
        for (LinkedHashMap<Partition, OpenFile> files : open.values()) {
            for (Iterator<OpenFile> it = files.values().iterator(); it.hasNext(); ) {
                finish(it.next());
                it.remove();
            }
        }
    }

    private OpenFile fileFor(WarehouseTable table, Partition p) throws IOException {
        LinkedHashMap<Partition, OpenFile> files = open.computeIfAbsent(table, t -> new LinkedHashMap<>(8, 0.75f, true));
        OpenFile f = files.get(p);
        if (f != null) {
            return f;
        }
        if (files.size() == OPEN_PARTITIONS_PER_TABLE) {
            Iterator<OpenFile> eldest = files.values().iterator();
            finish(eldest.next());
            eldest.remove();
        }
        Path dir = warehouse.resolve(table.tableName()).resolve(p.path());
        Files.createDirectories(dir);
        String name = "part-" + UUID.randomUUID() + ".parquet";
        Path hidden = dir.resolve("." + name + ".inprogress");
        f = new OpenFile(AvroParquetWriter.<GenericRecord>builder(new LocalOutputFile(hidden))
                .withSchema(table.schema())
                .withConf(new PlainParquetConfiguration())
                .withCompressionCodec(CompressionCodecName.SNAPPY)
                .withRowGroupSize((long) ROW_GROUP_BYTES)
                .build(), hidden, dir.resolve(name));
        files.put(p, f);
        return f;
    }

    private void finish(OpenFile f) throws IOException {
        f.writer().close();
        Files.move(f.hidden(), f.target(), StandardCopyOption.ATOMIC_MOVE);
        written.get(tableOf(f)).add(f.target());
    }

    private WarehouseTable tableOf(OpenFile f) {
        for (WarehouseTable t : WarehouseTable.values()) {
            if (f.target().startsWith(warehouse.resolve(t.tableName()))) {
                return t;
            }
        }
        throw new IllegalStateException(f.target() + " is in no table's directory");
    }
}
