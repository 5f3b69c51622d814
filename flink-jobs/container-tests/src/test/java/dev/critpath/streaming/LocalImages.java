package dev.critpath.streaming;

import com.github.dockerjava.api.exception.NotFoundException;
import dev.critpath.core.testing.Repo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.testcontainers.DockerClientFactory;

/**
 * The images containers/build-images makes from the registries this machine reaches, named in
 * containers/local-images.env. Built first when missing from the container engine.
 */
final class LocalImages {
    private static Map<String, String> images;

    private LocalImages() {
    }

    static synchronized String get(String variable) throws IOException, InterruptedException {
        if (images == null || !present(images.values())) {
            Path env = Repo.root().resolve("containers/local-images.env");
            if (!Files.exists(env) || !present(read(env).values())) {
                build();
            }
            images = read(env);
        }
        String image = images.get(variable);
        if (image == null) {
            throw new IllegalStateException("containers/local-images.env names no " + variable);
        }
        return image;
    }

    private static Map<String, String> read(Path env) throws IOException {
        Map<String, String> out = new HashMap<>();
        for (String line : Files.readAllLines(env)) {
            int eq = line.indexOf('=');
            if (!line.startsWith("#") && eq > 0) {
                out.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return out;
    }

    private static boolean present(Iterable<String> names) {
        try {
            for (String name : names) {
                DockerClientFactory.instance().client().inspectImageCmd(name).exec();
            }
            return true;
        } catch (NotFoundException e) {
            return false;
        }
    }

    private static void build() throws IOException, InterruptedException {
        Process p = new ProcessBuilder(Repo.root().resolve("containers/build-images").toString()).inheritIO().start();
        if (!p.waitFor(30, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IllegalStateException("containers/build-images failed (exit " + (p.isAlive() ? "timeout" : p.exitValue()) + ")");
        }
    }
}
