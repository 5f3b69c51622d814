package dev.critpath.streaming;

import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.lifecycle.FinishedConnection;
import dev.critpath.core.lifecycle.PathAnalysis;
import dev.critpath.core.lifecycle.PathState;
import dev.critpath.core.lifecycle.Rejection;
import dev.critpath.core.screen.ConnectionResult;
import dev.critpath.core.screen.Screen;
import dev.critpath.warehouse.Partition;
import dev.critpath.warehouse.WarehouseTable;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Stage 2, keyed by network path (which includes the sensor pair): the core's
 * {@link PathAnalysis} with the path's {@link PathState} in keyed state. Emits the warehouse rows:
 * profiles on the main output, the other tables on side outputs; a segment's rows land in the
 * partition of its own start, the profile in that of the connection's.
 */
final class PathAnalysisFunction extends KeyedProcessFunction<String, FinishedConnection, Tuple2<String, GenericRecord>> {
    static final OutputTag<DeadLetter> FAILED = new OutputTag<>("analysis-failures", TypeInformation.of(DeadLetter.class));
    static final Map<WarehouseTable, OutputTag<Tuple2<String, GenericRecord>>> SIDE_TABLES = sideTables();

    private transient PathAnalysis analysis;
    private transient ValueState<PathState> known;
    /** Long-lived connections between segments, by flow, in the core's compact form (its records are no Flink POJOs). */
    private transient MapState<String, byte[]> segmented;
    private transient Counter analysed;
    private transient Counter failures;

    @Override
    public void open(OpenContext ctx) {
        analysis = new PathAnalysis(Analyzer.defaults(), Screen.defaults());
        known = getRuntimeContext().getState(new ValueStateDescriptor<>("path", StateSerializers.PATH_STATE));
        MapStateDescriptor<String, byte[]> open = new MapStateDescriptor<>("segmented", Types.STRING, PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO);
        open.enableTimeToLive(StateTtlConfig.newBuilder(Duration.ofDays(7)).cleanupFullSnapshot().disableCleanupInBackground().build()); // behind the stage-1 timers
        segmented = getRuntimeContext().getMapState(open);
        var metrics = getRuntimeContext().getMetricGroup().addGroup("critpath");
        analysed = metrics.counter("connections_analysed");
        failures = metrics.counter("analysis_failures");
    }

    @Override
    public void processElement(FinishedConnection c, Context ctx, Collector<Tuple2<String, GenericRecord>> out) throws Exception {
        PathState stored = known.value();
        PathState path = stored != null ? stored : new PathState();
        PathAnalysis.Outcomes outcomes = new PathAnalysis.Outcomes() {
            @Override
            public void analysed(ConnectionResult r, PathAnalysis.Rows rows) {
                if (rows != PathAnalysis.Rows.SEGMENT) {
                    analysed.inc();
                }
                write(r, WarehouseTable.written(rows), ctx, out);
            }

            @Override
            public void failed(Rejection why) {
                failures.inc();
                ctx.output(FAILED, DeadLetter.of(why));
            }
        };
        if (c.whole()) {
            analysis.whole(c, path, outcomes);
        } else {
            byte[] next = analysis.segment(c, path, c.segment() == 0 ? null : segmented.get(c.flow()), outcomes);
            if (next != null) {
                segmented.put(c.flow(), next);
            } else {
                segmented.remove(c.flow());
            }
        }
        known.update(path);
    }

    private static void write(ConnectionResult r, List<WarehouseTable> tables, Context ctx, Collector<Tuple2<String, GenericRecord>> out) {
        String partition = Partition.of(r.profile().startUs).path();
        for (WarehouseTable table : tables) {
            for (GenericRecord row : table.records(r)) {
                Tuple2<String, GenericRecord> t = Tuple2.of(partition, row);
                if (table == WarehouseTable.PROFILES) {
                    out.collect(t);
                } else {
                    ctx.output(SIDE_TABLES.get(table), t);
                }
            }
        }
    }

    private static Map<WarehouseTable, OutputTag<Tuple2<String, GenericRecord>>> sideTables() {
        Map<WarehouseTable, OutputTag<Tuple2<String, GenericRecord>>> m = new EnumMap<>(WarehouseTable.class);
        for (WarehouseTable t : List.of(WarehouseTable.EXCHANGES, WarehouseTable.CRITICAL_PATH, WarehouseTable.PACKETS, WarehouseTable.SCREENING)) {
            m.put(t, new OutputTag<>(t.tableName(), WarehouseSink.rowType(t.schema())));
        }
        return m;
    }
}
