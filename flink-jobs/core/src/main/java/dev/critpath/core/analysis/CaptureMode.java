package dev.critpath.core.analysis;

import java.util.Locale;

/** Which sensors saw a connection: both ends' sides, or one. */
public enum CaptureMode {
    TWO_POINT, CLIENT_SIDE, SERVER_SIDE;

    /** The name in the warehouse's `mode` column. */
    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** True when this endpoint's own events are estimates: the one sensor sits at the other end. */
    public boolean remote(Endpoint e) {
        return this == (e == Endpoint.CLIENT ? SERVER_SIDE : CLIENT_SIDE);
    }
}
