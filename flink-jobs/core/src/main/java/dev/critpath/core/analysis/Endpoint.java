package dev.critpath.core.analysis;

import java.util.Locale;

/** One end of a connection. */
public enum Endpoint {
    CLIENT, SERVER;

    /** The name in the warehouse's `endpoint` column. */
    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The direction of the packets this end sends. */
    public Direction sends() {
        return this == CLIENT ? Direction.C2S : Direction.S2C;
    }
}
