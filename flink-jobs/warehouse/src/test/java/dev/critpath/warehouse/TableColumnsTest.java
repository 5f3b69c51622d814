package dev.critpath.warehouse;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.critpath.core.analysis.Category;
import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.pcap.PcapEvents;
import dev.critpath.core.screen.ConnectionResult;
import dev.critpath.core.screen.Screen;
import dev.critpath.core.testing.LabFixtures;
import dev.critpath.core.testing.NameDrift;
import dev.critpath.core.testing.Repo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

/**
 * schemas/tables/*.avsc are the one source of the warehouse's columns: the rows the engine hands
 * the Parquet writers must name the same columns in the same order, each with a Java value of the
 * column's Avro type (AvroRows would silently narrow a long into an int column), and the columns
 * the schemas mark "category" must be {@link Category}'s, in its order. Failures name the schema
 * file and the column.
 */
class TableColumnsTest {
    /** Two-point connections (keep-alive, a loss) and one seen by the client's capture only, whose clock columns are null. */
    private static List<ConnectionResult> results() throws Exception {
        List<ConnectionResult> out = new ArrayList<>(ParquetTablesTest.keepAliveAndBatch());
        var events = PcapEvents.readAll(Repo.testdata("lab/fast-retransmit/client.pcap"), "client-side", SensorRole.CLIENT);
        out.add(Screen.defaults().apply(Analyzer.defaults().analyze(LabFixtures.oneConnection(events))));
        return out;
    }

    @Test
    void theTablesAreTheSchemaFiles() throws Exception {
        List<String> files;
        try (Stream<Path> s = Files.list(Repo.root().resolve("schemas/tables"))) {
            files = s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".avsc")).map(n -> n.substring(0, n.length() - 5))
                    .sorted().toList();
        }
        assertEquals(List.of(), NameDrift.between("schemas/tables/", files, "WarehouseTable",
                Arrays.stream(WarehouseTable.values()).map(WarehouseTable::tableName).sorted().toList()));
    }

    @Test
    void everyRowHasItsSchemasColumnsInOrderWithTheirTypes() throws Exception {
        for (ConnectionResult r : results()) {
            for (WarehouseTable t : WarehouseTable.values()) {
                for (Map<String, Object> row : t.rows(r)) {
                    assertEquals(List.of(), drift(t.schema(), row), file(t));
                }
            }
        }
    }

    @Test
    void theCategoryColumnsAreTheCategoriesInOrder() {
        List<String> categories = Category.ALL.stream().map(c -> c.key() + "_us").toList();
        for (WarehouseTable t : List.of(WarehouseTable.PROFILES, WarehouseTable.EXCHANGES)) {
            List<String> marked = new ArrayList<>();
            for (Schema.Field f : t.schema().getFields()) {
                if (Boolean.TRUE.equals(f.getObjectProp("category"))) {
                    marked.add(f.name());
                    assertEquals(Schema.Type.LONG, f.schema().getType(), file(t) + ": category column " + f.name());
                }
            }
            assertEquals(List.of(), NameDrift.between("Category.java", categories, "the columns marked \"category\"", marked), file(t));
        }
    }

    /** What keeps a row from matching its schema: missing, extra or reordered columns, values of another type. */
    private static List<String> drift(Schema schema, Map<String, Object> row) {
        List<String> names = schema.getFields().stream().map(Schema.Field::name).toList();
        List<String> out = NameDrift.between("the schema", names, "the row", List.copyOf(row.keySet()));
        for (Schema.Field f : schema.getFields()) {
            if (row.containsKey(f.name())) {
                String wrong = typeMismatch(f.schema(), row.get(f.name()));
                if (wrong != null) {
                    out.add("column " + f.name() + " is " + f.schema() + " but the row gives " + wrong);
                }
            }
        }
        return out;
    }

    /** The value's class when it does not fit the Avro type exactly, else null. */
    private static String typeMismatch(Schema s, Object v) {
        if (s.getType() == Schema.Type.UNION) {
            return v == null ? null : typeMismatch(s.getTypes().get(1), v);
        }
        Class<?> want = switch (s.getType()) {
            case INT -> Integer.class;
            case LONG -> Long.class;
            case DOUBLE -> Double.class;
            case BOOLEAN -> Boolean.class;
            case STRING -> String.class;
            case ARRAY -> List.class;
            case MAP -> Map.class;
            default -> throw new IllegalArgumentException("no Java type for " + s);
        };
        if (!want.isInstance(v)) {
            return v == null ? "null" : v.getClass().getSimpleName();
        }
        if (v instanceof List<?> l) {
            return l.stream().map(x -> typeMismatch(s.getElementType(), x)).filter(x -> x != null).findFirst().orElse(null);
        }
        if (v instanceof Map<?, ?> m) {
            return m.values().stream().map(x -> typeMismatch(s.getValueType(), x)).filter(x -> x != null).findFirst().orElse(null);
        }
        return null;
    }

    private static String file(WarehouseTable t) {
        return "schemas/tables/" + t.tableName() + ".avsc";
    }
}
