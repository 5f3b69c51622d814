package dev.critpath.core.lifecycle;

import java.time.Duration;

/**
 * What a connection's life cycle waits for and holds at most.
 *
 * @param closeGrace             quiet time after FIN/RST before a connection is finalised
 * @param idleTimeout            quiet time after which an open connection is finalised as it
 *                               stands; also how long a half-open flow waits for an answer
 * @param allowedLateness        events this much older than the watermark, for a flow no longer
 *                               held, are late; also how long a tombstone stays
 * @param maxEventsPerConnection events kept per flow; beyond it they are counted, not kept
 * @param segmentAfter           a connection open this long (or holding half the cap) is cut into
 *                               segments where it goes quiet
 * @param segmentQuiet           the quiet period that makes a cut point
 * @param maxFlows               connections one instance holds at most; beyond, new ones are refused
 * @param maxBufferedEvents      events one instance holds at most; beyond, new connections are
 *                               refused and held ones count further events over the cap
 * @param maxHalfOpenFlows       half-open flows one instance holds; beyond, the quietest is set aside
 */
public record LifecycleConfig(
        Duration closeGrace,
        Duration idleTimeout,
        Duration allowedLateness,
        int maxEventsPerConnection,
        Duration segmentAfter,
        Duration segmentQuiet,
        int maxFlows,
        long maxBufferedEvents,
        int maxHalfOpenFlows) {
}
