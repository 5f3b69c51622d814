package dev.critpath.streaming;

import dev.critpath.core.analysis.Analyzer;
import dev.critpath.core.analysis.ConnectionResult;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.trace.ConnectionAssembler;
import dev.critpath.core.trace.ConnectionTrace;
import dev.critpath.warehouse.AvroRows;
import dev.critpath.warehouse.Partition;
import dev.critpath.warehouse.WarehouseTable;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Stage 2, keyed by network path: analyses each finished connection with the path's minimum
 * one-way delays so far (so propagation is the path's, and whatever a connection waited above it
 * is queuing), then keeps the path's minimums up to date with the connection's own. Emits the
 * warehouse rows: profiles on the main output, the other tables on side outputs.
 */
final class PathAnalysisFunction extends KeyedProcessFunction<String, FinishedConnection, Tuple2<String, GenericRecord>> {
    static final OutputTag<DeadLetter> FAILED = new OutputTag<>("analysis-failures", TypeInformation.of(DeadLetter.class));
    static final Map<WarehouseTable, OutputTag<Tuple2<String, GenericRecord>>> SIDE_TABLES = sideTables();

    private transient Analyzer analyzer;
    private transient ValueState<PathMinimums> minimums;
    private transient Counter analysed;
    private transient Counter failures;

    /** The smallest one-way delays any connection on the path showed, µs; -1 while unknown. */
    public static final class PathMinimums {
        public long owdC2sUs = -1;
        public long owdS2cUs = -1;

        void update(long c2s, long s2c) {
            owdC2sUs = smaller(owdC2sUs, c2s);
            owdS2cUs = smaller(owdS2cUs, s2c);
        }

        private static long smaller(long known, long seen) {
            if (seen < 0) {
                return known;
            }
            return known < 0 ? seen : Math.min(known, seen);
        }
    }

    @Override
    public void open(OpenContext ctx) {
        analyzer = Analyzer.defaults();
        minimums = getRuntimeContext().getState(new ValueStateDescriptor<>("path-minimums", TypeInformation.of(PathMinimums.class)));
        var metrics = getRuntimeContext().getMetricGroup().addGroup("critpath");
        analysed = metrics.counter("connections_analysed");
        failures = metrics.counter("analysis_failures");
    }

    @Override
    public void processElement(FinishedConnection c, Context ctx, Collector<Tuple2<String, GenericRecord>> out) throws Exception {
        ConnectionAssembler assembler = new ConnectionAssembler();
        for (PacketEvent e : c.events) {
            assembler.add(e);
        }
        PathMinimums path = minimums.value();
        if (path == null) {
            path = new PathMinimums();
        }
        for (ConnectionTrace trace : assembler.connections()) {
            ConnectionResult r;
            try {
                r = analyzer.analyze(trace.withEventsOverCap(c.eventsOverCap), path.owdC2sUs, path.owdS2cUs);
            } catch (RuntimeException ex) {
                // an odd trace must cost one dead letter, never the job
                failures.inc();
                ctx.output(FAILED, new DeadLetter(c.events[0].tsUs(), "analysis_failed", String.valueOf(ex),
                        c.events[0].sensor(), trace.communityId(), null));
                continue;
            }
            path.update(r.profile().timing.minOwdC2sUs(), r.profile().timing.minOwdS2cUs());
            analysed.inc();
            String partition = Partition.of(r.profile().startUs).path();
            for (WarehouseTable table : WarehouseTable.values()) {
                for (Map<String, Object> row : table.rows(r)) {
                    Tuple2<String, GenericRecord> t = Tuple2.of(partition, AvroRows.toRecord(table.schema(), row));
                    if (table == WarehouseTable.PROFILES) {
                        out.collect(t);
                    } else {
                        ctx.output(SIDE_TABLES.get(table), t);
                    }
                }
            }
        }
        minimums.update(path);
    }

    private static Map<WarehouseTable, OutputTag<Tuple2<String, GenericRecord>>> sideTables() {
        Map<WarehouseTable, OutputTag<Tuple2<String, GenericRecord>>> m = new EnumMap<>(WarehouseTable.class);
        for (WarehouseTable t : List.of(WarehouseTable.EXCHANGES, WarehouseTable.CRITICAL_PATH, WarehouseTable.SCREENING)) {
            m.put(t, new OutputTag<>(t.tableName(), WarehouseSink.rowType(t.schema())));
        }
        return m;
    }
}
