package dev.critpath.streaming;

import java.io.IOException;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.formats.avro.typeutils.GenericRecordAvroTypeInfo;
import org.apache.flink.formats.parquet.avro.AvroParquetWriters;
import org.apache.flink.streaming.api.functions.sink.filesystem.BucketAssigner;
import org.apache.flink.streaming.api.functions.sink.filesystem.OutputFileConfig;
import org.apache.flink.streaming.api.functions.sink.filesystem.bucketassigners.SimpleVersionedStringSerializer;

/**
 * One warehouse table as a Flink FileSink: Parquet files under TABLE/dt=.../hour=.../, the
 * partition chosen upstream from the connection's start (event time, as the offline writer does;
 * Flink's own DateTimeBucketAssigner would use processing time). Files are committed on
 * checkpoints, which gives exactly-once rows together with the Kafka offsets in the same checkpoint.
 */
final class WarehouseSink {
    private WarehouseSink() {
    }

    /** A row with its partition path ("dt=2026-11-22/hour=03"). */
    static TypeInformation<Tuple2<String, GenericRecord>> rowType(Schema schema) {
        return Types.TUPLE(Types.STRING, new GenericRecordAvroTypeInfo(schema));
    }

    static FileSink<Tuple2<String, GenericRecord>> forTable(String warehouse, String table, Schema schema) {
        BulkWriter.Factory<GenericRecord> parquet = AvroParquetWriters.forGenericRecord(schema);
        BulkWriter.Factory<Tuple2<String, GenericRecord>> rows = out -> new RecordOnly(parquet.create(out));
        return FileSink.forBulkFormat(new Path(warehouse, table), rows)
                .withBucketAssigner(new ByPartition())
                .withOutputFileConfig(OutputFileConfig.builder().withPartPrefix("part").withPartSuffix(".parquet").build())
                .build();
    }

    /** Writes the record, drops the partition (it is the directory). */
    private record RecordOnly(BulkWriter<GenericRecord> inner) implements BulkWriter<Tuple2<String, GenericRecord>> {
        @Override
        public void addElement(Tuple2<String, GenericRecord> row) throws IOException {
            inner.addElement(row.f1);
        }

        @Override
        public void flush() throws IOException {
            inner.flush();
        }

        @Override
        public void finish() throws IOException {
            inner.finish();
        }
    }

    private static final class ByPartition implements BucketAssigner<Tuple2<String, GenericRecord>, String> {
        @Override
        public String getBucketId(Tuple2<String, GenericRecord> row, Context context) {
            return row.f0;
        }

        @Override
        public SimpleVersionedSerializer<String> getSerializer() {
            return SimpleVersionedStringSerializer.INSTANCE;
        }
    }
}
