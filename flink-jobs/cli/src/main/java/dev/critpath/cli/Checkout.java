package dev.critpath.cli;

import java.nio.file.Files;
import java.nio.file.Path;

/** The critpath checkout the command runs from: the launcher exports CRITPATH_HOME; else the working directory upwards. */
final class Checkout {
    private Checkout() {
    }

    static Path root() {
        String home = System.getenv("CRITPATH_HOME");
        if (home != null) {
            return Path.of(home);
        }
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("testdata")) && Files.isDirectory(p.resolve("schemas"))) {
                return p;
            }
        }
        throw new IllegalStateException("cannot find the critpath checkout; run from it or set CRITPATH_HOME");
    }

    /** The trace lab's committed two-point runs: the demo's and the benchmarks' traffic. */
    static Path labRuns() {
        return root().resolve("testdata/lab");
    }

    /** The Kafka broker's jars the build copies, from which LocalKafka starts a broker. */
    static Path kafkaBrokerLib() {
        return root().resolve("flink-jobs/kafka-broker/target/lib");
    }
}
