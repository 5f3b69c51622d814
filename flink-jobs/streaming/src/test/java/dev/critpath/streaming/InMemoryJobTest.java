package dev.critpath.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.PacketEventJson;
import dev.critpath.warehouse.WarehouseTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.junit.jupiter.api.Test;

/**
 * The job between a bounded list of events and sinks that keep the rows in memory: no Kafka, no
 * files, the same operators. Its rows equal the core engine's analysis of the same events.
 */
class InMemoryJobTest {
    /** Rows by table, filled by the sinks of the one job this test runs (sinks are serialised to the MiniCluster, so static). */
    private static final Map<WarehouseTable, List<GenericRecord>> ROWS = new EnumMap<>(WarehouseTable.class);

    @Test
    void labFixturesFromABoundedSourceGiveTheCoreEnginesRows() throws Exception {
        List<PacketEvent> events = LabReplay.events(LabReplay.scenarios("keepalive-3", "fast-retransmit", "server-stall"));
        ArrayList<String> records = new ArrayList<>(events.stream().map(PacketEventJson::toJson).toList());
        DataGeneratorSource<Incoming> source = new DataGeneratorSource<>(i -> Incoming.of(PacketEventJson.standard().parse(records.get(i.intValue()))),
                records.size(), TypeInformation.of(Incoming.class));
        StreamConfig cfg = StreamConfig.defaults("unused:9092", "unused").withBounded(true).withParallelism(1)
                .withCheckpointing(Duration.ofSeconds(1), null);
        CritpathJob job = new CritpathJob(cfg, new CritpathJob.EventSource(source, "packet events (test)", "test-source"),
                new CritpathJob.TableSinks("memory", Collecting::new));
        job.run(job.localEnvironment());

        Map<WarehouseTable, Map<String, List<String>>> expected = LabReplay.expectedRows(events);
        LabReplay.assertTablesEqual(expected, LabReplay.rows(ROWS));
        assertEquals(List.of(), ROWS.getOrDefault(WarehouseTable.DEAD_LETTERS, List.of()), "no dead letters");
    }

    /** Keeps each row of its table in {@link #ROWS}. */
    private record Collecting(WarehouseTable table) implements Sink<Tuple2<String, GenericRecord>> {
        @Override
        @Deprecated
        public SinkWriter<Tuple2<String, GenericRecord>> createWriter(InitContext context) {
            return new SinkWriter<>() {
                @Override
                public void write(Tuple2<String, GenericRecord> row, Context context) {
                    synchronized (ROWS) {
                        ROWS.computeIfAbsent(table, t -> new ArrayList<>()).add(row.f1);
                    }
                }

                @Override
                public void flush(boolean endOfInput) {
                }

                @Override
                public void close() {
                }
            };
        }
    }
}
