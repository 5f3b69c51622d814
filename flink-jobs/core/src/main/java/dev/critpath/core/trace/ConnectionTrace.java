package dev.critpath.core.trace;

import java.util.List;

/**
 * Everything the sensors saw of one TCP connection instance. The client is the originator
 * (the SYN's sender; for a connection caught mid-stream, the sensors' best guess).
 */
public record ConnectionTrace(
        String communityId,
        String clientAddr,
        int clientPort,
        String serverAddr,
        int serverPort,
        List<SensorCapture> captures) {

    public int packetCount() {
        int n = 0;
        for (SensorCapture c : captures) {
            n += c.packets().size();
        }
        return n;
    }
}
