package dev.critpath.core.trace;

import java.util.List;

/**
 * Everything the sensors saw of one TCP connection instance. The client is the originator
 * (the SYN's sender; for a connection caught mid-stream, the sensors' best guess).
 *
 * @param eventsOverCap packets the collector counted but did not keep (a per-connection state cap)
 */
public record ConnectionTrace(
        String communityId,
        String clientAddr,
        int clientPort,
        String serverAddr,
        int serverPort,
        List<SensorCapture> captures,
        long eventsOverCap) {

    public ConnectionTrace(String communityId, String clientAddr, int clientPort, String serverAddr, int serverPort, List<SensorCapture> captures) {
        this(communityId, clientAddr, clientPort, serverAddr, serverPort, captures, 0);
    }

    public ConnectionTrace withEventsOverCap(long n) {
        return new ConnectionTrace(communityId, clientAddr, clientPort, serverAddr, serverPort, captures, n);
    }

    public int packetCount() {
        int n = 0;
        for (SensorCapture c : captures) {
            n += c.packets().size();
        }
        return n;
    }
}
