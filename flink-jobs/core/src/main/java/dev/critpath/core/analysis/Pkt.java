package dev.critpath.core.analysis;

import dev.critpath.core.event.TcpFlags;

/**
 * A packet as one sensor saw it, with sequence and acknowledgement numbers unwrapped to 64 bits
 * and made relative to their direction's ISN (the SYN occupies 0, the first data byte is 1).
 */
final class Pkt {
    long ts;
    boolean c2s;
    int flags;
    long seq;
    long ack;
    int len;
    int win;
    int wscale = -1;
    int mss = -1;
    boolean sackOk;
    /** SACK blocks in the acknowledged direction's relative space, or null. */
    long[] sack;
    long tsval = -1;
    long tsecr = -1;
    int ipId = -1;
    int ttl;
    /** One piece of an offload super-segment that the cleaner split at MSS boundaries. */
    boolean offloadPiece;

    boolean has(int bit) {
        return (flags & bit) != 0;
    }

    /** First sequence number after this packet (SYN and FIN count one each). */
    long end() {
        return seq + len + (has(TcpFlags.SYN) ? 1 : 0) + (has(TcpFlags.FIN) ? 1 : 0);
    }

    boolean carriesSeqSpace() {
        return end() > seq;
    }

    Pkt copy() {
        Pkt p = new Pkt();
        p.ts = ts;
        p.c2s = c2s;
        p.flags = flags;
        p.seq = seq;
        p.ack = ack;
        p.len = len;
        p.win = win;
        p.wscale = wscale;
        p.mss = mss;
        p.sackOk = sackOk;
        p.sack = sack;
        p.tsval = tsval;
        p.tsecr = tsecr;
        p.ipId = ipId;
        p.ttl = ttl;
        p.offloadPiece = offloadPiece;
        return p;
    }

    @Override
    public String toString() {
        return ts + (c2s ? " C>S " : " S>C ") + TcpFlags.letters(flags) + " " + seq + ":" + end() + " ack " + ack + " win " + win;
    }
}
