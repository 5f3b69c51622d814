package dev.critpath.warehouse;

import dev.critpath.core.analysis.Columns;
import dev.critpath.core.analysis.ConnectionAnalysis;
import dev.critpath.core.analysis.PacketSighting;
import dev.critpath.core.lifecycle.PathAnalysis;
import dev.critpath.core.screen.ConnectionResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;

/** The warehouse's tables, their schemas (schemas/tables/*.avsc) and the rows a connection gives each. */
public enum WarehouseTable {
    PROFILES("profiles", r -> List.of(r.profileColumns())),
    EXCHANGES("exchanges", r -> r.exchanges().stream().map(x -> x.columns()).toList()),
    CRITICAL_PATH("critical_path", ConnectionAnalysis.ARC_COLUMNS, ConnectionResult::arcValues),
    /** Only connections the screen kept packets for give rows (see PacketKeeping). */
    PACKETS("packets", PacketSighting.COLUMNS, ConnectionResult::packetValues),
    SCREENING("screening", r -> List.of(r.verdict().columns())),
    /** Filled by the streaming job with input it could not use; a connection gives it no rows. */
    DEAD_LETTERS("dead_letters", r -> List.of());

    private final String tableName;
    private final Function<ConnectionResult, List<Map<String, Object>>> rows;
    /** For the tables with a row per packet or arc: their columns, and rows as values in that order (written without a map each). */
    private final List<String> columns;
    private final Function<ConnectionResult, List<Object[]>> values;
    private Schema schema;

    WarehouseTable(String tableName, Function<ConnectionResult, List<Map<String, Object>>> rows) {
        this.tableName = tableName;
        this.rows = rows;
        this.columns = null;
        this.values = null;
    }

    /** A table written by position; its rows by name are the same values under their columns. */
    WarehouseTable(String tableName, List<String> columns, Function<ConnectionResult, List<Object[]>> values) {
        this.tableName = tableName;
        this.rows = r -> values.apply(r).stream().map(v -> Columns.named(columns, v)).toList();
        this.columns = columns;
        this.values = values;
    }

    /** The tables a result gives rows to: a segment of a long-lived connection has no profile yet. */
    public static List<WarehouseTable> written(PathAnalysis.Rows rows) {
        return switch (rows) {
            case ALL -> List.of(values());
            case SEGMENT -> List.of(EXCHANGES, CRITICAL_PATH, PACKETS);
            case FINISH -> List.of(PROFILES, EXCHANGES, SCREENING);
        };
    }

    /** Directory name under the warehouse root. */
    public String tableName() {
        return tableName;
    }

    /** The rows by column name. */
    public List<Map<String, Object>> rows(ConnectionResult r) {
        return rows.apply(r);
    }

    /** The rows as records of the schema. */
    public List<GenericRecord> records(ConnectionResult r) {
        Schema s = schema();
        if (values != null) {
            return values.apply(r).stream().map(row -> AvroRows.toRecord(s, row)).toList();
        }
        return rows(r).stream().map(row -> AvroRows.toRecord(s, row)).toList();
    }

    public synchronized Schema schema() {
        if (schema == null) {
            String resource = "critpath/schemas/tables/" + tableName + ".avsc";
            try (InputStream in = WarehouseTable.class.getClassLoader().getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("missing " + resource + " (critpath-schemas jar)");
                }
                Schema parsed = new Schema.Parser().parse(in);
                List<String> names = parsed.getFields().stream().map(Schema.Field::name).toList();
                if (columns != null && !columns.equals(names)) { // rows written by position
                    throw new IllegalStateException(resource + " has the columns " + names + ", the engine's rows " + columns);
                }
                schema = parsed;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return schema;
    }
}
