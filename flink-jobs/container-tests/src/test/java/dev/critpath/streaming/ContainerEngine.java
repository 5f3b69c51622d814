package dev.critpath.streaming;

import dev.critpath.core.testing.Repo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.testcontainers.DockerClientFactory;

/**
 * Finds a container engine for Testcontainers: Docker where DOCKER_HOST or its socket says so,
 * else podman's Docker-compatible socket, which containers/podman-setup starts and links from
 * /var/run/docker.sock when podman is installed. Tests are disabled, with the reason, only when there is neither.
 */
final class ContainerEngine implements ExecutionCondition {
    private static ConditionEvaluationResult found;

    @Override
    public synchronized ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (found == null) {
            found = find();
            System.err.println("container engine: " + found.getReason().orElse(""));
        }
        return found;
    }

    private static ConditionEvaluationResult find() {
        boolean dockerGiven = System.getenv("DOCKER_HOST") != null || Files.exists(Path.of("/var/run/docker.sock"));
        if (!dockerGiven) {
            if (!podmanInstalled()) {
                return ConditionEvaluationResult.disabled("none: no DOCKER_HOST, no /var/run/docker.sock and no podman");
            }
            try {
                startPodman();
            } catch (IOException | InterruptedException | IllegalStateException e) {
                return ConditionEvaluationResult.disabled("none: podman is installed but its API socket could not be started: " + e.getMessage());
            }
        }
        if (!DockerClientFactory.instance().isDockerAvailable()) {
            return ConditionEvaluationResult.disabled("none answers at " + Objects.requireNonNullElse(System.getenv("DOCKER_HOST"), "/var/run/docker.sock"));
        }
        return ConditionEvaluationResult.enabled("server " + DockerClientFactory.instance().getInfo().getServerVersion() + " at "
                + DockerClientFactory.instance().getTransportConfig().getDockerHost());
    }

    /** containers/podman-setup: podman's API socket, linked from /var/run/docker.sock. */
    private static void startPodman() throws IOException, InterruptedException {
        Process p = new ProcessBuilder(Repo.root().resolve("containers/podman-setup").toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0 || !out.startsWith("export DOCKER_HOST=")) {
            throw new IllegalStateException("containers/podman-setup failed: " + out);
        }
    }

    private static boolean podmanInstalled() {
        try {
            return new ProcessBuilder("podman", "--version").redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start().waitFor() == 0;
        } catch (IOException e) {
            return false; // not on the PATH
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
