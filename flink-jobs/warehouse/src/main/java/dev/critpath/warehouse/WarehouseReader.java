package dev.critpath.warehouse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetReader;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.io.LocalInputFile;

/** Reads a table back from a local warehouse (finished files only, as SQL engines see it). */
public final class WarehouseReader {
    private WarehouseReader() {
    }

    public static List<GenericRecord> read(Path warehouse, WarehouseTable table) throws IOException {
        Path dir = warehouse.resolve(table.tableName());
        List<GenericRecord> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        List<Path> files;
        try (Stream<Path> s = Files.walk(dir)) {
            files = s.filter(p -> p.getFileName().toString().endsWith(".parquet") && !p.getFileName().toString().startsWith(".")).sorted().toList();
        }
        for (Path f : files) {
            try (ParquetReader<GenericRecord> r = AvroParquetReader.<GenericRecord>builder(new LocalInputFile(f))
                    .withConf(new PlainParquetConfiguration()).build()) {
                GenericRecord g;
                while ((g = r.read()) != null) {
                    out.add(g);
                }
            }
        }
        return out;
    }
}
