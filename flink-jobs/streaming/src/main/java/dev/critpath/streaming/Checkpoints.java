package dev.critpath.streaming;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Finds the checkpoint a restarted job resumes from. Flink keeps them as
 * DIR/JOB-ID/chk-N/_metadata; a checkpoint is complete once its _metadata is written, and job ids
 * are random, so the newest is the one whose _metadata was written last.
 */
public final class Checkpoints {
    private Checkpoints() {
    }

    /** The newest complete checkpoint under a local checkpoint directory (a path or a file: URI); empty if none or not local. */
    public static Optional<Path> latest(String checkpointDir) {
        Optional<Path> dir = localPath(checkpointDir);
        if (dir.isEmpty() || !Files.isDirectory(dir.get())) {
            return Optional.empty();
        }
        try (Stream<Path> jobs = Files.list(dir.get())) {
            return jobs.filter(Files::isDirectory).flatMap(Checkpoints::checkpointsOf)
                    .filter(chk -> Files.isRegularFile(chk.resolve("_metadata")))
                    .max(Comparator.comparing(chk -> modified(chk.resolve("_metadata"))));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Stream<Path> checkpointsOf(Path job) {
        try (Stream<Path> s = Files.list(job)) {
            return s.filter(p -> p.getFileName().toString().startsWith("chk-")).toList().stream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static FileTime modified(Path p) {
        try {
            return Files.getLastModifiedTime(p);
        } catch (IOException e) {
            return FileTime.fromMillis(0); // removed meanwhile: never the newest
        }
    }

    static Optional<Path> localPath(String dir) {
        if (dir == null) {
            return Optional.empty();
        }
        if (!dir.contains("://") && !dir.startsWith("file:")) {
            return Optional.of(Path.of(dir));
        }
        URI uri = URI.create(dir);
        return "file".equals(uri.getScheme()) ? Optional.of(Path.of(uri)) : Optional.empty();
    }
}
