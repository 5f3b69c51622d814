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
    private final TxKind[] kind;
    private final int[] rtxOf;
    /** For a re-send whose first copy no sensor saw, the captured segment that copy left right after, or -1. */
    private final int[] lostWith;
    private final LossCause[] lossCause;
    private final boolean[] lossArc;
    private final int[] liberator;
    private final boolean[] outOfWindow;
    private final boolean[] duplicateAck;
    private final boolean[] lost;
    private final boolean[] spurious;
    /** For new data, the simulated congestion window and slow-start threshold (segments) when it left. */
    private final long[] cwndAtSend;
    private final long[] ssthreshAtSend;
    /** Each direction's segment size, C2S first. */
    private final int[] segmentSize = new int[2];

    /** Marks for a timeline of this many transmissions, each a control packet until the simulation says otherwise. */
    public SenderMarks(int transmissions) {
        kind = new TxKind[transmissions];
        Arrays.fill(kind, TxKind.CONTROL);
        rtxOf = new int[transmissions];
        Arrays.fill(rtxOf, -1);
        lostWith = new int[transmissions];
        Arrays.fill(lostWith, -1);
        lossCause = new LossCause[transmissions];
        lossArc = new boolean[transmissions];
        liberator = new int[transmissions];
        Arrays.fill(liberator, -1);
        outOfWindow = new boolean[transmissions];
        duplicateAck = new boolean[transmissions];
        lost = new boolean[transmissions];
        spurious = new boolean[transmissions];
        cwndAtSend = new long[transmissions];
        ssthreshAtSend = new long[transmissions];
    }

    public TxKind kind(Tx t) {
        return kind[t.idx()];
    }

    /** New data carrying payload (not a lone FIN). */
    public boolean isNewData(Tx t) {
        return kind[t.idx()] == TxKind.NEW_DATA && t.p.len > 0;
    }

    /** Payload no earlier captured packet carried: new data, or the re-send of a copy no sensor saw. */
    public boolean firstCaptured(Tx t) {
        return t.p.len > 0 && (kind[t.idx()] == TxKind.NEW_DATA || kind[t.idx()] == TxKind.RETRANSMISSION && rtxOf[t.idx()] < 0);
    }

    /** A keep-alive or zero-window probe: it draws an ACK from the peer without carrying new data. */
    public boolean isProbe(Tx t) {
        return kind[t.idx()] == TxKind.KEEPALIVE || kind[t.idx()] == TxKind.WINDOW_PROBE;
    }

    /** The earlier transmission of the same bytes a re-send repeats, or -1. */
    public int rtxOf(Tx t) {
        return rtxOf[t.idx()];
    }

    /**
     * For a re-send whose first copy no sensor saw, the captured segment just below it when that
     * copy left right after it (the window allowed it then), else -1: the lost copy is then taken
     * as leaving with {@link #rtxOf}, the first segment above it.
     */
    public int lostWith(Tx t) {
        return lostWith[t.idx()];
    }

    void lostWith(Tx t, int below) {
        lostWith[t.idx()] = below;
    }

    /** How the sender recognised the loss a re-send repairs; null for anything else (a SYN-ACK answering a repeated SYN too). */
    public LossCause lossCause(Tx t) {
        return lossCause[t.idx()];
    }

    /**
     * True when this re-send is where the sender recognised the loss (the timer fired, or the
     * fast retransmit itself): tcpeval's loss arc from the lost copy. Later re-sends of the same
     * recovery are clocked by ACKs and depend on those instead.
     */
    public boolean lossArc(Tx t) {
        return lossArc[t.idx()];
    }

    /** The ACK (a transmission of the other direction) whose arrival let this data leave, or -1. */
    public int liberator(Tx t) {
        return liberator[t.idx()];
    }

    /** True when the sender sent it beyond the simulated window and the simulation re-synchronised. */
    public boolean outOfWindow(Tx t) {
        return outOfWindow[t.idx()];
    }

    /** An ACK its sender's replay counted as a duplicate (the profile's dup_acks). */
    public boolean duplicateAck(Tx t) {
        return duplicateAck[t.idx()];
    }

    void countedDuplicate(Tx t) {
        duplicateAck[t.idx()] = true;
    }

    /**
     * True for a copy that never reached the receiver: a re-send that was not spurious repeated it
     * and no sensor saw it arrive. Its estimated arrival delivered nothing.
     */
    public boolean lost(Tx t) {
        return lost[t.idx()];
    }

    /** A re-send that repaired nothing, on evidence (the profile's spurious_retransmissions). */
    public boolean spurious(Tx t) {
        return spurious[t.idx()];
    }

    /**
     * The sender's window as the simulation had it when this new data left, to play the
     * direction on from there as if nothing had been lost (see {@link LossFreeWindow}).
     */
    public LossFreeWindow windowAtSend(Tx t, AnalysisConfig cfg) {
        return new LossFreeWindow(cfg, cwndAtSend[t.idx()], ssthreshAtSend[t.idx()], segmentSize[t.c2s() ? 0 : 1]);
    }

    void window(Tx t, long cwnd, long ssthresh) {
        cwndAtSend[t.idx()] = cwnd;
        ssthreshAtSend[t.idx()] = ssthresh;
    }

    void segmentSize(Direction dir, int mss) {
        segmentSize[dir == Direction.C2S ? 0 : 1] = mss;
    }

    void countedSpurious(Tx t) {
        spurious[t.idx()] = true;
    }

    void kind(Tx t, TxKind k) {
        kind[t.idx()] = k;
    }

    void resent(Tx t, int original, LossCause cause) {
        kind[t.idx()] = TxKind.RETRANSMISSION;
        rtxOf[t.idx()] = original;
        lossCause[t.idx()] = cause;
    }

    void lossArc(Tx t, boolean recognised) {
        lossArc[t.idx()] = recognised;
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

    /** A timer's re-send of a copy never captured: the ACK that let that copy leave, whatever the re-send echoes. */
    void originalLiberator(Tx t, int ack) {
        liberator[t.idx()] = ack;
    }

    void sentBeyondWindow(Tx t) {
        outOfWindow[t.idx()] = true;
    }

    void markLost(Tx t) {
        lost[t.idx()] = true;
    }
}
