package dev.critpath.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

/**
 * The local MiniCluster of `critpath stream` and `critpath demo` listens on loopback only: its REST
 * API can cancel jobs and shows record contents, and it has no authentication.
 */
class LocalClusterExposureTest extends JobTestBase {
    @Test
    void everySocketTheLocalClusterListensOnIsLoopback() throws Exception {
        Set<String> before = new HashSet<>(listening());
        kafka.createTopic("exposure", 1);
        CritpathJob job = CritpathJob.kafkaToParquet(StreamConfig.defaults(kafka.bootstrapServers(), tmp.resolve("wh-exposure").toString())
                .withTopic("exposure", "test-exposure").withCheckpointing(Duration.ofSeconds(1), null).withParallelism(1));
        StreamExecutionEnvironment env = job.localEnvironment();
        job.build(env);
        JobClient client = env.executeAsync("exposure");
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (client.getJobStatus().get() != JobStatus.RUNNING && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            assertEquals(JobStatus.RUNNING, client.getJobStatus().get());
            List<String> opened = listening().stream().filter(a -> !before.contains(a)).toList();
            assertFalse(opened.isEmpty(), "the cluster listens somewhere (REST at least)");
            for (String address : opened) {
                assertTrue(address.startsWith("127.") || address.startsWith("::1") || address.startsWith("::ffff:127."),
                        "listening beyond this machine: " + address + " (all: " + opened + ")");
            }
            assertTrue(opened.stream().anyMatch(LocalClusterExposureTest::servesRest), "the REST API answers on loopback: " + opened);
        } finally {
            client.cancel().get();
        }
    }

    private static boolean servesRest(String hostPort) {
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create("http://" + hostPort + "/config").toURL().openConnection();
            c.setConnectTimeout(2000);
            c.setReadTimeout(5000);
            return c.getResponseCode() == 200;
        } catch (IOException | IllegalArgumentException notHttp) {
            return false; // the blob server, an RPC endpoint, or an IPv6 literal
        }
    }

    /** host:port of every listening TCP socket this JVM holds (Linux /proc). */
    static List<String> listening() throws IOException {
        Set<String> inodes = new HashSet<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring(8, target.length() - 1));
                    }
                } catch (IOException closedMeanwhile) {
                    // a descriptor closed while listing
                }
            }
        }
        List<String> out = new java.util.ArrayList<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            List<String> lines = Files.readAllLines(Path.of(table));
            for (String line : lines.subList(1, lines.size())) {
                String[] f = line.trim().split("\\s+");
                if (f[3].equals("0A") && inodes.contains(f[9])) { // 0A: LISTEN
                    out.add(address(f[1]));
                }
            }
        }
        return out;
    }

    /** /proc/net's hex "ADDR:PORT" (address in host byte order, by 32-bit words) as text. */
    private static String address(String hex) {
        String[] ap = hex.split(":");
        int port = Integer.parseInt(ap[1], 16);
        byte[] b = new byte[ap[0].length() / 2];
        for (int w = 0; w < b.length / 4; w++) {
            for (int i = 0; i < 4; i++) {
                b[w * 4 + i] = (byte) Integer.parseInt(ap[0].substring(w * 8 + (3 - i) * 2, w * 8 + (3 - i) * 2 + 2), 16);
            }
        }
        try {
            String host = java.net.InetAddress.getByAddress(b).getHostAddress();
            if (b.length == 16 && host.startsWith("0:0:0:0:0:ffff:")) {
                host = "::ffff:" + java.net.InetAddress.getByAddress(java.util.Arrays.copyOfRange(b, 12, 16)).getHostAddress();
            } else if (host.equals("0:0:0:0:0:0:0:1")) {
                host = "::1";
            } else if (host.equals("0:0:0:0:0:0:0:0")) {
                host = "::";
            }
            return host + ":" + port;
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
