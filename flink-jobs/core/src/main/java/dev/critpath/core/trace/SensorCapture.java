package dev.critpath.core.trace;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.SensorRole;
import java.util.List;

/** The packets one sensor saw of one connection, in arrival order at the sensor. */
public record SensorCapture(String sensor, SensorRole roleHint, List<PacketEvent> packets) {
}
