package dev.critpath.core.analysis;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One packet as one sensor captured it, with what the analysis made of it: a row of the
 * warehouse's `packets` table, and a mark on the time-sequence plot.
 *
 * @param txIndex       the transmission's number on the connection's timeline; both sensors' sightings of it share it
 * @param sent          the sensor is on the sender's side (it saw the packet leave), else on the receiver's
 * @param timeUs        µs on the client's timeline (the server sensor's clock corrected by the estimated offset)
 * @param sensorTimeUs  µs on the capturing sensor's own clock
 * @param windowEdge    ack plus the scaled advertised window, null when unknown or meaningless (no ACK flag, a reset)
 * @param sack          SACK blocks as {start, end} pairs in the acknowledged direction's relative space
 * @param kind          what the analysis made of it, see {@link PacketKind}
 * @param lossCause     for a re-send, how the sender recognised the loss; else null
 * @param rtxOf         for a re-send, the transmission it repeats; else -1
 */
public record PacketSighting(int txIndex, String sensor, Direction direction, boolean sent, long timeUs, long sensorTimeUs,
                             long seq, long ack, int len, String flags, int window, Long windowEdge, long[] sack, PacketKind kind,
                             LossCause lossCause, int rtxOf, boolean onCriticalPath) {

    /** The warehouse's `packets` table's columns, in its schema's order. */
    public static final List<String> COLUMNS = List.of("conn_uid", "segment_start_us", "tx_index", "sensor", "direction", "seen_at",
            "time_us", "sensor_time_us", "seq", "len", "ack", "flags", "window", "window_edge", "sack_starts", "sack_ends", "kind",
            "loss_cause", "rtx_of", "on_critical_path");

    /** Row of the warehouse's `packets` table, in the order of {@link #COLUMNS}: a row per packet, written without a map each. */
    public Object[] values(String connUid, long segmentStartUs) {
        List<Long> starts = sack == null ? List.of() : new ArrayList<>();
        List<Long> ends = sack == null ? List.of() : new ArrayList<>();
        for (int i = 0; sack != null && i + 1 < sack.length; i += 2) {
            starts.add(sack[i]);
            ends.add(sack[i + 1]);
        }
        return new Object[] {connUid, segmentStartUs, txIndex, sensor, direction.key(), sent ? "sender" : "receiver", timeUs, sensorTimeUs,
            seq, len, ack, flags, window, windowEdge, starts, ends, kind.key(),
            lossCause == null ? null : lossCause.name().toLowerCase(Locale.ROOT), rtxOf < 0 ? null : rtxOf, onCriticalPath};
    }
}
