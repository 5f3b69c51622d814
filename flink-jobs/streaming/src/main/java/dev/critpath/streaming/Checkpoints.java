package dev.critpath.streaming;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
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

    /**
     * Waits until a checkpoint completes after {@code after} (true), or gives up at the deadline or
     * when interrupted (false).
     */
    public static boolean awaitCheckpointAfter(String checkpointDir, FileTime after, Duration patience) throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        while (System.nanoTime() < deadline) {
            Optional<Path> newest = latest(checkpointDir);
            if (newest.isPresent() && modified(newest.get().resolve("_metadata")).compareTo(after) > 0) {
                return true;
            }
            Thread.sleep(500);
        }
        return false;
    }

    /**
     * Removes the part files a job was still writing when its process died. Their rows come again
     * from the checkpoint it resumed from, so no commit will ever take them; call only after the
     * resumed job completed a checkpoint (it has then committed every file the old one left
     * pending) and with the time it started, so that the files it writes now are spared. Returns
     * how many were removed; a warehouse that is not local is left alone.
     */
    public static int removeOrphanedParts(String warehouse, FileTime startedAt) {
        Optional<Path> root = localPath(warehouse);
        if (root.isEmpty() || !Files.isDirectory(root.get())) {
            return 0;
        }
        int[] removed = {0};
        try {
            Files.walkFileTree(root.get(), new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                    String name = dir.getFileName().toString();
                    // "_checkpoints", "_superset": not tables
                    return dir.equals(root.get()) || !name.startsWith("_") ? FileVisitResult.CONTINUE : FileVisitResult.SKIP_SUBTREE;
                }

                @Override
                public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) throws IOException {
                    String name = f.getFileName().toString();
                    // Flink's FileSink writes a part as ".part-....inprogress.UUID" beside the committed ones
                    if (name.startsWith(".part-") && name.contains(".inprogress.") && attrs.lastModifiedTime().compareTo(startedAt) < 0
                            && Files.deleteIfExists(f)) {
                        removed[0]++;
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path f, IOException e) {
                    return FileVisitResult.CONTINUE; // gone meanwhile
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return removed[0];
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
