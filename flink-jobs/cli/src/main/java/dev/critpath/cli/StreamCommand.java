package dev.critpath.cli;

import dev.critpath.streaming.Checkpoints;
import dev.critpath.streaming.CritpathJob;
import dev.critpath.streaming.StreamConfig;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.streaming.api.environment.LocalStreamEnvironment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

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
    @Spec
    CommandSpec spec;

    @Mixin
    StreamOptions options;

    @Option(names = "--no-resume", description = "Start with empty state from the consumer group's committed offsets, not from the "
            + "latest checkpoint (connections open at that checkpoint are then lost or profiled from half their packets).")
    boolean noResume;

    @Override
    public Integer call() throws Exception {
        StreamConfig cfg = options.config();
        CritpathJob job = CritpathJob.kafkaToParquet(cfg);
        PrintWriter err = spec.commandLine().getErr();
        Thread sweep = orphanSweep(cfg, FileTime.from(Instant.now()), err);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(job.flinkConfiguration());
        if (!(env instanceof LocalStreamEnvironment)) {
            sweep.start();
            JobExecutionResult submitted = job.run(env); // submitted to a cluster: `flink run -s CHECKPOINT` resumes there
            if (submitted.isJobExecutionResult()) {
                sweep.interrupt(); // attached: the job has ended
            }
            sweep.join(); // detached: this process ends once the job has checkpointed and the sweep is done
            return 0;
        }
        // this process runs its own cluster: after a crash or a stop it goes on where the last checkpoint left off
        Optional<Path> resume = noResume ? Optional.empty() : Checkpoints.latest(cfg.checkpointDir());
        err.println(resume.map(p -> "critpath stream: resuming from checkpoint " + p + " (--no-resume starts afresh)")
                .orElse("critpath stream: starting with empty state from the consumer group's committed offsets"));
        err.flush();
        sweep.start();
        job.run(job.localEnvironment(resume));
        sweep.interrupt();
        return 0;
    }

    /**
     * Once this run has completed a checkpoint, removes the part files an earlier run was writing
     * when it died (see Checkpoints.removeOrphanedParts); they would lie in the warehouse for good.
     */
    private static Thread orphanSweep(StreamConfig cfg, FileTime startedAt, PrintWriter err) {
        Duration patience = cfg.checkpointInterval().multipliedBy(20).plusMinutes(2);
        Thread t = new Thread(() -> {
            try {
                if (Checkpoints.awaitCheckpointAfter(cfg.checkpointDir(), startedAt, patience)) {
                    int removed = Checkpoints.removeOrphanedParts(cfg.warehouse(), startedAt);
                    if (removed > 0) {
                        err.println("critpath stream: removed " + removed + " unfinished part files an earlier run left in the warehouse");
                        err.flush();
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "critpath-orphaned-parts");
        t.setDaemon(true);
        return t;
    }
}
