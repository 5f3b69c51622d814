package dev.critpath.warehouse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.screen.ConnectionResult;
import dev.critpath.core.testing.LabFixtures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetReader;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.io.LocalInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ParquetTablesTest {
    @TempDir
    Path warehouse;

    static List<ConnectionResult> keepAliveAndBatch() {
        List<ConnectionResult> out = new ArrayList<>();
        LabFixtures.scenario("keepalive-3").connections().forEach(c -> out.add(c.result()));
        LabFixtures.scenario("fast-retransmit").connections().forEach(c -> out.add(c.result()));
        return out;
    }

    @Test
    void writtenTablesReadBackWithTheSameValuesInHivePartitions() throws IOException {
        List<ConnectionResult> results = keepAliveAndBatch();
        var files = ParquetTables.write(warehouse, results);
        for (WarehouseTable t : WarehouseTable.values()) {
            List<GenericRecord> back = new ArrayList<>();
            for (Path f : files.get(t)) {
                assertTrue(f.toString().matches(".*/" + t.tableName() + "/dt=\\d{4}-\\d\\d-\\d\\d/hour=\\d\\d/part-[0-9a-f-]+\\.parquet"), f.toString());
                back.addAll(read(f));
            }
            List<Map<String, Object>> expected = new ArrayList<>();
            results.forEach(r -> expected.addAll(t.rows(r)));
            assertEquals(expected.size(), back.size(), t.tableName());
            assertEquals(t != WarehouseTable.DEAD_LETTERS, !back.isEmpty(), t.tableName() + ": rows written (a connection gives dead_letters none)");
            for (int i = 0; i < expected.size(); i++) {
                assertEquals(normalised(AvroRows.toRecord(t.schema(), expected.get(i))), normalised(back.get(i)), t.tableName() + " row " + i);
            }
        }
        try (Stream<Path> all = Files.walk(warehouse)) {
            assertFalse(all.anyMatch(p -> p.getFileName().toString().startsWith(".")), "no in-progress files left");
        }
    }

    @Test
    void rowsThatDoNotFitTheSchemaAreRefused() {
        Schema s = WarehouseTable.SCREENING.schema();
        Map<String, Object> row = new java.util.LinkedHashMap<>(keepAliveAndBatch().get(0).verdict().columns());
        row.put("surprise", 1L);
        assertTrue(org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> AvroRows.toRecord(s, row))
                .getMessage().contains("no column surprise"));
        row.remove("surprise");
        row.remove("score_us");
        assertTrue(org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> AvroRows.toRecord(s, row))
                .getMessage().contains("lacks column score_us"));
        Object[] packetRow = keepAliveAndBatch().stream().flatMap(r -> r.packetValues().stream()).findFirst().orElseThrow();
        assertTrue(org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> AvroRows.toRecord(WarehouseTable.PACKETS.schema(), java.util.Arrays.copyOf(packetRow, packetRow.length - 1)))
                .getMessage().contains("has 20 columns, the row 19 values"));
        packetRow[2] = null; // tx_index
        assertTrue(org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> AvroRows.toRecord(WarehouseTable.PACKETS.schema(), packetRow)).getMessage().contains("column tx_index is not nullable"));
    }

    /** Field values as text; maps sorted, since Avro reads maps back in hash order. */
    private static List<String> normalised(GenericRecord r) {
        List<String> out = new ArrayList<>();
        for (Schema.Field f : r.getSchema().getFields()) {
            Object v = r.get(f.pos());
            if (v instanceof Map<?, ?> m) {
                java.util.TreeMap<String, String> sorted = new java.util.TreeMap<>();
                m.forEach((k, x) -> sorted.put(k.toString(), String.valueOf(x)));
                v = sorted;
            }
            out.add(f.name() + "=" + v);
        }
        return out;
    }

    static List<GenericRecord> read(Path f) throws IOException {
        List<GenericRecord> out = new ArrayList<>();
        try (ParquetReader<GenericRecord> r = AvroParquetReader.<GenericRecord>builder(new LocalInputFile(f))
                .withConf(new PlainParquetConfiguration()).build()) {
            GenericRecord g;
            while ((g = r.read()) != null) {
                out.add(g);
            }
        }
        return out;
    }
}
