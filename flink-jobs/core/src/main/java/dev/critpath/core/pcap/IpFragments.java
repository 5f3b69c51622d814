package dev.critpath.core.pcap;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * IP datagrams in pieces, until every byte has come. A TCP segment sent in fragments is one packet
 * to the hosts (and to Zeek, which reassembles them too): skipping its fragments lost the whole
 * segment, and a connection whose data was all fragmented looked like one that sent nothing. Only
 * what the analysis needs is kept: the first piece's TCP header and which byte ranges have come.
 * The table is bounded; the datagram waiting longest is dropped first.
 */
final class IpFragments {
    /** Datagrams waiting for pieces; a real capture has a handful at a time. */
    static final int MAX_DATAGRAMS = 1024;
    /** A 64 KB datagram in 1,280-byte pieces (IPv6's minimum MTU) is 52 pieces; more is an attack. */
    static final int MAX_PIECES = 64;

    private final Map<ByteBuffer, Datagram> waiting = new LinkedHashMap<>();
    /** Pieces read that are not part of a packet returned (yet): the reader's skipped-fragment count. */
    private long piecesHeld;

    /** One datagram's pieces so far. */
    static final class Datagram {
        /** The first piece's decoded headers, or null until it comes. */
        RawPacket first;
        /** Length of the first piece's TCP header, whose payload the other pieces continue. */
        int tcpHeaderLen;
        /** Byte ranges of the IP payload that came, as [start, end) pairs, unsorted. */
        private final int[] ranges = new int[2 * MAX_PIECES];
        private int pieces;
        /** The IP payload's length, known once the last piece (no more-fragments flag) comes; -1 before. */
        private int length = -1;

        /** Every byte from 0 to the last piece's end has come (pieces may overlap or repeat). */
        boolean complete() {
            if (first == null || length < 0) {
                return false;
            }
            long[] byStart = new long[pieces];
            for (int i = 0; i < pieces; i++) {
                byStart[i] = (long) ranges[2 * i] << 32 | ranges[2 * i + 1];
            }
            Arrays.sort(byStart);
            long reach = 0;
            for (long r : byStart) {
                if (r >>> 32 > reach) {
                    return false; // a gap
                }
                reach = Math.max(reach, r & 0xffff_ffffL);
            }
            return reach == length;
        }

        /** The IP payload's length, once the last piece came; -1 before. */
        int length() {
            return length;
        }
    }

    /**
     * Records one piece: {@code offset} and {@code len} in bytes of the IP payload. Returns its
     * datagram, or null when the piece is refused (too many pieces, or ends beyond the end).
     */
    Datagram add(ByteBuffer key, int offset, int len, boolean more) {
        piecesHeld++;
        Datagram d = waiting.get(key);
        if (d == null) {
            if (waiting.size() >= MAX_DATAGRAMS) {
                Iterator<Datagram> oldest = waiting.values().iterator();
                oldest.next();
                oldest.remove();
            }
            d = new Datagram();
            waiting.put(key, d);
        }
        int end = offset + len;
        if (d.pieces == MAX_PIECES || (d.length >= 0 && end > d.length) || (!more && d.length >= 0 && d.length != end)) {
            waiting.remove(key);
            return null;
        }
        d.ranges[2 * d.pieces] = offset;
        d.ranges[2 * d.pieces + 1] = end;
        d.pieces++;
        if (!more) {
            d.length = end;
        }
        return d;
    }

    /** The datagram became a packet: its pieces are no longer skipped ones. */
    void done(ByteBuffer key, Datagram d) {
        waiting.remove(key);
        piecesHeld -= d.pieces;
    }

    long piecesNotReassembled() {
        return piecesHeld;
    }

    /** The table key: IP version, addresses and the datagram's identification. */
    static ByteBuffer key(byte[] buf, int srcOff, int addrLen, long id) {
        ByteBuffer k = ByteBuffer.allocate(1 + 2 * addrLen + 8);
        k.put((byte) addrLen).put(buf, srcOff, 2 * addrLen).putLong(id);
        return k.flip();
    }
}
