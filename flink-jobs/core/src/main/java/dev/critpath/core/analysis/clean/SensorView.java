package dev.critpath.core.analysis.clean;

import dev.critpath.core.analysis.AnalysisBudgetExceededException;
import dev.critpath.core.analysis.AnalysisConfig;
import dev.critpath.core.analysis.InOrder;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.event.TcpFlags;
import dev.critpath.core.trace.SensorCapture;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * One sensor's packets of a connection, cleaned of capture artefacts (tcpeval's trace pitfalls):
 * sorted by timestamp, duplicates removed, offload super-segments split at MSS boundaries, and
 * sequence numbers made relative and unwrapped.
 */
public final class SensorView {
    public final String sensor;
    public final SensorRole hint;
    /** Packets as captured (sorted, deduplicated), before super-segments are split: for the pie. */
    public final List<Packet> frames;
    /** Packets with super-segments split into MSS-sized pieces: what the analysis works on. */
    public final List<Packet> pkts;
    /**
     * Most MSS-sized pieces one sensor's packets may split into: 64 per packet is above any real
     * offload (64 KB TSO at 1448 bytes is 46 pieces, and ACKs dilute it), the base lets a short
     * capture of big aggregates through.
     */
    static final long PIECE_BUDGET_BASE = 65_536;
    static final long PIECE_BUDGET_PER_PACKET = 64;
    public final int duplicatesRemoved;
    public final int reorderedInCapture;
    public final int superSegments;

    /** What {@link #pkts} holds, for loops over every packet. */
    private final Packet[] pieces;

    private SensorView(String sensor, SensorRole hint, Packet[] frames, Packet[] pieces, int duplicatesRemoved, int reorderedInCapture,
            int superSegments) {
        this.sensor = sensor;
        this.hint = hint;
        this.frames = Collections.unmodifiableList(Arrays.asList(frames));
        this.pieces = pieces;
        this.pkts = pieces == frames ? this.frames : Collections.unmodifiableList(Arrays.asList(pieces)); // nothing split: the same packets
        this.duplicatesRemoved = duplicatesRemoved;
        this.reorderedInCapture = reorderedInCapture;
        this.superSegments = superSegments;
    }

    /** {@link #pkts} as the array it reads: shared, so never to be written. */
    public Packet[] pieceArray() {
        return pieces;
    }

    public static SensorView clean(SensorCapture cap, SequenceSpace bases, AnalysisConfig cfg) {
        List<PacketEvent> events = cap.packets();
        int n = events.size();
        Packet[] sorted = new Packet[n];
        long[] lastSeq = {0, 0};
        long[] lastAck = {0, 0};
        int inversions = 0;
        long prevTs = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            PacketEvent e = events.get(i);
            if (e.tsUs() < prevTs) {
                inversions++;
            }
            prevTs = Math.max(prevTs, e.tsUs());
            sorted[i] = relative(e, bases, lastSeq, lastAck);
        }
        if (inversions > 0) {
            // stable: packets with equal timestamps keep capture order
            InOrder.sortBy(sorted, p -> p.ts);
        }
        int kept = Copies.keepFirst(sorted, n, cfg.duplicateWindowUs);
        Packet[] frames = kept == n ? sorted : Arrays.copyOf(sorted, kept);
        long pieceCount = 0;
        int superSegs = 0;
        for (Packet p : frames) {
            int smss = smssOf(p, bases);
            if (isSuperSegment(p, smss)) {
                superSegs++;
                pieceCount += (p.len + smss - 1) / smss;
            } else {
                pieceCount++;
            }
        }
        long budget = PIECE_BUDGET_BASE + PIECE_BUDGET_PER_PACKET * kept;
        if (pieceCount > budget) {
            throw new AnalysisBudgetExceededException(cap.sensor(), kept, pieceCount, budget);
        }
        Packet[] pieces = frames;
        if (superSegs > 0) {
            pieces = new Packet[(int) pieceCount];
            int at = 0;
            for (Packet p : frames) {
                int smss = smssOf(p, bases);
                if (isSuperSegment(p, smss)) {
                    at = split(p, smss, pieces, at);
                } else {
                    pieces[at++] = p;
                }
            }
        }
        return new SensorView(cap.sensor(), cap.roleHint(), frames, pieces, n - kept, inversions, superSegs);
    }

    private static int smssOf(Packet p, SequenceSpace bases) {
        return p.c2s ? bases.smssC2s : bases.smssS2c;
    }

    /**
     * Offload aggregates span at least two segments; a packet a little over the MSS option
     * (clamping middleboxes, old stacks) is a real segment.
     */
    private static boolean isSuperSegment(Packet p, int smss) {
        return smss > 0 && p.len > smss + smss / 2;
    }

    /** Puts p's pieces into out from index at; returns the index after them. */
    private static int split(Packet p, int smss, Packet[] out, int at) {
        int pieces = (p.len + smss - 1) / smss;
        for (int i = 0; i < pieces; i++) {
            boolean last = i == pieces - 1;
            int flags = last ? p.flags : p.flags & ~(TcpFlags.FIN | TcpFlags.PSH);
            if (i > 0) {
                flags &= ~TcpFlags.SYN;
            }
            out[at++] = p.piece(p.seq + (long) i * smss, Math.min(smss, p.len - i * smss), flags, i > 0);
        }
        return at;
    }

    private static Packet relative(PacketEvent e, SequenceSpace b, long[] lastSeq, long[] lastAck) {
        boolean c2s = e.isOrig();
        int dir = c2s ? 0 : 1;
        long seq = unwrap(e.seq(), c2s ? b.clientBase : b.serverBase, lastSeq, dir);
        long ack = e.hasFlag(TcpFlags.ACK) ? unwrap(e.ack(), c2s ? b.serverBase : b.clientBase, lastAck, dir) : 0;
        long[] sack = null;
        if (e.sack() != null && e.sack().length > 0) {
            sack = new long[e.sack().length];
            long base = c2s ? b.serverBase : b.clientBase;
            for (int i = 0; i < sack.length; i++) {
                sack[i] = ack + (int) ((e.sack()[i] - base - ack) & 0xffff_ffffL);
            }
        }
        Boolean sackOk = e.sackOk();
        return new Packet(e.tsUs(), c2s, e.flags(), seq, ack, e.len(), e.win(), e.wscale(), e.mss(), sackOk != null && sackOk, sack,
                e.tsval(), e.tsecr(), e.ipId(), e.ttl(), false, false);
    }

    /** 32-bit value -> the 64-bit relative value nearest the previous one of this stream. */
    private static long unwrap(long abs, long base, long[] last, int dir) {
        long rel32 = (abs - base) & 0xffff_ffffL;
        long prev = last[dir];
        long v = prev + (int) (rel32 - (prev & 0xffff_ffffL));
        last[dir] = v;
        return v;
    }
}
