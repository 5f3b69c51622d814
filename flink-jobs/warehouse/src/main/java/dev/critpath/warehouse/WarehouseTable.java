package dev.critpath.warehouse;

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
    CRITICAL_PATH("critical_path", ConnectionResult::arcColumns),
    /** Only connections the screen kept packets for give rows (see PacketKeeping). */
    PACKETS("packets", ConnectionResult::packetColumns),
    SCREENING("screening", r -> List.of(r.verdict().columns())),
    /** Filled by the streaming job with input it could not use; a connection gives it no rows. */
    DEAD_LETTERS("dead_letters", r -> List.of());

    private final String tableName;
    private final Function<ConnectionResult, List<Map<String, Object>>> rows;
    private Schema schema;

    WarehouseTable(String tableName, Function<ConnectionResult, List<Map<String, Object>>> rows) {
        this.tableName = tableName;
        this.rows = rows;
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

    /** The rows as records of the schema: `packets`, a row per packet, from values in the schema's order, not a map each. */
    public List<GenericRecord> records(ConnectionResult r) {
        Schema s = schema();
        if (this == PACKETS) {
            return r.packetValues().stream().map(values -> AvroRows.toRecord(s, values)).toList();
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
                List<String> columns = parsed.getFields().stream().map(Schema.Field::name).toList();
                if (this == PACKETS && !columns.equals(PacketSighting.COLUMNS)) { // its rows are written by position
                    throw new IllegalStateException(resource + " has the columns " + columns + ", PacketSighting.COLUMNS " + PacketSighting.COLUMNS);
                }
                schema = parsed;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return schema;
    }
}
