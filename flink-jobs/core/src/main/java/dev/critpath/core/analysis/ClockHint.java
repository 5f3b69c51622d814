package dev.critpath.core.analysis;

/**
 * The clock offset between a client-side and a server-side sensor, known from earlier connections
 * they both saw (the streaming job keeps it per sensor pair). Used only when a connection cannot
 * estimate its own: packets seen by both sensors in one direction only (asymmetric routing at a
 * site, very short connections).
 *
 * @param offsetUs      server sensor clock minus client sensor clock
 * @param uncertaintyUs half-width of the interval of that estimate
 */
public record ClockHint(long offsetUs, long uncertaintyUs) {
}
