package dev.critpath.core.analysis.clean;

/**
 * The latest kept packet of each identity (direction, sequence, ACK, length, flags, window, IP id,
 * TCP timestamps): an open-addressing table, since every packet of every
 * connection goes through it.
 */
final class Copies {
    private final Packet[] pkts;
    private final int mask;

    Copies(int expected) {
        int capacity = Integer.highestOneBit(Math.max(4, expected * 2 - 1)) << 1;
        pkts = new Packet[capacity];
        mask = capacity - 1;
    }

    /** The slot holding p's identity, or the empty slot where it would go. */
    int slotOf(Packet p) {
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

    void put(int slot, Packet p) {
        pkts[slot] = p;
    }

    private static boolean sameIdentity(Packet a, Packet b) {
        return a.c2s == b.c2s && a.seq == b.seq && a.ack == b.ack && a.len == b.len && a.flags == b.flags && a.win == b.win
                && a.ipId == b.ipId && a.tsval == b.tsval && a.tsecr == b.tsecr;
    }
}
