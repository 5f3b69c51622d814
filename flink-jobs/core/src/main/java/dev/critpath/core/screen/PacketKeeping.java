package dev.critpath.core.screen;

import dev.critpath.core.analysis.ConnectionAnalysis;
import dev.critpath.core.analysis.ConnectionPackets;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import java.util.zip.CRC32;

/**
 * Which connections keep their packets in the warehouse (the `packets` table, what a
 * time-sequence plot is drawn from days later): every connection that fails the screen, and a
 * sample of the boring ones, each up to a cap. Configured in the screen's properties:
 * <pre>
 * packets.max_per_connection = 20000   # sightings (a packet seen by both sensors is two)
 * packets.boring_sample_rate = 0.01    # share of boring connections kept, 0 to 1
 * </pre>
 * The sample is chosen by a hash of the connection's key, so a rerun or the streaming job keeps the same ones.
 */
public record PacketKeeping(int maxPerConnection, double boringSampleRate) {
    public static final PacketKeeping DEFAULTS = new PacketKeeping(20_000, 0.01);
    public static final PacketKeeping NONE = new PacketKeeping(0, 0);

    public PacketKeeping {
        if (maxPerConnection < 0) {
            throw new IllegalArgumentException("packets.max_per_connection must be 0 or more, not " + maxPerConnection);
        }
        if (!(boringSampleRate >= 0 && boringSampleRate <= 1)) {
            throw new IllegalArgumentException("packets.boring_sample_rate must be between 0 and 1, not " + boringSampleRate);
        }
    }

    static PacketKeeping fromProperties(Properties p) {
        return new PacketKeeping(
                Integer.parseInt(p.getProperty("packets.max_per_connection", String.valueOf(DEFAULTS.maxPerConnection)).trim()),
                Double.parseDouble(p.getProperty("packets.boring_sample_rate", String.valueOf(DEFAULTS.boringSampleRate)).trim()));
    }

    /** The packets this verdict keeps: made now and capped, or none. */
    ConnectionPackets keep(ConnectionAnalysis analysis, ScreenVerdict verdict) {
        if (maxPerConnection == 0 || verdict.boring() && !sampled(verdict.connUid())) {
            return ConnectionPackets.NONE;
        }
        return analysis.packets().first(maxPerConnection);
    }

    private boolean sampled(String connUid) {
        CRC32 crc = new CRC32();
        crc.update(connUid.getBytes(StandardCharsets.UTF_8));
        return crc.getValue() % 1_000_000 < Math.round(boringSampleRate * 1_000_000);
    }
}
