package dev.critpath.core.trace;

import dev.critpath.core.event.PacketEvent;
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

    /**
     * No payload and no handshake completed (SYN floods, scans, a client that gave up): nothing to analyse. Both
     * the stream and offline analysis set such flows aside instead of profiling them as boring.
     */
    public boolean isHalfOpen() {
        for (SensorCapture c : captures) {
            boolean answered = false;
            for (PacketEvent e : c.packets()) {
                if (e.engagesFlow(answered)) {
                    return false;
                }
                answered |= e.isSynAck();
            }
        }
        return true;
    }

    /** "client:port > server:port", as messages name a connection. */
    public String addresses() {
        return clientAddr + ":" + clientPort + " > " + serverAddr + ":" + serverPort;
    }

    public int packetCount() {
        int n = 0;
        for (SensorCapture c : captures) {
            n += c.packets().size();
        }
        return n;
    }
}
