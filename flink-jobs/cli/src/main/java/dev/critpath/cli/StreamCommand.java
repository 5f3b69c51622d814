package dev.critpath.cli;

import dev.critpath.streaming.CritpathJob;
import java.util.concurrent.Callable;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * `critpath stream`: the streaming job. Run directly it starts a local Flink MiniCluster; submitted
 * with `flink run critpath.jar stream ...` it runs on that cluster.
 */
@Command(name = "stream", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Runs the streaming job: packet events from Kafka, critical path of every connection,",
            "Parquet tables in the warehouse. Locally on a Flink MiniCluster, or on a cluster via `flink run`."})
final class StreamCommand implements Callable<Integer> {
    @Mixin
    StreamOptions options;

    @Override
    public Integer call() throws Exception {
        CritpathJob job = new CritpathJob(options.config());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(job.flinkConfiguration());
        job.run(env);
        return 0;
    }
}
