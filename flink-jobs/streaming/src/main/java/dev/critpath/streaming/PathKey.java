package dev.critpath.streaming;

import dev.critpath.core.event.IpText;
import dev.critpath.core.trace.ConnectionTrace;
import dev.critpath.core.trace.SensorCapture;
import java.util.TreeSet;

/**
 * A network path as the per-path stage keys it: the client's network (a prefix), the server's
 * address and port, and the sensors measuring it (one-way delays are between sensors).
 */
final class PathKey {
    private PathKey() {
    }

    static String of(ConnectionTrace t, int prefixV4, int prefixV6) {
        byte[] client = IpText.parse(t.clientAddr());
        int bits = client.length == 4 ? prefixV4 : prefixV6;
        TreeSet<String> sensors = new TreeSet<>();
        for (SensorCapture c : t.captures()) {
            sensors.add(c.sensor());
        }
        return IpText.format(mask(client, bits)) + "/" + bits + " > " + t.serverAddr() + ":" + t.serverPort() + " @ " + String.join("+", sensors);
    }

    static byte[] mask(byte[] addr, int bits) {
        byte[] out = addr.clone();
        for (int i = 0; i < out.length; i++) {
            int keep = Math.max(0, Math.min(8, bits - 8 * i));
            out[i] &= (byte) (0xff << (8 - keep));
        }
        return out;
    }
}
