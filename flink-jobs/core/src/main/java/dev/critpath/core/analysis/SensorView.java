package dev.critpath.core.analysis;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.event.TcpFlags;
import dev.critpath.core.trace.ConnectionTrace;
import dev.critpath.core.trace.SensorCapture;
import java.util.ArrayList;
import java.util.List;

/**
 * One sensor's packets of a connection, cleaned of capture artefacts (tcpeval's trace pitfalls):
 * sorted by timestamp, duplicates removed, offload super-segments split at MSS boundaries, and
 * sequence numbers made relative and unwrapped.
 */
final class SensorView {
    final String sensor;
    final SensorRole hint;
    /** Packets as captured (sorted, deduplicated), before super-segments are split: for the pie. */
    final List<Pkt> frames;
    /** Packets with super-segments split into MSS-sized pieces: what the analysis works on. */
    final List<Pkt> pkts;
    /**
     * Most MSS-sized pieces one sensor's packets may split into: 64 per packet is above any real
     * offload (64 KB TSO at 1448 bytes is 46 pieces, and ACKs dilute it), the base lets a short
     * capture of big aggregates through.
     */
    static final long PIECE_BUDGET_BASE = 65_536;
    static final long PIECE_BUDGET_PER_PACKET = 64;
    int duplicatesRemoved;
    int reorderedInCapture;
    int superSegments;
    SensorRole role = SensorRole.UNKNOWN;

    private SensorView(String sensor, SensorRole hint, List<Pkt> frames, List<Pkt> pkts) {
        this.sensor = sensor;
        this.hint = hint;
        this.frames = frames;
        this.pkts = pkts;
    }

    /** Relative sequence spaces for both directions, shared by every sensor of the connection. */
    static final class SeqBases {
        final long clientBase;
        final long serverBase;
        final boolean clientSynSeen;
        final boolean serverSynSeen;
        /** Effective sender segment size per direction (MSS minus timestamp option), or -1. */
        final int smssC2s;
        final int smssS2c;
        final int wscaleClient;
        final int wscaleServer;
        final boolean sackPermitted;

        SeqBases(ConnectionTrace t) {
            PacketEvent syn = null;
            List<PacketEvent> synAcks = new ArrayList<>();
            PacketEvent firstC = null;
            PacketEvent firstS = null;
            long handshakeAck = -1; // the client's first plain ACK names the SYN/ACK it accepted
            for (SensorCapture c : t.captures()) {
                for (PacketEvent e : c.packets()) {
                    boolean isSyn = e.hasFlag(TcpFlags.SYN);
                    if (e.isOrig()) {
                        if (isSyn && !e.hasFlag(TcpFlags.ACK) && syn == null) {
                            syn = e;
                        } else if (!isSyn && e.hasFlag(TcpFlags.ACK) && handshakeAck < 0) {
                            handshakeAck = e.ack();
                        }
                        firstC = firstC == null ? e : firstC;
                    } else {
                        if (isSyn && e.hasFlag(TcpFlags.ACK)) {
                            synAcks.add(e);
                        }
                        firstS = firstS == null ? e : firstS;
                    }
                }
            }
            // a SYN/ACK retransmitted with another ISN must not confuse the sequence space
            PacketEvent synAck = synAcks.isEmpty() ? null : synAcks.get(0);
            for (PacketEvent sa : synAcks) {
                if (((sa.seq() + 1) & 0xffff_ffffL) == handshakeAck) {
                    synAck = sa;
                }
            }
            clientSynSeen = syn != null;
            serverSynSeen = synAck != null;
            clientBase = synAck != null ? (synAck.ack() - 1) & 0xffff_ffffL : syn != null ? syn.seq() : baseFromMin(t, true, firstC);
            serverBase = synAck != null ? synAck.seq() : baseFromMin(t, false, firstS);
            boolean ts = syn != null && synAck != null && syn.tsval() >= 0 && synAck.tsval() >= 0;
            int tsOverhead = ts ? 12 : 0;
            smssC2s = synAck != null && synAck.mss() > 0 ? synAck.mss() - tsOverhead : -1;
            smssS2c = syn != null && syn.mss() > 0 ? syn.mss() - tsOverhead : -1;
            boolean scaling = syn != null && synAck != null && syn.wscale() >= 0 && synAck.wscale() >= 0;
            wscaleClient = scaling ? Math.min(14, syn.wscale()) : (syn == null || synAck == null ? -1 : 0);
            wscaleServer = scaling ? Math.min(14, synAck.wscale()) : (syn == null || synAck == null ? -1 : 0);
            sackPermitted = syn != null && synAck != null && Boolean.TRUE.equals(syn.sackOk()) && Boolean.TRUE.equals(synAck.sackOk());
        }

        /** Mid-stream: pick the base so the lowest sequence number seen becomes 1. */
        private static long baseFromMin(ConnectionTrace t, boolean client, PacketEvent anchor) {
            if (anchor == null) {
                return 0;
            }
            long minOffset = 0;
            for (SensorCapture c : t.captures()) {
                for (PacketEvent e : c.packets()) {
                    if (e.isOrig() == client) {
                        minOffset = Math.min(minOffset, (int) (e.seq() - anchor.seq()));
                    }
                }
            }
            return (anchor.seq() + minOffset - 1) & 0xffff_ffffL;
        }
    }

    static SensorView build(SensorCapture cap, SeqBases bases, AnalysisConfig cfg) {
        List<PacketEvent> events = cap.packets();
        List<Pkt> sorted = new ArrayList<>(events.size());
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
        List<Pkt> frames = new ArrayList<>(sorted.size());
        Copies seen = new Copies(sorted.size());
        int dups = 0;
        for (Pkt p : sorted) {
            int slot = seen.slotOf(p);
            if (seen.holds(slot) && isDuplicate(p, p.ts - seen.firstTs(slot), cfg)) {
                dups++; // measured from the first copy
                continue;
            }
            seen.put(slot, p);
            frames.add(p);
        }
        long pieceCount = 0;
        for (Pkt p : frames) {
            int smss = smssOf(p, bases);
            pieceCount += isSuperSegment(p, smss) ? (p.len + smss - 1) / smss : 1;
        }
        long budget = PIECE_BUDGET_BASE + PIECE_BUDGET_PER_PACKET * frames.size();
        if (pieceCount > budget) {
            throw new AnalysisBudgetExceededException(cap.sensor(), frames.size(), pieceCount, budget);
        }
        List<Pkt> pieces = new ArrayList<>((int) pieceCount);
        int superSegs = 0;
        for (Pkt p : frames) {
            int smss = smssOf(p, bases);
            if (isSuperSegment(p, smss)) {
                superSegs++;
                split(p, smss, pieces);
            } else {
                pieces.add(p);
            }
        }
        SensorView v = new SensorView(cap.sensor(), cap.roleHint(), frames, pieces);
        v.duplicatesRemoved = dups;
        v.reorderedInCapture = inversions;
        v.superSegments = superSegs;
        return v;
    }

    private static int smssOf(Pkt p, SeqBases bases) {
        return p.c2s ? bases.smssC2s : bases.smssS2c;
    }

    /**
     * Offload aggregates span at least two segments; a packet a little over the MSS option
     * (clamping middleboxes, old stacks) is a real segment.
     */
    private static boolean isSuperSegment(Pkt p, int smss) {
        return smss > 0 && p.len > smss + smss / 2;
    }

    /**
     * A duplicate carries the same identity as an earlier copy; with an IP id or TCP timestamp the
     * identity is strong enough for the whole window (retransmissions get new ones), without them
     * only copies within 1 ms (no retransmission timer is that fast) are taken for duplicates.
     */
    private static boolean isDuplicate(Pkt p, long gap, AnalysisConfig cfg) {
        boolean strongIdentity = p.ipId > 0 || p.tsval >= 0;
        return gap <= (strongIdentity ? cfg.duplicateWindowUs : 1_000);
    }

    private static void split(Pkt p, int smss, List<Pkt> out) {
        int pieces = (p.len + smss - 1) / smss;
        for (int i = 0; i < pieces; i++) {
            Pkt q = p.copy();
            q.seq = p.seq + (long) i * smss;
            q.len = Math.min(smss, p.len - i * smss);
            boolean last = i == pieces - 1;
            q.flags = last ? p.flags : p.flags & ~(TcpFlags.FIN | TcpFlags.PSH);
            if (i > 0) {
                q.flags &= ~TcpFlags.SYN;
            }
            q.offloadPiece = true;
            out.add(q);
        }
    }

    private static Pkt relative(PacketEvent e, SeqBases b, long[] lastSeq, long[] lastAck) {
        Pkt p = new Pkt();
        p.ts = e.tsUs();
        p.c2s = e.isOrig();
        p.flags = e.flags();
        int dir = p.c2s ? 0 : 1;
        p.seq = unwrap(e.seq(), p.c2s ? b.clientBase : b.serverBase, lastSeq, dir);
        if (e.hasFlag(TcpFlags.ACK)) {
            p.ack = unwrap(e.ack(), p.c2s ? b.serverBase : b.clientBase, lastAck, dir);
        }
        p.len = e.len();
        p.win = e.win();
        p.wscale = e.wscale();
        p.mss = e.mss();
        p.sackOk = Boolean.TRUE.equals(e.sackOk());
        if (e.sack() != null && e.sack().length > 0) {
            long[] s = new long[e.sack().length];
            long base = p.c2s ? b.serverBase : b.clientBase;
            for (int i = 0; i < s.length; i++) {
                s[i] = p.ack + (int) ((e.sack()[i] - base - p.ack) & 0xffff_ffffL);
            }
            p.sack = s;
        }
        p.tsval = e.tsval();
        p.tsecr = e.tsecr();
        p.ipId = e.ipId();
        p.ttl = e.ttl();
        return p;
    }

    /** 32-bit value -> the 64-bit relative value nearest the previous one of this stream. */
    private static long unwrap(long abs, long base, long[] last, int dir) {
        long rel32 = (abs - base) & 0xffff_ffffL;
        long prev = last[dir];
        long v = prev + (int) (rel32 - (prev & 0xffff_ffffL));
        last[dir] = v;
        return v;
    }

    /** Identity of a packet for duplicate detection. */
    /**
     * The latest kept packet of each identity (direction, sequence, ACK, length, flags, window, IP id,
     * TCP timestamps): an open-addressing table over primitive arrays, since every packet of every
     * connection goes through it.
     */
    private static final class Copies {
        private final Pkt[] pkts;
        private final int mask;

        Copies(int expected) {
            int capacity = Integer.highestOneBit(Math.max(4, expected * 2 - 1)) << 1;
            pkts = new Pkt[capacity];
            mask = capacity - 1;
        }

        /** The slot holding p's identity, or the empty slot where it would go. */
        int slotOf(Pkt p) {
            long h = p.seq * 31 + p.ack;
            h = h * 31 + p.len;
            h = h * 31 + p.ipId;
            h = h * 31 + p.tsval;
            int i = (int) (h ^ (h >>> 29) ^ (h >>> 47)) & mask;
            while (pkts[i] != null && !sameIdentity(pkts[i], p)) {
                i = (i + 1) & mask;
            }
            return i;
        }

        boolean holds(int slot) {
            return pkts[slot] != null;
        }

        long firstTs(int slot) {
            return pkts[slot].ts;
        }

        void put(int slot, Pkt p) {
            pkts[slot] = p;
        }

        private static boolean sameIdentity(Pkt a, Pkt b) {
            return a.c2s == b.c2s && a.seq == b.seq && a.ack == b.ack && a.len == b.len && a.flags == b.flags && a.win == b.win
                    && a.ipId == b.ipId && a.tsval == b.tsval && a.tsecr == b.tsecr;
        }
    }
}
