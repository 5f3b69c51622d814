package dev.critpath.core.analysis.clean;

import dev.critpath.core.event.TcpFlags;

/**
 * A packet as one sensor saw it, with sequence and acknowledgement numbers unwrapped to 64 bits
 * and made relative to their direction's ISN (the SYN occupies 0, the first data byte is 1).
 */
public final class Packet {
    public final long ts;
    public final boolean c2s;
    public final int flags;
    public final long seq;
    public final long ack;
    public final int len;
    public final int win;
    public final int wscale;
    public final int mss;
    public final boolean sackOk;
    /** SACK blocks in the acknowledged direction's relative space, or null. */
    public final long[] sack;
    public final long tsval;
    public final long tsecr;
    public final int ipId;
    public final int ttl;
    /** One piece of an offload super-segment that the cleaner split at MSS boundaries. */
    public final boolean offloadPiece;
    /** A piece after the first of its super-segment: the same captured packet as the piece before it. */
    public final boolean laterPiece;

    Packet(long ts, boolean c2s, int flags, long seq, long ack, int len, int win, int wscale, int mss, boolean sackOk, long[] sack,
            long tsval, long tsecr, int ipId, int ttl, boolean offloadPiece, boolean laterPiece) {
        this.ts = ts;
        this.c2s = c2s;
        this.flags = flags;
        this.seq = seq;
        this.ack = ack;
        this.len = len;
        this.win = win;
        this.wscale = wscale;
        this.mss = mss;
        this.sackOk = sackOk;
        this.sack = sack;
        this.tsval = tsval;
        this.tsecr = tsecr;
        this.ipId = ipId;
        this.ttl = ttl;
        this.offloadPiece = offloadPiece;
        this.laterPiece = laterPiece;
    }

    /** A piece of this offload super-segment: its own bytes and flags, the rest as the aggregate's. */
    Packet piece(long pieceSeq, int pieceLen, int pieceFlags, boolean later) {
        return new Packet(ts, c2s, pieceFlags, pieceSeq, ack, pieceLen, win, wscale, mss, sackOk, sack, tsval, tsecr, ipId, ttl, true, later);
    }

    public boolean has(int bit) {
        return (flags & bit) != 0;
    }

    /** First sequence number after this packet (SYN and FIN count one each). */
    public long end() {
        return seq + len + controlSpace(); // short enough for the quick compiler to inline at every caller
    }

    /** Sequence space the SYN and FIN flags take. */
    private int controlSpace() {
        return ((flags & TcpFlags.SYN) != 0 ? 1 : 0) + ((flags & TcpFlags.FIN) != 0 ? 1 : 0);
    }

    public boolean carriesSeqSpace() {
        return end() > seq;
    }

    @Override
    public String toString() {
        return ts + (c2s ? " C>S " : " S>C ") + TcpFlags.letters(flags) + " " + seq + ":" + end() + " ack " + ack + " win " + win;
    }
}
