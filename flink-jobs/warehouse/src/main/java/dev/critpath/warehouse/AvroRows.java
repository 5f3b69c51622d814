package dev.critpath.warehouse;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;

/**
 * Turns the engine's rows (column maps, or values in the schema's order) into Avro records of a table schema. Strict on purpose: a column
 * the schema lacks, or a schema field the row lacks, is a bug that must not reach the warehouse.
 */
public final class AvroRows {
    private AvroRows() {
    }

    public static GenericRecord toRecord(Schema schema, Map<String, Object> row) {
        if (row.size() != schema.getFields().size()) {
            for (String k : row.keySet()) {
                if (schema.getField(k) == null) {
                    throw new IllegalArgumentException(schema.getName() + " has no column " + k);
                }
            }
        }
        GenericRecord r = new GenericData.Record(schema);
        for (Schema.Field f : schema.getFields()) {
            Object v = row.get(f.name()); // one lookup a column: null is rarely a value
            if (v == null && !row.containsKey(f.name())) {
                throw new IllegalArgumentException(schema.getName() + " row lacks column " + f.name());
            }
            r.put(f.pos(), convert(f.schema(), v, f.name()));
        }
        return r;
    }

    /** A row given as values in the schema's order of columns (whose names its caller checked once). */
    public static GenericRecord toRecord(Schema schema, Object[] values) {
        List<Schema.Field> fields = schema.getFields();
        if (values.length != fields.size()) {
            throw new IllegalArgumentException(schema.getName() + " has " + fields.size() + " columns, the row " + values.length + " values");
        }
        GenericRecord r = new GenericData.Record(schema);
        for (int i = 0; i < values.length; i++) {
            Schema.Field f = fields.get(i);
            r.put(i, convert(f.schema(), values[i], f.name()));
        }
        return r;
    }

    private static Object convert(Schema s, Object v, String name) {
        if (s.getType() == Schema.Type.UNION) {
            if (v == null) {
                return null;
            }
            return convert(s.getTypes().get(1), v, name);
        }
        if (v == null) {
            throw new IllegalArgumentException("column " + name + " is not nullable");
        }
        return switch (s.getType()) {
            case LONG -> ((Number) v).longValue();
            case INT -> ((Number) v).intValue();
            case DOUBLE -> ((Number) v).doubleValue();
            case BOOLEAN, STRING -> v instanceof CharSequence c ? c.toString() : v;
            case ARRAY -> {
                if (((List<?>) v).isEmpty()) {
                    yield List.of();
                }
                List<Object> out = new ArrayList<>();
                for (Object x : (List<?>) v) {
                    out.add(convert(s.getElementType(), x, name));
                }
                yield out;
            }
            case MAP -> {
                Map<String, Object> out = new LinkedHashMap<>();
                for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                    out.put(e.getKey().toString(), convert(s.getValueType(), e.getValue(), name));
                }
                yield out;
            }
            default -> throw new IllegalArgumentException("unsupported type " + s + " for " + name);
        };
    }
}
