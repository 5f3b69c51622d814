package dev.critpath.core.analysis;

/**
 * What earlier connections taught about a network path (the streaming job keeps it per client
 * network and server): each direction's minimum one-way delay, which bounds propagation when this
 * connection's own is larger, and the sensor pair's clock offset, used when this connection cannot
 * estimate its own.
 *
 * @param owdC2sUs minimum client-to-server delay, µs, or -1 when unknown
 * @param owdS2cUs likewise server to client
 * @param clock    the sensor pair's clock offset, or null
 */
public record PathPrior(long owdC2sUs, long owdS2cUs, ClockHint clock) {
    /** Nothing known: the connection stands on its own. */
    public static final PathPrior NONE = new PathPrior(-1, -1, null);
}
