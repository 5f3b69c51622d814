package dev.critpath.streaming;

import dev.critpath.core.analysis.AnalysisBudgetExceededException;
import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.analysis.CaptureMode;
import dev.critpath.core.analysis.ClockHint;
import dev.critpath.core.analysis.ConnectionProfile;
import dev.critpath.core.analysis.PathPrior;
import dev.critpath.core.analysis.recipe.SegmentedConnection;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.screen.ConnectionResult;
import dev.critpath.core.screen.Screen;
import dev.critpath.core.trace.ConnectionAssembler;
import dev.critpath.core.trace.ConnectionTrace;
import dev.critpath.warehouse.AvroRows;
import dev.critpath.warehouse.Partition;
import dev.critpath.warehouse.WarehouseTable;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
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
 * Stage 2, keyed by network path (which includes the sensor pair): analyses each finished
 * connection with what earlier connections taught about the path: its minimum one-way delays (so
 * propagation is the path's, and whatever a connection waited above it is queuing) and the
 * sensors' latest reliable clock offset (for connections that cannot estimate their own). Then
 * learns from the connection. Emits the warehouse rows: profiles on the main output, the other
 * tables on side outputs. Segments of a long-lived connection are analysed as they come, each from
 * where the one before ended; a segment's rows land in the partition of its own start, the
 * profile in that of the connection's.
 */
final class PathAnalysisFunction extends KeyedProcessFunction<String, FinishedConnection, Tuple2<String, GenericRecord>> {
    static final OutputTag<DeadLetter> FAILED = new OutputTag<>("analysis-failures", TypeInformation.of(DeadLetter.class));
    static final Map<WarehouseTable, OutputTag<Tuple2<String, GenericRecord>>> SIDE_TABLES = sideTables();

    private transient Analyzer analyzer;
    private transient Screen screen;
    /** A segment's rows; the whole connection's profile and verdict (and its last exchange) come with the last. */
    private static final WarehouseTable[] SEGMENT_TABLES = {WarehouseTable.EXCHANGES, WarehouseTable.CRITICAL_PATH};
    private static final WarehouseTable[] FINISH_TABLES = {WarehouseTable.PROFILES, WarehouseTable.EXCHANGES, WarehouseTable.SCREENING};

    private transient ValueState<PathState> known;
    /** Long-lived connections between segments, by flow, in the core's compact form (its records are no Flink POJOs). */
    private transient MapState<String, byte[]> segmented;
    private transient Counter analysed;
    private transient Counter failures;

    /** What the path's connections showed so far. */
    public static final class PathState {
        /** The smallest one-way delays any connection showed, µs; -1 while unknown. */
        public long owdC2sUs = -1;
        public long owdS2cUs = -1;
        /** The sensor pair's latest reliable clock offset and its uncertainty, µs. */
        public boolean offsetKnown;
        public long offsetUs;
        public long offsetUncertaintyUs;

        void learn(ConnectionProfile p) {
            owdC2sUs = smaller(owdC2sUs, p.timing.minOwdC2sUs());
            owdS2cUs = smaller(owdS2cUs, p.timing.minOwdS2cUs());
            if (p.mode == CaptureMode.TWO_POINT && p.timing.clockOffsetReliable()) { // the latest: clocks drift
                offsetKnown = true;
                offsetUs = p.timing.clockOffsetUs();
                offsetUncertaintyUs = p.timing.clockOffsetUncertaintyUs();
            }
        }

        PathPrior prior() {
            return new PathPrior(owdC2sUs, owdS2cUs, offsetKnown ? new ClockHint(offsetUs, offsetUncertaintyUs) : null);
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
        screen = Screen.defaults();
        known = getRuntimeContext().getState(new ValueStateDescriptor<>("path", TypeInformation.of(PathState.class)));
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
        if (c.whole()) {
            for (ConnectionTrace trace : traces(c)) {
                ConnectionResult r = analyse(c, trace, ctx, () -> screen.apply(analyzer.analyze(trace.withEventsOverCap(c.eventsOverCap), path.prior())));
                if (r != null) {
                    path.learn(r.profile());
                    analysed.inc();
                    write(r, WarehouseTable.values(), Partition.of(r.profile().startUs).path(), ctx, out);
                }
            }
        } else {
            segment(c, path, ctx, out);
        }
        known.update(path);
    }

    /** One segment of a long-lived connection: its path and finished exchanges now, the profile with the last. */
    private void segment(FinishedConnection c, PathState path, Context ctx, Collector<Tuple2<String, GenericRecord>> out) throws Exception {
        byte[] kept = c.segment == 0 ? null : segmented.get(c.flow);
        SegmentedConnection conn = kept == null ? new SegmentedConnection() : SegmentedConnection.fromBytes(kept);
        for (ConnectionTrace trace : traces(c)) {
            ConnectionResult r = analyse(c, trace, ctx, () -> screen.apply(conn.add(analyzer, trace.withEventsOverCap(c.eventsOverCap), path.prior())));
            if (r != null) {
                path.learn(r.profile());
                write(r, SEGMENT_TABLES, Partition.of(r.profile().startUs).path(), ctx, out);
            }
        }
        if (!c.last) {
            segmented.put(c.flow, conn.toBytes());
            return;
        }
        segmented.remove(c.flow);
        if (!conn.isEmpty()) {
            ConnectionResult whole = screen.apply(conn.finish());
            analysed.inc();
            write(whole, FINISH_TABLES, Partition.of(whole.profile().startUs).path(), ctx, out);
        }
    }

    private static List<ConnectionTrace> traces(FinishedConnection c) {
        ConnectionAssembler assembler = new ConnectionAssembler();
        for (PacketEvent e : c.events) {
            assembler.add(e);
        }
        return assembler.connections();
    }

    /** The analysis, or null and a dead letter: an odd trace must cost one dead letter, never the job. */
    private ConnectionResult analyse(FinishedConnection c, ConnectionTrace trace, Context ctx, Supplier<ConnectionResult> analysis) {
        String reason;
        Throwable failure;
        try {
            return analysis.get();
        } catch (AnalysisBudgetExceededException ex) {
            reason = "analysis_budget_exceeded";
            failure = ex;
        } catch (RuntimeException | StackOverflowError | OutOfMemoryError ex) {
            // the analysis's own allocations are garbage once it unwinds: the job can go on
            reason = "analysis_failed";
            failure = ex;
        }
        failures.inc();
        ctx.output(FAILED, new DeadLetter(c.events[0].tsUs(), reason, String.valueOf(failure), c.events[0].sensor(),
                trace.communityId(), null));
        return null;
    }

    private static void write(ConnectionResult r, WarehouseTable[] tables, String partition, Context ctx,
            Collector<Tuple2<String, GenericRecord>> out) {
        for (WarehouseTable table : tables) {
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

    private static Map<WarehouseTable, OutputTag<Tuple2<String, GenericRecord>>> sideTables() {
        Map<WarehouseTable, OutputTag<Tuple2<String, GenericRecord>>> m = new EnumMap<>(WarehouseTable.class);
        for (WarehouseTable t : List.of(WarehouseTable.EXCHANGES, WarehouseTable.CRITICAL_PATH, WarehouseTable.SCREENING)) {
            m.put(t, new OutputTag<>(t.tableName(), WarehouseSink.rowType(t.schema())));
        }
        return m;
    }
}
