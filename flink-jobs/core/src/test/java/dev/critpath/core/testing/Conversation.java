package dev.critpath.core.testing;

import dev.critpath.core.event.CommunityId;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.event.TcpFlags;

/**
 * Hand-built packets of one connection from 10.0.0.1:clientPort to 10.0.0.2:80 as one sensor saw
 * it, at fixed instants (ms of event time); each continues the sequence numbers of the ones before.
 */
public final class Conversation {
    private static final String CLIENT = "10.0.0.1";
    private static final String SERVER = "10.0.0.2";
    private static final int SERVER_PORT = 80;

    private final String sensor;
    private final int clientPort;
    private final long clientIsn;
    private final long shiftMs;
    private long clientNext;
    private long serverNext;

    /** @param shiftMs added to every instant: a sensor whose clock runs behind (negative) or ahead */
    public Conversation(String sensor, int clientPort, long clientIsn, long shiftMs) {
        this.sensor = sensor;
        this.clientPort = clientPort;
        this.clientIsn = clientIsn;
        this.shiftMs = shiftMs;
        this.clientNext = clientIsn + 1;
        this.serverNext = 5_001;
    }

    public Conversation() {
        this("client-site", 40_000, 1_000, 0);
    }

    public String flow() {
        return CommunityId.tcpV1(CLIENT, clientPort, SERVER, SERVER_PORT, 0);
    }

    public PacketEvent syn(long ms) {
        return packet(ms, true, TcpFlags.SYN, clientIsn, 0, 0);
    }

    public PacketEvent synAck(long ms) {
        return packet(ms, false, TcpFlags.SYN | TcpFlags.ACK, serverNext - 1, clientNext, 0);
    }

    /** The client acknowledges everything the server sent. */
    public PacketEvent ack(long ms) {
        return packet(ms, true, TcpFlags.ACK, clientNext, serverNext, 0);
    }

    public PacketEvent request(long ms) {
        PacketEvent e = packet(ms, true, TcpFlags.ACK | TcpFlags.PSH, clientNext, serverNext, 100);
        clientNext += 100;
        return e;
    }

    public PacketEvent response(long ms) {
        PacketEvent e = packet(ms, false, TcpFlags.ACK | TcpFlags.PSH, serverNext, clientNext, 1000);
        serverNext += 1000;
        return e;
    }

    public PacketEvent clientFin(long ms) {
        PacketEvent e = packet(ms, true, TcpFlags.FIN | TcpFlags.ACK, clientNext, serverNext, 0);
        clientNext++;
        return e;
    }

    public PacketEvent serverFin(long ms) {
        PacketEvent e = packet(ms, false, TcpFlags.FIN | TcpFlags.ACK, serverNext, clientNext, 0);
        serverNext++;
        return e;
    }

    public PacketEvent rst(long ms) {
        return packet(ms, true, TcpFlags.RST, clientNext, 0, 0);
    }

    private PacketEvent packet(long ms, boolean fromClient, int flags, long seq, long ack, int len) {
        return new PacketEvent(sensor, SensorRole.UNKNOWN, (ms + shiftMs) * 1000, flow(), CLIENT, clientPort, SERVER, SERVER_PORT,
                fromClient, flags, seq, ack, len, 64_240, 7, (flags & TcpFlags.SYN) != 0 ? 1460 : PacketEvent.ABSENT, Boolean.TRUE, null,
                PacketEvent.ABSENT, PacketEvent.ABSENT, PacketEvent.ABSENT, 64, PacketEvent.ABSENT);
    }
}
