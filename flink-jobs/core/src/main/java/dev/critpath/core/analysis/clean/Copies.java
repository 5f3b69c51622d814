package dev.critpath.core.analysis.clean;

import java.util.Arrays;

/**
 * Drops the copies of packets captured more than once: an open-addressing table of the latest kept
 * packet of each identity (direction, sequence, ACK, length, flags, window, IP id, TCP
 * timestamps), since every packet of every connection goes through it. One table per thread,
 * kept from one connection to the next and cleared for it: clearing runs through the part the
 * connection uses in order, which also brings it into the cache for the lookups that follow.
 */
final class Copies {
    private static final ThreadLocal<Copies> OF_THREAD = ThreadLocal.withInitial(Copies::new);
    /** A table of more slots than this (about two per packet) is made for its connection alone, not kept. */
    private static final int MAX_KEPT_SLOTS = 1 << 20;

    /** Per slot, 1 + where its packet was kept; 0 when free. */
    private int[] slots = new int[0];
    private int mask;
    private Packet[] kept;

    /**
     * Keeps the first copy of each packet of pkts[0..n) (in time order), moved to the front of the
     * array in order; a later copy is dropped when it comes within the window of the latest kept
     * one: duplicateWindowUs with an IP id or TCP timestamp (retransmissions get new ones), else
     * 1 ms (no retransmission timer is that fast).
     *
     * @return how many were kept
     */
    static int keepFirst(Packet[] pkts, int n, long duplicateWindowUs) {
        Copies seen = emptiedFor(n);
        seen.kept = pkts;
        int kept = 0;
        for (int i = 0; i < n; i++) {
            Packet p = pkts[i];
            int slot = seen.slotOf(p);
            boolean strongIdentity = p.ipId > 0 || p.tsval >= 0;
            if (seen.slots[slot] != 0 && p.ts - seen.keptIn(slot).ts <= (strongIdentity ? duplicateWindowUs : 1_000)) {
                continue; // measured from the first copy
            }
            seen.slots[slot] = kept + 1;
            pkts[kept++] = p;
        }
        seen.kept = null;
        return kept;
    }

    /** This thread's table, emptied for n packets at most half full; a fresh one past the size worth keeping. */
    private static Copies emptiedFor(int n) {
        int capacity = Integer.highestOneBit(Math.max(4, n * 2 - 1)) << 1;
        Copies seen = capacity > MAX_KEPT_SLOTS ? new Copies() : OF_THREAD.get();
        if (seen.slots.length < capacity) {
            seen.slots = new int[capacity];
        } else {
            Arrays.fill(seen.slots, 0, capacity, 0);
        }
        seen.mask = capacity - 1;
        return seen;
    }

    /** The slot holding p's identity, or the free slot where it would go. */
    private int slotOf(Packet p) {
        long h = p.seq * 31 + p.ack;
        h = h * 31 + p.len;
        h = h * 31 + p.ipId;
        h = h * 31 + p.tsval;
        int i = (int) (h ^ (h >>> 29) ^ (h >>> 47)) & mask;
        while (slots[i] != 0 && !sameIdentity(keptIn(i), p)) {
            i = (i + 1) & mask;
        }
        return i;
    }

    private Packet keptIn(int slot) {
        return kept[slots[slot] - 1];
    }

    private static boolean sameIdentity(Packet a, Packet b) {
        return a.c2s == b.c2s && a.seq == b.seq && a.ack == b.ack && a.len == b.len && a.flags == b.flags && a.win == b.win
                && a.ipId == b.ipId && a.tsval == b.tsval && a.tsecr == b.tsecr;
    }
}
