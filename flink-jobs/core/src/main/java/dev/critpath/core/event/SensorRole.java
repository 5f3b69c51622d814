package dev.critpath.core.event;

/** Where a sensor sits relative to the connection's endpoints, as configured or inferred. */
public enum SensorRole {
    CLIENT, SERVER, UNKNOWN;

    /** The lower-case name used on the wire. */
    public String wireName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** Parses the wire name; returns null for anything else. */
    public static SensorRole fromWire(String s) {
        switch (s) {
            case "client": return CLIENT;
            case "server": return SERVER;
            case "unknown": return UNKNOWN;
            default: return null;
        }
    }
}
