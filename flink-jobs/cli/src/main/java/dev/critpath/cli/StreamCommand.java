package dev.critpath.cli;

import dev.critpath.streaming.CritpathJob;
import java.util.concurrent.Callable;
import org.apache.flink.streaming.api.environment.LocalStreamEnvironment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * `critpath stream`: the streaming job. Run directly it starts a local Flink MiniCluster; submitted
 * with `flink run critpath.jar stream ...` it runs on that cluster.
 */
@Command(name = "stream", mixinStandardHelpOptions = true, sortOptions = false,
        header = "Runs the streaming job: packet events from Kafka in, Parquet tables out.",
        description = {"Reads the sensors' packet events from Kafka, analyses every connection along its critical path "
            + "and writes the tables to the warehouse, exactly once. Run directly it starts a local Flink MiniCluster; "
            + "submitted with `flink run critpath.jar stream ...` it runs on that cluster."})
final class StreamCommand implements Callable<Integer> {
    @Mixin
    StreamOptions options;

    @Override
    public Integer call() throws Exception {
        CritpathJob job = new CritpathJob(options.config());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(job.flinkConfiguration());
        // not submitted to a cluster: this process starts its own, on loopback
        job.run(env instanceof LocalStreamEnvironment ? job.localEnvironment() : env);
        return 0;
    }
}
