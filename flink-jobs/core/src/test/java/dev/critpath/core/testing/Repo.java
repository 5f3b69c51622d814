package dev.critpath.core.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Locates the repository checkout, its testdata/ and the ../shared/ folder beside it. */
public final class Repo {
    private Repo() {
    }

    public static Path root() {
        String configured = System.getProperty("critpath.repo");
        Path p = configured != null ? Path.of(configured) : Path.of("").toAbsolutePath();
        for (Path q = p.toAbsolutePath(); q != null; q = q.getParent()) {
            if (Files.isDirectory(q.resolve("schemas")) && Files.isDirectory(q.resolve("flink-jobs"))) {
                return q;
            }
        }
        throw new IllegalStateException("cannot find the critpath repository above " + p);
    }

    public static Path testdata(String relative) {
        return root().resolve("testdata").resolve(relative);
    }

    /** ../shared next to the checkout (public traces, papers); CI places it there too. */
    public static Path shared(String relative) {
        return root().getParent().resolve("shared").resolve(relative);
    }

    /** A schema resource from the critpath-schemas jar. */
    public static byte[] schemaResource(String relative) {
        String name = "critpath/schemas/" + relative;
        try (InputStream in = Repo.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing classpath resource " + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
