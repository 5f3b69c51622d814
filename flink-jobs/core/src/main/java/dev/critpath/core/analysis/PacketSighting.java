package dev.critpath.core.analysis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

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

    /** Row of the warehouse's `packets` table. */
    public Map<String, Object> columns(String connUid, long segmentStartUs) {
        Map<String, Object> m = new LinkedHashMap<>(32); // a row per packet: never resized
        m.put("conn_uid", connUid);
        m.put("segment_start_us", segmentStartUs);
        m.put("tx_index", txIndex);
        m.put("sensor", sensor);
        m.put("direction", direction.key());
        m.put("seen_at", sent ? "sender" : "receiver");
        m.put("time_us", timeUs);
        m.put("sensor_time_us", sensorTimeUs);
        m.put("seq", seq);
        m.put("len", len);
        m.put("ack", ack);
        m.put("flags", flags);
        m.put("window", window);
        m.put("window_edge", windowEdge);
        List<Long> starts = sack == null ? List.of() : new ArrayList<>();
        List<Long> ends = sack == null ? List.of() : new ArrayList<>();
        for (int i = 0; sack != null && i + 1 < sack.length; i += 2) {
            starts.add(sack[i]);
            ends.add(sack[i + 1]);
        }
        m.put("sack_starts", starts);
        m.put("sack_ends", ends);
        m.put("kind", kind.key());
        m.put("loss_cause", lossCause == null ? null : lossCause.name().toLowerCase(Locale.ROOT));
        m.put("rtx_of", rtxOf < 0 ? null : rtxOf);
        m.put("on_critical_path", onCriticalPath);
        return m;
    }
}
