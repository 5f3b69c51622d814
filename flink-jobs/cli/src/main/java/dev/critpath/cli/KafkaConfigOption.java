package dev.critpath.cli;

import dev.critpath.kafka.KafkaClientProperties;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** `--kafka-config FILE`, for the commands that talk to a Kafka named by --bootstrap-servers. */
final class KafkaConfigOption {
    @Option(names = "--kafka-config", paramLabel = "FILE", description = "For a broker that authenticates or encrypts: a properties "
            + "file of Kafka client settings (security protocol, SASL mechanism, the JAAS login with user and password, TLS trust store; "
            + "an example in docs/security.md). The password goes in this file, readable by you only, never on the command line.")
    Path file;

    /** The file's settings, checked (IllegalArgumentException says what is wrong); none without the option. */
    KafkaClientProperties properties() {
        return file == null ? KafkaClientProperties.NONE : KafkaClientProperties.load(file);
    }
}
