package dev.critpath.core.analysis;

import java.util.Locale;

/** Which way a packet travels: client to server, or back. */
public enum Direction {
    C2S, S2C;

    /** Made once: keys are written per arc, packet and connection. */
    private final String key = name().toLowerCase(Locale.ROOT);

    public static Direction of(boolean c2s) {
        return c2s ? C2S : S2C;
    }

    /** The name in the warehouse's `direction` column. */
    public String key() {
        return key;
    }

    public Endpoint sender() {
        return this == C2S ? Endpoint.CLIENT : Endpoint.SERVER;
    }

    public Endpoint receiver() {
        return this == C2S ? Endpoint.SERVER : Endpoint.CLIENT;
    }
}
