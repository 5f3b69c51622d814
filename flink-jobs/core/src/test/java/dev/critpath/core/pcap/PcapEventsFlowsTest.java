package dev.critpath.core.pcap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.event.TcpFlags;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The reader's flow table holds the flows of the last moments, not every flow of the capture. */
class PcapEventsFlowsTest {
    private static final long T0 = 1_700_000_000_000_000L;
    private static final int SERVER = 10 << 24 | 1;

    private PcapEvents reader = new PcapEvents("sensor", SensorRole.SERVER, 0);
    private final RawPacket p = new RawPacket();

    private PacketEvent packet(long tsUs, int src, int srcPort, int dst, int dstPort, int flags) {
        p.tsUs = tsUs;
        p.ipVersion = 4;
        for (int i = 0; i < 4; i++) {
            p.src[i] = (byte) (src >>> 24 - 8 * i);
            p.dst[i] = (byte) (dst >>> 24 - 8 * i);
        }
        p.srcPort = srcPort;
        p.dstPort = dstPort;
        p.flags = flags;
        return reader.toEvent(p);
    }

    /** SYNs from as many addresses, 10 µs apart, from tsUs on. */
    private void synFlood(long tsUs, int syns) {
        for (int i = 0; i < syns; i++) {
            packet(tsUs + 10L * i, 11 << 24 | i, 40_000, SERVER, 80, TcpFlags.SYN);
        }
    }

    /** The client's packet from its port 40,000 to the server's 50,000. */
    private PacketEvent fromClient(long tsUs, int client, int flags) {
        return packet(tsUs, client, 40_000, SERVER, 50_000, flags);
    }

    /** SYN and SYN/ACK from tsUs on, from the client's port 40,000 to the server's 50,000, then the client's packet with these flags. */
    private void handshakeThen(long tsUs, int client, int flags) {
        fromClient(tsUs, client, TcpFlags.SYN);
        packet(tsUs + 100, SERVER, 50_000, client, 40_000, TcpFlags.SYN | TcpFlags.ACK);
        fromClient(tsUs + 200, client, flags);
    }

    @Test
    void aSynFloodIsNotKept() {
        synFlood(T0, 200_000);
        assertTrue(reader.flowsHeld() < 1024, reader.flowsHeld() + " flows held after 200,000 SYNs");
    }

    /** A server with SYN cookies answers every SYN: a flow of SYN and SYN/ACK alone is forgotten once quiet for a second. */
    @Test
    void aSynFloodAnsweredBySynCookiesIsNotKept() {
        for (int i = 0; i < 200_000; i++) {
            packet(T0 + 50L * i, 11 << 24 | i, 40_000, SERVER, 80, TcpFlags.SYN);
            packet(T0 + 50L * i + 5, SERVER, 80, 11 << 24 | i, 40_000, TcpFlags.SYN | TcpFlags.ACK);
        }
        // swept as the table grows: at most a few seconds' worth, not the 200,000
        assertTrue(reader.flowsHeld() < 100_000, reader.flowsHeld() + " flows held after 10 s of SYNs and SYN/ACKs, 20,000 a second");
    }

    /** The table fills between a SYN/ACK and its ACK: the ACK is still the client's, as the SYN said (the ports would say otherwise). */
    @Test
    void aHandshakeKeepsItsOrientationThoughTheTableFillsBeforeItsAck() {
        int client = 12 << 24 | 5;
        fromClient(T0, client, TcpFlags.SYN);
        packet(T0 + 100, SERVER, 50_000, client, 40_000, TcpFlags.SYN | TcpFlags.ACK);
        synFlood(T0 + 200, 2_000);
        assertTrue(fromClient(T0 + 30_000, client, TcpFlags.ACK).isOrig(), "the handshake's ACK");
    }

    @Test
    void anIpv6SynFloodIsNotKept() {
        p.ipVersion = 6;
        p.dst[0] = 0x20;
        p.dst[15] = 1;
        p.src[0] = 0x20;
        p.srcPort = 40_000;
        p.dstPort = 80;
        p.flags = TcpFlags.SYN;
        for (int i = 0; i < 20_000; i++) {
            p.tsUs = T0 + 10L * i;
            p.src[14] = (byte) (i >>> 8);
            p.src[15] = (byte) i;
            p.src[13] = (byte) (i >>> 16);
            reader.toEvent(p);
        }
        assertTrue(reader.flowsHeld() <= 2048, reader.flowsHeld() + " flows held after 20,000 SYNs");
    }

    /**
     * Ports that say the other way round (the SYN's sender has the lower of two high ports, which
     * looks like the service): the connection keeps the SYN's orientation while it is open and
     * quiet, through a flood that fills the table many times over.
     */
    @Test
    void anOpenConnectionKeepsItsOrientationThroughAFlood() {
        int client = 12 << 24 | 1;
        handshakeThen(T0, client, TcpFlags.ACK);
        synFlood(T0 + 1_000, 200_000);
        PacketEvent later = fromClient(T0 + 600_000_000, client, TcpFlags.ACK | TcpFlags.PSH);
        assertTrue(later.isOrig(), "ten minutes later the SYN's sender is still the originator: " + later);
        assertEquals(40_000, later.origP());
    }

    /**
     * A connection flood (handshakes completed and left open) beyond the flows the reader may keep:
     * those first seen last are forgotten, as the life cycle, full, refuses them (a packet of one
     * then is oriented by its ports, here the wrong way); the first keep the SYN's orientation; and
     * what is held stays bounded.
     */
    @Test
    void beyondTheFlowsItMayKeepThoseFirstSeenLastAreForgotten() {
        reader = new PcapEvents("sensor", SensorRole.SERVER, 0, Duration.ZERO, 1_000);
        int first = 12 << 24 | 3;
        handshakeThen(T0, first, TcpFlags.ACK);
        for (int i = 0; i < 20_000; i++) {
            handshakeThen(T0 + 1_000 + 300L * i, 13 << 24 | i, TcpFlags.ACK);
        }
        // after each look at most 1,000; the table grows to four times that before the next
        assertTrue(reader.flowsHeld() <= 4 * 1_000 + 1, reader.flowsHeld() + " flows held after 20,000 open connections");
        long later = T0 + 10_000_000;
        assertTrue(fromClient(later, first, TcpFlags.ACK | TcpFlags.PSH).isOrig(), "the first connection keeps its orientation");
        assertFalse(fromClient(later, 13 << 24 | 10_000, TcpFlags.ACK | TcpFlags.PSH).isOrig(), "one of the flood, forgotten, is oriented by its ports");
    }

    /** Closed, a connection is kept through the close delay and forgotten once quiet past it: a straggler then is oriented afresh. */
    @Test
    void aClosedConnectionIsForgottenOnceQuiet() {
        int client = 12 << 24 | 2;
        handshakeThen(T0, client, TcpFlags.RST);
        synFlood(T0 + 1_000, 2_000);
        long straggling = T0 + 1_000_000;
        assertTrue(fromClient(straggling, client, TcpFlags.RST).isOrig(), "within the close delay: as its SYN said");
        synFlood(straggling + PcapEvents.BRIEF_QUIET_US + 1_000, 2_000);
        PacketEvent late = fromClient(straggling + PcapEvents.BRIEF_QUIET_US + 100_000, client, TcpFlags.RST);
        assertFalse(late.isOrig(), "quiet past the close delay: forgotten, and oriented by the service port (the lower of two high ports): " + late);
        assertEquals(50_000, late.origP());
    }

    /** A port pair used again after a RST: the new connection is open, and kept while quiet as any open one. */
    @Test
    void aReusedPortPairIsNotTakenForClosed() {
        int client = 12 << 24 | 3;
        handshakeThen(T0, client, TcpFlags.RST);
        long again = T0 + 1_000_000;
        handshakeThen(again, client, TcpFlags.ACK);
        synFlood(again + PcapEvents.BRIEF_QUIET_US + 1_000, 2_000);
        PacketEvent later = fromClient(again + PcapEvents.BRIEF_QUIET_US + 100_000, client, TcpFlags.ACK | TcpFlags.PSH);
        assertTrue(later.isOrig(), "quiet past the close delay, the new connection keeps its SYN's orientation: " + later);
    }

    /** Given an idle timeout above the hour, an open connection quiet for longer than the hour is kept as long as the life cycle keeps it. */
    @Test
    void anOpenConnectionIsKeptForALongerIdleTimeout() {
        PcapEvents patient = new PcapEvents("sensor", SensorRole.SERVER, 0, Duration.ofHours(2), Integer.MAX_VALUE);
        PcapEvents usual = new PcapEvents("sensor", SensorRole.SERVER, 0);
        int client = 12 << 24 | 4;
        long quiet = PcapEvents.LONG_QUIET_US + 600_000_000L;
        for (PcapEvents r : List.of(patient, usual)) {
            reader = r;
            handshakeThen(T0, client, TcpFlags.ACK);
            synFlood(T0 + quiet, 2_000);
        }
        reader = patient;
        assertTrue(fromClient(T0 + quiet + 100_000, client, TcpFlags.ACK).isOrig(), "kept for the two-hour idle timeout");
        reader = usual;
        assertFalse(fromClient(T0 + quiet + 100_000, client, TcpFlags.ACK).isOrig(), "forgotten after the hour by default");
    }
}
