package dev.critpath.kafka;

import java.io.IOException;
import java.io.Reader;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.security.auth.SecurityProtocol;

/**
 * Kafka client settings from a properties file (`--kafka-config`): security.protocol, sasl.*,
 * ssl.* for a broker that authenticates or encrypts. The secrets live in the file, never on a
 * command line. The settings travel inside the job to a Flink cluster, hence Serializable; the
 * text form names the keys only, so that no log or error message shows a password.
 */
public record KafkaClientProperties(Map<String, String> values) implements Serializable {
    /** Plain Kafka: no settings beyond the bootstrap servers. */
    public static final KafkaClientProperties NONE = new KafkaClientProperties(Map.of());

    /** What the commands set from their own options; the file saying otherwise would be ignored or contradict them. */
    private static final Map<String, String> SET_BY_OPTIONS = Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "--bootstrap-servers", ConsumerConfig.GROUP_ID_CONFIG, "--group-id");
    /** Mechanisms whose user and password can only come from sasl.jaas.config (or a JVM-wide JAAS file). */
    private static final Set<String> PASSWORD_MECHANISMS = Set.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512");
    private static final String CONFIG_PROVIDERS = "config.providers";

    public KafkaClientProperties {
        values = Map.copyOf(values);
    }

    /**
     * Reads and checks a client properties file. Throws IllegalArgumentException saying what is
     * wrong: unreadable, a misspelt key (which would silently leave the connection unauthenticated),
     * an unknown security.protocol, a password mechanism without credentials.
     */
    public static KafkaClientProperties load(Path file) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("cannot read the Kafka client settings " + file + ": no such file");
        } catch (AccessDeniedException e) {
            throw new IllegalArgumentException("cannot read the Kafka client settings " + file + ": permission denied");
        } catch (IOException | IllegalArgumentException e) { // Properties.load refuses a malformed \\uXXXX escape
            throw new IllegalArgumentException("cannot read the Kafka client settings " + file + ": " + e.getMessage());
        }
        Map<String, String> values = new HashMap<>();
        p.stringPropertyNames().forEach(k -> values.put(k, p.getProperty(k)));
        List<String> problems = problems(values);
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("the Kafka client settings " + file + ": " + String.join("; ", problems));
        }
        return new KafkaClientProperties(values);
    }

    private static List<String> problems(Map<String, String> values) {
        Set<String> known = new HashSet<>(ConsumerConfig.configNames());
        known.addAll(ProducerConfig.configNames());
        List<String> problems = new ArrayList<>();
        for (String key : new TreeSet<>(values.keySet())) {
            if (SET_BY_OPTIONS.containsKey(key)) {
                problems.add(key + " is given with " + SET_BY_OPTIONS.get(key) + ", not in this file");
            } else if (!known.contains(key) && !key.startsWith(CONFIG_PROVIDERS)) {
                problems.add("unknown Kafka client setting '" + key + "'");
            }
        }
        String protocol = values.getOrDefault(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, SecurityProtocol.PLAINTEXT.name).strip().toUpperCase(Locale.ROOT);
        if (!SecurityProtocol.names().contains(protocol)) {
            problems.add("security.protocol must be one of " + SecurityProtocol.names() + ", not " + protocol);
        }
        String mechanism = values.getOrDefault(SaslConfigs.SASL_MECHANISM, SaslConfigs.DEFAULT_SASL_MECHANISM).strip();
        if (protocol.startsWith("SASL_") && PASSWORD_MECHANISMS.contains(mechanism) && !values.containsKey(SaslConfigs.SASL_JAAS_CONFIG)
                && System.getProperty("java.security.auth.login.config") == null) {
            problems.add("sasl.mechanism " + mechanism + " needs the credentials: a sasl.jaas.config with username and password");
        }
        return problems;
    }

    /** The settings as Kafka clients take them (a fresh copy for the caller to add to). */
    public Properties properties() {
        Properties p = new Properties();
        p.putAll(values);
        return p;
    }

    /** The keys only: the values may be secrets. */
    @Override
    public String toString() {
        return "Kafka client settings " + new TreeSet<>(values.keySet());
    }
}
