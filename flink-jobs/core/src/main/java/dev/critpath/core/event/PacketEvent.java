package dev.critpath.core.event;

import java.util.Arrays;
import java.util.Objects;

/**
 * One TCP packet seen by one sensor: the record of schemas/packet-event.schema.json.
 * Optional numeric fields hold {@link #ABSENT} when the packet does not carry them.
 *
 * @param sack SACK blocks flattened [left1, right1, ...] (absolute), or null
 * @param captureIndex the sensor's running count of captured packets, or {@link #ABSENT}: orders
 *                     packets of one microsecond as captured, since transport (keyless Kafka
 *                     partitions) does not keep their order
 */
public record PacketEvent(
        String sensor,
        SensorRole sensorRole,
        long tsUs,
        String communityId,
        String origH,
        int origP,
        String respH,
        int respP,
        boolean isOrig,
        int flags,
        long seq,
        long ack,
        int len,
        int win,
        int wscale,
        int mss,
        Boolean sackOk,
        long[] sack,
        long tsval,
        long tsecr,
        int ipId,
        int ttl,
        long captureIndex) {

    /** Marks an optional numeric field the packet does not carry. */
    public static final int ABSENT = -1;

    /** A sensor's packets in the order it captured them: by timestamp, ties by capture index where known. */
    public static final java.util.Comparator<PacketEvent> CAPTURE_ORDER =
            java.util.Comparator.comparingLong(PacketEvent::tsUs).thenComparingLong(PacketEvent::captureIndex);

    public boolean hasFlag(int bit) {
        return (flags & bit) != 0;
    }

    /**
     * Payload, or the responder's packet beyond its SYN/ACK (an ACK, a RST): with neither, and no
     * {@link #completesHandshake handshake completed}, a flow (a SYN flood, answered by SYN cookies
     * or not; a scan, an ACK flood; a client that gave up; a capture's lone SYN/ACK) is only half-open.
     */
    public boolean engagesFlow() {
        return len > 0 || !isOrig && (flags & TcpFlags.SYN) == 0;
    }

    /** Whether this engages its flow, given whether the flow holds the responder's SYN/ACK (then the originator's bare ACK does too). */
    public boolean engagesFlow(boolean answered) {
        return engagesFlow() || answered && completesHandshake();
    }

    /** The originator's bare ACK: it engages a flow that holds the responder's SYN/ACK (the handshake completed). */
    public boolean completesHandshake() {
        return isOrig && (flags & (TcpFlags.SYN | TcpFlags.RST | TcpFlags.ACK)) == TcpFlags.ACK;
    }

    public boolean isSynAck() {
        return !isOrig && (flags & (TcpFlags.SYN | TcpFlags.ACK)) == (TcpFlags.SYN | TcpFlags.ACK);
    }

    /** A copy with another sensor name and role, for replaying one capture as a named sensor. */
    public PacketEvent withSensor(String newSensor, SensorRole newRole) {
        return new PacketEvent(newSensor, newRole, tsUs, communityId, origH, origP, respH, respP, isOrig, flags,
                seq, ack, len, win, wscale, mss, sackOk, sack, tsval, tsecr, ipId, ttl, captureIndex);
    }

    /**
     * A copy from another client address, e.g. to give a replayed connection a network of its own.
     *
     * @param newCommunityId the new tuple's Community ID (see {@link #communityIdWithClient}), computed once per flow by the caller
     */
    public PacketEvent withClient(String client, String newCommunityId) {
        return new PacketEvent(sensor, sensorRole, tsUs, newCommunityId, client, origP, respH, respP,
                isOrig, flags, seq, ack, len, win, wscale, mss, sackOk, sack, tsval, tsecr, ipId, ttl, captureIndex);
    }

    /** The Community ID (seed 0) of this event's flow with another client address. */
    public String communityIdWithClient(String client) {
        return CommunityId.tcpV1(client, origP, respH, respP, 0);
    }

    /** A copy shifted in time, e.g. to imitate a sensor clock offset. */
    public PacketEvent withTsUs(long newTsUs) {
        return new PacketEvent(sensor, sensorRole, newTsUs, communityId, origH, origP, respH, respP, isOrig, flags,
                seq, ack, len, win, wscale, mss, sackOk, sack, tsval, tsecr, ipId, ttl, captureIndex);
    }

    /** A copy at other sequence and acknowledgement numbers, e.g. a handshake restarted later in the sequence space. */
    public PacketEvent withSeqAck(long newSeq, long newAck) {
        return new PacketEvent(sensor, sensorRole, tsUs, communityId, origH, origP, respH, respP, isOrig, flags,
                newSeq, newAck, len, win, wscale, mss, sackOk, sack, tsval, tsecr, ipId, ttl, captureIndex);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof PacketEvent e)) {
            return false;
        }
        return tsUs == e.tsUs && origP == e.origP && respP == e.respP && isOrig == e.isOrig && flags == e.flags
                && seq == e.seq && ack == e.ack && len == e.len && win == e.win && wscale == e.wscale
                && mss == e.mss && tsval == e.tsval && tsecr == e.tsecr && ipId == e.ipId && ttl == e.ttl && captureIndex == e.captureIndex
                && Objects.equals(sensor, e.sensor) && sensorRole == e.sensorRole
                && Objects.equals(communityId, e.communityId) && Objects.equals(origH, e.origH)
                && Objects.equals(respH, e.respH) && Objects.equals(sackOk, e.sackOk) && Arrays.equals(sack, e.sack);
    }

    @Override
    public int hashCode() {
        return Objects.hash(sensor, tsUs, communityId, isOrig, seq, ack, len, flags, ipId, tsval);
    }

    @Override
    public String toString() {
        return sensor + " " + tsUs + " " + (isOrig ? origH + ":" + origP + " > " + respH + ":" + respP
                : respH + ":" + respP + " > " + origH + ":" + origP)
                + " [" + TcpFlags.letters(flags) + "] seq " + seq + " ack " + ack + " len " + len + " win " + win;
    }
}
