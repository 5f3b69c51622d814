package dev.critpath.core.analysis;

import java.util.Locale;

/** Which sensors saw a connection: both ends' sides, or one. */
public enum CaptureMode {
    TWO_POINT, CLIENT_SIDE, SERVER_SIDE;

    /** Made once: keys are written per arc, packet and connection. */
    private final String key = name().toLowerCase(Locale.ROOT);

    /** The name in the warehouse's `mode` column. */
    public String key() {
        return key;
    }

    /** The end no sensor watched, whose own events are estimates; null with two sensors. */
    public Endpoint unwatched() {
        return switch (this) {
            case CLIENT_SIDE -> Endpoint.SERVER;
            case SERVER_SIDE -> Endpoint.CLIENT;
            case TWO_POINT -> null;
        };
    }
}
