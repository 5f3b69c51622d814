package dev.critpath.core.analysis.sender;

import dev.critpath.core.analysis.AnalysisConfig;
import dev.critpath.core.analysis.Direction;
import dev.critpath.core.analysis.LossCause;
import dev.critpath.core.analysis.align.Tx;
import java.util.Arrays;

/**
 * What the forward pass learned about each transmission of a connection: what it is, the ACK
 * whose arrival let it leave, and for a re-send the copy it repeats and how the loss was
 * recognised. Only the sender simulation writes it; the steps after it read.
 */
public final class SenderMarks {
    private static final TxKind[] KINDS = TxKind.values();
    // bits of flags
    private static final int LOSS_ARC = 1;
    private static final int OUT_OF_WINDOW = 2;
    private static final int DUPLICATE_ACK = 4;
    private static final int LOST = 8;
    private static final int SPURIOUS = 16;

    /** Per transmission, its kind's ordinal: 0, a control packet, until the simulation says otherwise. */
    private final byte[] kind;
    /** Per transmission, the bits above. */
    private final byte[] flags;
    private final int[] liberator;
    /** For new data, the simulated congestion window and slow-start threshold (segments: they stay far below 2^31) when it left. */
    private final int[] cwndAtSend;
    private final int[] ssthreshAtSend;
    // what re-sends alone have, made at the first (most connections re-send nothing)
    private int[] rtxOf;
    private LossCause[] lossCause;
    /** Where a re-send's loss arc starts when not at its earlier copy's departure, or -1; made at the first. */
    private int[] lossArcFrom;
    /** Each direction's segment size, C2S first. */
    private final int[] segmentSize = new int[2];

    /** Marks for a timeline of this many transmissions, each a control packet until the simulation says otherwise. */
    public SenderMarks(int transmissions) {
        kind = new byte[transmissions];
        flags = new byte[transmissions];
        liberator = noTransmissions(transmissions);
        cwndAtSend = new int[transmissions];
        ssthreshAtSend = new int[transmissions];
    }

    /** Per transmission, -1: none named. */
    private static int[] noTransmissions(int transmissions) {
        int[] none = new int[transmissions];
        Arrays.fill(none, -1);
        return none;
    }

    private boolean has(Tx t, int flag) {
        return (flags[t.idx()] & flag) != 0;
    }

    private void set(Tx t, int flag, boolean on) {
        flags[t.idx()] = (byte) (on ? flags[t.idx()] | flag : flags[t.idx()] & ~flag);
    }

    public TxKind kind(Tx t) {
        return KINDS[kind[t.idx()]];
    }

    /** New data carrying payload (not a lone FIN). */
    public boolean isNewData(Tx t) {
        return kind(t) == TxKind.NEW_DATA && t.p.len > 0;
    }

    /** Payload no earlier captured packet carried: new data, or the re-send of a copy no sensor saw. */
    public boolean firstCaptured(Tx t) {
        return t.p.len > 0 && (kind(t) == TxKind.NEW_DATA || kind(t) == TxKind.RETRANSMISSION && rtxOf(t) < 0);
    }

    /** A keep-alive or zero-window probe: it draws an ACK from the peer without carrying new data. */
    public boolean isProbe(Tx t) {
        return kind(t) == TxKind.KEEPALIVE || kind(t) == TxKind.WINDOW_PROBE;
    }

    /** The earlier transmission of the same bytes a re-send repeats, or -1. */
    public int rtxOf(Tx t) {
        return rtxOf == null ? -1 : rtxOf[t.idx()];
    }

    /**
     * Where a re-send's loss arc starts when not at its earlier copy's departure, else -1: for one
     * whose first copy no sensor saw, the captured segment just below it when that copy left right
     * after it (the window allowed it then; otherwise the lost copy is taken as leaving with
     * {@link #rtxOf}, the first segment above it); for one that left on the timer expiry that sent
     * another re-send, that re-send (it waited on the timer, not since its own copy, which may
     * have arrived).
     */
    public int lossArcFrom(Tx t) {
        return lossArcFrom == null ? -1 : lossArcFrom[t.idx()];
    }

    void lossArcFrom(Tx t, int from) {
        if (lossArcFrom == null) {
            lossArcFrom = noTransmissions(kind.length);
        }
        lossArcFrom[t.idx()] = from;
    }

    /** How the sender recognised the loss a re-send repairs; null for anything else (a SYN-ACK answering a repeated SYN too). */
    public LossCause lossCause(Tx t) {
        return lossCause == null ? null : lossCause[t.idx()];
    }

    /**
     * True when this re-send is where the sender recognised the loss (the timer fired, or the
     * fast retransmit itself): tcpeval's loss arc from the lost copy. Later re-sends of the same
     * recovery are clocked by ACKs and depend on those instead.
     */
    public boolean lossArc(Tx t) {
        return has(t, LOSS_ARC);
    }

    /** The ACK (a transmission of the other direction) whose arrival let this data leave, or -1. */
    public int liberator(Tx t) {
        return liberator[t.idx()];
    }

    /** True when the sender sent it beyond the simulated window and the simulation re-synchronised. */
    public boolean outOfWindow(Tx t) {
        return has(t, OUT_OF_WINDOW);
    }

    /** An ACK its sender's replay counted as a duplicate (the profile's dup_acks). */
    public boolean duplicateAck(Tx t) {
        return has(t, DUPLICATE_ACK);
    }

    void countedDuplicate(Tx t) {
        set(t, DUPLICATE_ACK, true);
    }

    /**
     * True for a copy that never reached the receiver: a re-send that was not spurious repeated it
     * and no sensor saw it arrive. Its estimated arrival delivered nothing.
     */
    public boolean lost(Tx t) {
        return has(t, LOST);
    }

    /** A re-send that repaired nothing, on evidence (the profile's spurious_retransmissions). */
    public boolean spurious(Tx t) {
        return has(t, SPURIOUS);
    }

    /**
     * The sender's window as the simulation had it when this new data left, to play the
     * direction on from there as if nothing had been lost (see {@link LossFreeWindow}).
     */
    public LossFreeWindow windowAtSend(Tx t, AnalysisConfig cfg) {
        return new LossFreeWindow(cfg, cwndAtSend[t.idx()], ssthreshAtSend[t.idx()], segmentSize[t.c2s() ? 0 : 1]);
    }

    void window(Tx t, long cwnd, long ssthresh) {
        cwndAtSend[t.idx()] = (int) cwnd;
        ssthreshAtSend[t.idx()] = (int) ssthresh;
    }

    void segmentSize(Direction dir, int mss) {
        segmentSize[dir == Direction.C2S ? 0 : 1] = mss;
    }

    void countedSpurious(Tx t) {
        set(t, SPURIOUS, true);
    }

    void kind(Tx t, TxKind k) {
        kind[t.idx()] = (byte) k.ordinal();
    }

    void resent(Tx t, int original, LossCause cause) {
        kind(t, TxKind.RETRANSMISSION);
        if (rtxOf == null) {
            rtxOf = noTransmissions(kind.length);
            lossCause = new LossCause[kind.length];
        }
        rtxOf[t.idx()] = original;
        lossCause[t.idx()] = cause;
    }

    void lossArc(Tx t, boolean recognised) {
        set(t, LOSS_ARC, recognised);
    }

    /**
     * With one capture, the unwatched sender's timestamp echo overrules the window model: data an
     * ACK clocked out left as that ACK arrived, so it echoes that ACK's timestamp. An ACK with an
     * older one would have sent it earlier (the model's window ran ahead, e.g. on ACKs lost on the
     * way, or the sender was not clocked by it), and a later one had not arrived. Then the first
     * ACK the echo names, which had, is taken.
     */
    void liberator(Tx t, int ack) {
        Tx named = t.echoNames();
        liberator[t.idx()] = named != null && ack >= 0 ? named.idx() : ack;
    }

    /**
     * New data's liberator: as {@link #liberator(Tx, int)}, except that an ACK sent after the named
     * one in the same timestamp tick may have arrived too (the echo cannot tell them apart): the
     * one the window needed for this data ({@code needed}, else null), when it had arrived by the
     * data's departure, is kept. Within a tick the window is the better witness; the ACK clock,
     * timing estimates against estimates, is not.
     */
    void liberator(Tx t, int ack, Tx needed) {
        if (needed != null && sameTickAsEcho(t, needed) && needed.arr() != Tx.NONE && needed.arr() <= t.dep()) {
            liberator[t.idx()] = needed.idx();
        } else {
            liberator(t, ack);
        }
    }

    /** An ACK sent after the one the data's timestamp echo names, in the same timestamp tick: the echo cannot tell them apart. */
    static boolean sameTickAsEcho(Tx data, Tx ack) {
        Tx named = data.echoNames();
        return named != null && ack.idx() > named.idx() && ack.p.tsval == named.p.tsval;
    }

    /** A timer's re-send of a copy never captured: the ACK that let that copy leave, whatever the re-send echoes. */
    void originalLiberator(Tx t, int ack) {
        liberator[t.idx()] = ack;
    }

    void sentBeyondWindow(Tx t) {
        set(t, OUT_OF_WINDOW, true);
    }

    void markLost(Tx t) {
        set(t, LOST, true);
    }
}
