package dev.critpath.streaming;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.lifecycle.FinishedConnection;
import dev.critpath.warehouse.WarehouseTable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.runtime.jobgraph.SavepointConfigOptions;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.CheckpointingMode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.OutputTag;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;

/**
 * The critpath streaming job: packet events from Kafka, one connection per flow key, analysis per
 * network path, Parquet out. Every step is the core engine's; this class only wires them, between
 * the source and sinks it is given ({@link #kafkaToParquet} for `critpath stream`).
 *
 * <pre>
 * Kafka --parse--> events --keyBy(flow)--> ConnectionAssemblyFunction --keyBy(path)--> PathAnalysisFunction
 *   |                                          |                                          |-> profiles, exchanges,
 *   +-> dead letters <-------------------------+------------------------------------------+   critical_path, packets, screening
 * </pre>
 */
public final class CritpathJob {
    /** Event time the watermark moves by between periodic ticks (see SensorWatermarks). */
    private static final long WATERMARK_STEP_MS = 100;
    private static final String LOOPBACK = "127.0.0.1";

    private final StreamConfig cfg;
    private final EventSource source;
    private final TableSinks sinks;

    /**
     * Where the packet events come from: records that are each an event or a dead letter, and the
     * source operator's name and uid (the uid names its state in checkpoints).
     */
    public record EventSource(Source<Incoming, ?, ?> source, String name, String uid) {
    }

    /**
     * Where each table's rows go, with the partition path beside each row; {@code kind} names the
     * sink operators ("parquet: profiles").
     */
    public record TableSinks(String kind, Function<WarehouseTable, Sink<Tuple2<String, GenericRecord>>> forTable) {
    }

    public CritpathJob(StreamConfig cfg, EventSource source, TableSinks sinks) {
        if (!cfg.problems().isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", cfg.problems()));
        }
        this.cfg = cfg;
        this.source = source;
        this.sinks = sinks;
    }

    /** The job `critpath stream` runs: the sensors' topics in Kafka to the Parquet warehouse. */
    public static CritpathJob kafkaToParquet(StreamConfig cfg) {
        return new CritpathJob(cfg, new EventSource(kafkaSource(cfg), "packet events (Kafka)", "kafka-source"),
                new TableSinks("parquet", table -> WarehouseSink.forTable(cfg.warehouse(), table.tableName(), table.schema())));
    }

    /** Flink settings the job needs (checkpoints, state backend, restarts), for the environment it runs in. */
    public Configuration flinkConfiguration() {
        Configuration c = new Configuration();
        c.set(StateBackendOptions.STATE_BACKEND, cfg.stateBackend());
        if (cfg.checkpointDir() != null) {
            c.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, cfg.checkpointDir());
        }
        // kept when the job is cancelled or its process dies, so that a restart can resume from them
        c.setString("execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION");
        c.setString("restart-strategy.type", "fixed-delay");
        c.setString("restart-strategy.fixed-delay.attempts", "10");
        c.setString("restart-strategy.fixed-delay.delay", "2 s");
        return c;
    }

    /**
     * A local MiniCluster for this job: the embedded default, tests and benchmarks. It listens on
     * loopback only: its REST API can cancel the job and shows records, with no authentication.
     */
    public StreamExecutionEnvironment localEnvironment() {
        return localEnvironment(Optional.empty());
    }

    /** The same, restoring the job's state and Kafka offsets from a checkpoint (or savepoint) first. */
    public StreamExecutionEnvironment localEnvironment(Optional<Path> restoreFrom) {
        Configuration c = flinkConfiguration();
        restoreFrom.ifPresent(p -> c.set(SavepointConfigOptions.SAVEPOINT_PATH, p.toUri().toString()));
        c.set(RestOptions.BIND_ADDRESS, LOOPBACK);
        c.set(RestOptions.ADDRESS, LOOPBACK);
        c.set(JobManagerOptions.BIND_HOST, LOOPBACK);
        c.set(JobManagerOptions.ADDRESS, LOOPBACK);
        c.set(TaskManagerOptions.BIND_HOST, LOOPBACK);
        c.set(TaskManagerOptions.HOST, LOOPBACK);
        return StreamExecutionEnvironment.createLocalEnvironment(cfg.parallelism(), c);
    }

    /** Builds the pipeline into the environment; the caller executes it. */
    public void build(StreamExecutionEnvironment env) {
        env.enableCheckpointing(cfg.checkpointInterval().toMillis(), CheckpointingMode.EXACTLY_ONCE);
        // no defensive copies between chained operators: every function here treats its input as read-only
        env.getConfig().enableObjectReuse();
        if (cfg.parallelism() > 0) {
            env.setParallelism(cfg.parallelism());
        }
        long outOfOrderness = cfg.outOfOrderness().toMillis();
        long maxAhead = cfg.maxSensorAhead().toMillis();
        long idleMs = cfg.idleness().toMillis();
        // idleness is the generator's own: Flink's withIdleness would stop asking it for time once idle
        WatermarkStrategy<Incoming> time = WatermarkStrategy.<Incoming>forGenerator(
                        ctx -> new SensorWatermarks(outOfOrderness, WATERMARK_STEP_MS, maxAhead, idleMs, ctx.getInputActivityClock()))
                .withTimestampAssigner((in, kafkaTs) -> in.event != null ? Math.floorDiv(in.event.tsUs(), 1000) : Long.MIN_VALUE)
                .withWatermarkAlignment("critpath-sensors", cfg.alignmentMaxDrift(), Duration.ofSeconds(1));

        SingleOutputStreamOperator<PacketEvent> events = env.fromSource(source.source(), time, source.name()).uid(source.uid())
                .process(new SplitDeadLetters(), EventSerializers.PACKET_EVENT).name("parse and validate").uid("split-dead-letters");

        SingleOutputStreamOperator<FinishedConnection> connections = events
                .keyBy(PacketEvent::communityId)
                .process(new ConnectionAssemblyFunction(cfg), EventSerializers.FINISHED_CONNECTION).name("assemble connections (keyed by flow)")
                .uid("assemble-connections");

        SingleOutputStreamOperator<Tuple2<String, GenericRecord>> profiles = connections
                .keyBy(FinishedConnection::pathKey)
                .process(new PathAnalysisFunction()).returns(WarehouseSink.rowType(WarehouseTable.PROFILES.schema()))
                .name("critical path analysis (keyed by path)").uid("path-analysis");

        sink(profiles, WarehouseTable.PROFILES);
        for (Map.Entry<WarehouseTable, OutputTag<Tuple2<String, GenericRecord>>> side : PathAnalysisFunction.SIDE_TABLES.entrySet()) {
            sink(profiles.getSideOutput(side.getValue()), side.getKey());
        }
        DataStream<DeadLetter> dead = events.getSideOutput(SplitDeadLetters.DEAD)
                .union(connections.getSideOutput(ConnectionAssemblyFunction.REJECTED), profiles.getSideOutput(PathAnalysisFunction.FAILED));
        sink(dead.map(new DeadLetterRows()).returns(WarehouseSink.rowType(WarehouseTable.DEAD_LETTERS.schema())).name("dead letter rows").uid("dead-letter-rows"),
                WarehouseTable.DEAD_LETTERS);
    }

    /** Builds and runs the job in the given environment until it ends (bounded) or is cancelled. */
    public JobExecutionResult run(StreamExecutionEnvironment env) throws Exception {
        build(env);
        return env.execute("critpath");
    }

    private static KafkaSource<Incoming> kafkaSource(StreamConfig cfg) {
        var b = KafkaSource.<Incoming>builder()
                .setProperties(cfg.kafkaClient().properties()) // first: the job's own settings below take precedence
                .setBootstrapServers(cfg.bootstrapServers())
                .setTopics(cfg.topics())
                .setGroupId(cfg.groupId())
                .setStartingOffsets(OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST))
                .setDeserializer(new PacketEventDeserializer(cfg.maxSensorAhead().toNanos() / 1000));
        if (cfg.bounded()) {
            b.setBounded(OffsetsInitializer.latest());
        }
        return b.build();
    }

    private void sink(DataStream<Tuple2<String, GenericRecord>> rows, WarehouseTable table) {
        rows.sinkTo(sinks.forTable().apply(table)).name(sinks.kind() + ": " + table.tableName()).uid("sink-" + table.tableName());
    }
}
