package dev.critpath.core.lifecycle;

import dev.critpath.core.event.PacketEvent;
import java.util.AbstractList;
import java.util.Arrays;
import java.util.RandomAccess;
import java.util.function.Consumer;

/**
 * A flow's buffered events in arrays of numbers: what a connection holds until it is analysed
 * lives as long as the connection, and as objects (an event and its list slot, some 150 bytes
 * full of references) it is what the collector copies and traces over and over. Packed, an event
 * is 52 bytes the collector moves without looking into. The names and addresses an event shares
 * with the flow's others are kept once per sensor; an event that carries SACK blocks, or a value
 * outside the schema's ranges, is kept as it came. Reading gives equal events back, in order.
 */
final class PackedEvents extends AbstractList<PacketEvent> implements RandomAccess {
    private static final int LONGS = 2;
    private static final int INTS = 9;
    private static final long U32_MAX = 0xffff_ffffL;
    /** A flow has one per sensor and orientation: more (crafted input) are kept as they came, not searched. */
    private static final int MAX_IDENTITIES = 64;
    // bits of the meta word
    private static final int WSCALE_SHIFT = 8;
    private static final int IS_ORIG = 1 << 17;
    private static final int SACK_OK_SHIFT = 18;
    private static final int ABSENT_SHIFT = 20;

    /**
     * Events go into chunks of 4 (a handshake: what each of a flood's connections holds), then 16,
     * 32, ... 256 events, then 256 each: nothing is copied as a flow grows (copying 52 bytes an
     * event, a big flow's growth cost more than the collector saved), and a flow of more than 20
     * events leaves at most half its last chunk unused.
     */
    private static final int HANDSHAKE = 4;
    private static final int FIRST_CHUNK_BITS = 4;
    private static final int LAST_CHUNK_BITS = 8;
    private static final int GROWING_CHUNKS = LAST_CHUNK_BITS - FIRST_CHUNK_BITS + 1;
    /** Events in the growing chunks together. */
    private static final int IN_GROWING_CHUNKS = (1 << FIRST_CHUNK_BITS) * ((1 << GROWING_CHUNKS) - 1);

    private final ChunkPool pool;
    /** Per event: ts, capture index. */
    private long[][] longs = new long[1 + GROWING_CHUNKS][];
    /** Per event: seq, ack, tsval, tsecr (32 bits each), len, mss, win | identity << 16, ip id + 1 | (ttl + 1) << 17, meta. */
    private int[][] ints = new int[1 + GROWING_CHUNKS][];
    /** The events kept as they came (SACK blocks, values out of range), by index; null until there is one. */
    private PacketEvent[] asTheyCame;
    /** What events share with their flow's others, one per sensor (and orientation): the first event that had it. */
    private PacketEvent[] identities = new PacketEvent[1];
    private int identityCount;
    private int size;
    /** The chunk the next event goes into, and the indices it starts and ends at: adding locates nothing. */
    private int tailChunk;
    private int tailStart;
    private int tailEnd = HANDSHAKE;

    /** Chunks of its own, not reused. */
    PackedEvents() {
        this(null);
    }

    /** Chunks taken from the pool when it has them, given back by {@link #release()}. */
    PackedEvents(ChunkPool pool) {
        this.pool = pool;
    }

    @Override
    public boolean add(PacketEvent e) {
        int i = size;
        int identity = e.sack() == null ? identityOf(e) : -1;
        int meta = identity < 0 ? -1 : meta(e);
        if (meta < 0) {
            if (asTheyCame == null || asTheyCame.length <= i) {
                asTheyCame = Arrays.copyOf(asTheyCame == null ? new PacketEvent[0] : asTheyCame, i + (i >> 1) + 8);
            }
            asTheyCame[i] = e;
            added();
            return true;
        }
        int chunk = tailChunk;
        if (chunk >= longs.length) { // chunks whose events were all kept as they came are never made
            longs = Arrays.copyOf(longs, Math.max(chunk + 1, longs.length * 2));
            ints = Arrays.copyOf(ints, longs.length);
        }
        if (longs[chunk] == null) {
            if (pool == null || !pool.take(sizeClassOf(chunk), longs, ints, chunk)) {
                longs[chunk] = new long[(tailEnd - tailStart) * LONGS];
                ints[chunk] = new int[(tailEnd - tailStart) * INTS];
            }
        }
        int k = i - tailStart;
        long[] l = longs[chunk];
        l[k * LONGS] = e.tsUs();
        l[k * LONGS + 1] = e.captureIndex();
        int[] w = ints[chunk];
        int at = k * INTS;
        w[at] = (int) e.seq();
        w[at + 1] = (int) e.ack();
        w[at + 2] = (int) e.tsval();
        w[at + 3] = (int) e.tsecr();
        w[at + 4] = e.len();
        w[at + 5] = e.mss();
        w[at + 6] = e.win() | identity << 16;
        w[at + 7] = (e.ipId() + 1) | (e.ttl() + 1) << 17;
        w[at + 8] = meta;
        added();
        return true;
    }

    private void added() {
        size++;
        if (size == tailEnd) {
            tailChunk++;
            tailStart = size;
            tailEnd = size + capacityOf(tailChunk);
        }
    }

    @Override
    public PacketEvent get(int i) {
        if (i < 0 || i >= size) {
            throw new IndexOutOfBoundsException(i);
        }
        int chunk = chunkOf(i);
        return eventAt(i, chunk, offsetOf(i, chunk));
    }

    /** In order, chunk by chunk: what a connection's assembly reads, every event once. */
    @Override
    public void forEach(Consumer<? super PacketEvent> action) {
        int i = 0;
        for (int chunk = 0; i < size; chunk++) {
            int end = Math.min(size, i + capacityOf(chunk));
            for (int k = 0; i < end; i++, k++) {
                action.accept(eventAt(i, chunk, k));
            }
        }
    }

    /** Event i, at place k of its chunk. */
    private PacketEvent eventAt(int i, int chunk, int k) {
        if (asTheyCame != null && i < asTheyCame.length && asTheyCame[i] != null) {
            return asTheyCame[i];
        }
        long[] l = longs[chunk];
        int[] w = ints[chunk];
        int at = k * INTS;
        int meta = w[at + 8];
        int winId = w[at + 6];
        int ipTtl = w[at + 7];
        PacketEvent id = identities[winId >>> 16];
        int sackOk = (meta >>> SACK_OK_SHIFT) & 3;
        return new PacketEvent(id.sensor(), id.sensorRole(), l[k * LONGS], id.communityId(), id.origH(), id.origP(), id.respH(),
                id.respP(), (meta & IS_ORIG) != 0, meta & 0xff, u32(w[at], meta, 0), u32(w[at + 1], meta, 1), w[at + 4],
                winId & 0xffff, ((meta >>> WSCALE_SHIFT) & 0x1ff) - 1, w[at + 5], sackOk == 0 ? null : sackOk == 2,
                null, u32(w[at + 2], meta, 2), u32(w[at + 3], meta, 3), (ipTtl & 0x1ffff) - 1, (ipTtl >>> 17) - 1,
                l[k * LONGS + 1]);
    }

    /**
     * Gives the chunks back to the pool, for flows to come: after this it holds no events (and takes
     * none), and what was read before stays as it was (reading makes new events).
     */
    void release() {
        if (pool != null) {
            for (int chunk = 0; chunk < longs.length; chunk++) {
                if (longs[chunk] != null) {
                    pool.give(sizeClassOf(chunk), longs[chunk], ints[chunk]);
                }
            }
        }
        longs = null;
        ints = null;
        asTheyCame = null;
        size = 0;
    }

    /**
     * Chunks of flows that ended, by size, for flows that begin: a flow's packets live as long as
     * it does, so fresh chunks outlived the collector's first look at them and were copied out of
     * the young generation, a capture's worth of bytes; reused, they stay put. Holds at most
     * {@link #MAX_POOLED_BYTES}; one thread's.
     */
    static final class ChunkPool {
        /** What some thousand connections of a few hundred packets leave; beyond it chunks go to the collector. */
        static final long MAX_POOLED_BYTES = 16L << 20;
        private final long[][][] longs = new long[GROWING_CHUNKS + 1][16][];
        private final int[][][] ints = new int[GROWING_CHUNKS + 1][16][];
        private final int[] counts = new int[GROWING_CHUNKS + 1];
        private long bytes;

        /** Puts a pooled chunk of the size class at {@code chunk}; false when there is none. */
        boolean take(int sizeClass, long[][] toLongs, int[][] toInts, int chunk) {
            int n = counts[sizeClass];
            if (n == 0) {
                return false;
            }
            n--;
            toLongs[chunk] = longs[sizeClass][n];
            toInts[chunk] = ints[sizeClass][n];
            longs[sizeClass][n] = null;
            ints[sizeClass][n] = null;
            counts[sizeClass] = n;
            bytes -= bytesOf(toLongs[chunk], toInts[chunk]);
            return true;
        }

        void give(int sizeClass, long[] l, int[] w) {
            long b = bytesOf(l, w);
            if (bytes + b > MAX_POOLED_BYTES) {
                return;
            }
            int n = counts[sizeClass];
            if (n == longs[sizeClass].length) {
                longs[sizeClass] = Arrays.copyOf(longs[sizeClass], n * 2);
                ints[sizeClass] = Arrays.copyOf(ints[sizeClass], n * 2);
            }
            longs[sizeClass][n] = l;
            ints[sizeClass][n] = w;
            counts[sizeClass] = n + 1;
            bytes += b;
        }

        long bytes() {
            return bytes;
        }

        private static long bytesOf(long[] l, int[] w) {
            return 8L * l.length + 4L * w.length;
        }
    }

    /** Chunks of one size class have one capacity: the handshake's, a growing chunk's, or the last size's. */
    private static int sizeClassOf(int chunk) {
        return Math.min(chunk, GROWING_CHUNKS);
    }

    private static int capacityOf(int chunk) {
        return chunk == 0 ? HANDSHAKE : 1 << Math.min(FIRST_CHUNK_BITS + chunk - 1, LAST_CHUNK_BITS);
    }

    /** The chunk event i is in. */
    private static int chunkOf(int i) {
        if (i < HANDSHAKE) {
            return 0;
        }
        int j = i - HANDSHAKE;
        if (j < IN_GROWING_CHUNKS) {
            return 32 - Integer.numberOfLeadingZeros((j >>> FIRST_CHUNK_BITS) + 1);
        }
        return 1 + GROWING_CHUNKS + ((j - IN_GROWING_CHUNKS) >>> LAST_CHUNK_BITS);
    }

    /** Event i's place in its chunk. */
    private static int offsetOf(int i, int chunk) {
        if (chunk == 0) {
            return i;
        }
        int j = i - HANDSHAKE;
        if (chunk <= GROWING_CHUNKS) {
            return j - (1 << FIRST_CHUNK_BITS) * ((1 << (chunk - 1)) - 1);
        }
        return (j - IN_GROWING_CHUNKS) & ((1 << LAST_CHUNK_BITS) - 1);
    }

    @Override
    public int size() {
        return size;
    }

    /** The meta word, or -1 when a value does not fit the packed words. */
    private static int meta(PacketEvent e) {
        int absent = absent(e.seq(), 0) | absent(e.ack(), 1) | absent(e.tsval(), 2) | absent(e.tsecr(), 3);
        if (absent < 0 || e.flags() < 0 || e.flags() > 0xff || e.wscale() < -1 || e.wscale() > 0xff
                || e.win() < 0 || e.win() > 0xffff || e.ipId() < -1 || e.ipId() > 0xffff || e.ttl() < -1 || e.ttl() > 0xff) {
            return -1;
        }
        int sackOk = e.sackOk() == null ? 0 : e.sackOk() ? 2 : 1;
        return e.flags() | (e.wscale() + 1) << WSCALE_SHIFT | (e.isOrig() ? IS_ORIG : 0) | sackOk << SACK_OK_SHIFT | absent << ABSENT_SHIFT;
    }

    /** Bit k when the 32-bit word is absent, 0 when it fits, negative when it does not. */
    private static int absent(long word, int k) {
        return word == PacketEvent.ABSENT ? 1 << k : word >= 0 && word <= U32_MAX ? 0 : Integer.MIN_VALUE;
    }

    private static long u32(int word, int meta, int k) {
        return (meta >>> (ABSENT_SHIFT + k) & 1) != 0 ? PacketEvent.ABSENT : word & U32_MAX;
    }

    /** The index of the identity the event shares, adding it when new; -1 when there are too many to number. */
    private int identityOf(PacketEvent e) {
        for (int k = identityCount - 1; k >= 0; k--) {
            if (sameIdentity(identities[k], e)) {
                return k;
            }
        }
        if (identityCount == MAX_IDENTITIES) {
            return -1;
        }
        if (identityCount == identities.length) {
            identities = Arrays.copyOf(identities, identityCount * 2);
        }
        identities[identityCount] = e;
        return identityCount++;
    }

    private static boolean sameIdentity(PacketEvent a, PacketEvent b) {
        return a.origP() == b.origP() && a.respP() == b.respP() && a.sensorRole() == b.sensorRole()
                && same(a.sensor(), b.sensor()) && same(a.communityId(), b.communityId()) && same(a.origH(), b.origH())
                && same(a.respH(), b.respH());
    }

    /** One flow's strings are mostly the same objects: equal content is only looked at when they are not. */
    private static boolean same(String a, String b) {
        return a == b || a != null && a.equals(b);
    }
}
