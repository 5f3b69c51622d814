package dev.critpath.core.analysis.clean;

import dev.critpath.core.analysis.AnalysisBudgetExceededException;
import dev.critpath.core.analysis.AnalysisConfig;
import dev.critpath.core.analysis.InOrder;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.event.TcpFlags;
import dev.critpath.core.trace.SensorCapture;
import java.util.ArrayList;
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

    private SensorView(String sensor, SensorRole hint, List<Packet> frames, List<Packet> pkts, int duplicatesRemoved,
            int reorderedInCapture, int superSegments) {
        this.sensor = sensor;
        this.hint = hint;
        this.frames = List.copyOf(frames);
        this.pkts = superSegments == 0 ? this.frames : List.copyOf(pkts); // nothing split: the same packets
        this.duplicatesRemoved = duplicatesRemoved;
        this.reorderedInCapture = reorderedInCapture;
        this.superSegments = superSegments;
    }

    public static SensorView clean(SensorCapture cap, SequenceSpace bases, AnalysisConfig cfg) {
        List<PacketEvent> events = cap.packets();
        List<Packet> sorted = new ArrayList<>(events.size());
        long[] lastSeq = {0, 0};
        long[] lastAck = {0, 0};
        int inversions = 0;
        long prevTs = Long.MIN_VALUE;
        for (PacketEvent e : events) {
            if (e.tsUs() < prevTs) {
                inversions++;
            }
            prevTs = Math.max(prevTs, e.tsUs());
            sorted.add(relative(e, bases, lastSeq, lastAck));
        }
        // stable: packets with equal timestamps keep capture order
        InOrder.sortBy(sorted, p -> p.ts);
        List<Packet> frames = new ArrayList<>(sorted.size());
        Copies seen = new Copies(sorted.size());
        int dups = 0;
        for (Packet p : sorted) {
            int slot = seen.slotOf(p);
            if (seen.holds(slot) && isDuplicate(p, p.ts - seen.firstTs(slot), cfg)) {
                dups++; // measured from the first copy
                continue;
            }
            seen.put(slot, p);
            frames.add(p);
        }
        long pieceCount = 0;
        for (Packet p : frames) {
            int smss = smssOf(p, bases);
            pieceCount += isSuperSegment(p, smss) ? (p.len + smss - 1) / smss : 1;
        }
        long budget = PIECE_BUDGET_BASE + PIECE_BUDGET_PER_PACKET * frames.size();
        if (pieceCount > budget) {
            throw new AnalysisBudgetExceededException(cap.sensor(), frames.size(), pieceCount, budget);
        }
        List<Packet> pieces = new ArrayList<>((int) pieceCount);
        int superSegs = 0;
        for (Packet p : frames) {
            int smss = smssOf(p, bases);
            if (isSuperSegment(p, smss)) {
                superSegs++;
                split(p, smss, pieces);
            } else {
                pieces.add(p);
            }
        }
        return new SensorView(cap.sensor(), cap.roleHint(), frames, pieces, dups, inversions, superSegs);
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

    /**
     * A duplicate carries the same identity as an earlier copy; with an IP id or TCP timestamp the
     * identity is strong enough for the whole window (retransmissions get new ones), without them
     * only copies within 1 ms (no retransmission timer is that fast) are taken for duplicates.
     */
    private static boolean isDuplicate(Packet p, long gap, AnalysisConfig cfg) {
        boolean strongIdentity = p.ipId > 0 || p.tsval >= 0;
        return gap <= (strongIdentity ? cfg.duplicateWindowUs : 1_000);
    }

    private static void split(Packet p, int smss, List<Packet> out) {
        int pieces = (p.len + smss - 1) / smss;
        for (int i = 0; i < pieces; i++) {
            boolean last = i == pieces - 1;
            int flags = last ? p.flags : p.flags & ~(TcpFlags.FIN | TcpFlags.PSH);
            if (i > 0) {
                flags &= ~TcpFlags.SYN;
            }
            out.add(p.piece(p.seq + (long) i * smss, Math.min(smss, p.len - i * smss), flags, i > 0));
        }
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
        return new Packet(e.tsUs(), c2s, e.flags(), seq, ack, e.len(), e.win(), e.wscale(), e.mss(), Boolean.TRUE.equals(e.sackOk()), sack,
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
