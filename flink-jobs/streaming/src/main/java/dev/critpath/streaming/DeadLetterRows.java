package dev.critpath.streaming;

import dev.critpath.warehouse.AvroRows;
import dev.critpath.warehouse.Partition;
import dev.critpath.warehouse.WarehouseTable;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.java.tuple.Tuple2;

/**
 * A dead letter as a row of the dead_letters table, partitioned by when the job set it aside: its
 * own time is whatever a broken producer or sensor stamped (year 294247 made a partition no query survived).
 */
final class DeadLetterRows implements MapFunction<DeadLetter, Tuple2<String, GenericRecord>> {
    @Override
    public Tuple2<String, GenericRecord> map(DeadLetter d) {
        return Tuple2.of(Partition.of(System.currentTimeMillis() * 1000).path(), AvroRows.toRecord(WarehouseTable.DEAD_LETTERS.schema(), d.columns()));
    }
}
