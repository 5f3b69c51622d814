package dev.critpath.core.analysis;

import java.util.Locale;

/** One end of a connection. */
public enum Endpoint {
    CLIENT, SERVER;

    /** Made once: keys are written per arc, packet and connection. */
    private final String key = name().toLowerCase(Locale.ROOT);

    /** The name in the warehouse's `endpoint` column. */
    public String key() {
        return key;
    }

    /** The direction of the packets this end sends. */
    public Direction sends() {
        return this == CLIENT ? Direction.C2S : Direction.S2C;
    }
}
