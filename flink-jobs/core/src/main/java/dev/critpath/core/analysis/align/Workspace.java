package dev.critpath.core.analysis.align;

/**
 * One thread's working arrays for aligning a connection, kept for its next one: they grow to the
 * largest connection the thread has aligned, so aligning allocates the transmissions themselves and
 * little else. Nothing in them outlives the alignment that filled them; what an array returned here
 * holds at first is left over from the connection before.
 */
final class Workspace {
    private static final ThreadLocal<Workspace> OF_THREAD = ThreadLocal.withInitial(Workspace::new);
    /** Entries past which an array is let go for a smaller connection rather than kept. */
    static final int MAX_KEPT = 1 << 18;

    /** Transmissions by time (the timeline's order), then arrivals at the server by time. */
    final KeyedIndices byTime = new KeyedIndices();
    /** Arrivals at the client by time. */
    final KeyedIndices arrivals = new KeyedIndices();
    /** The local end's stamped packets by timestamp (see {@link TimestampEchoes}). */
    final KeyedIndices stamps = new KeyedIndices();
    /** The local end's packets by where they end. */
    final KeyedIndices ends = new KeyedIndices();
    /** The remote end's departures by the timestamp they echo. */
    final KeyedIndices echoes = new KeyedIndices();
    private int[] order = new int[0];
    private int[] firstCarriers = new int[0];
    private long[] latestUpTo = new long[0];
    private long[] earliestFrom = new long[0];
    private int[] pending = new int[0];
    private long[] firstSeqs = new long[0];

    /**
     * The thread's workspace for a connection of n packets; one of its own, let go after it, for
     * more than MAX_KEPT (a thread keeps no huge arrays for the small connections after).
     */
    static Workspace forPackets(int n) {
        return n > MAX_KEPT ? new Workspace() : OF_THREAD.get();
    }

    /** Per place in the timeline's order, the transmission that goes there. */
    int[] order(int n) {
        order = sized(order, n);
        return order;
    }

    /** Per packet, the first local packet carrying its stamp (see {@link TimestampEchoes}). */
    int[] firstCarriers(int n) {
        firstCarriers = sized(firstCarriers, n);
        return firstCarriers;
    }

    /** Per echo, the latest departure echoing no more (see {@link TimestampEchoes}). */
    long[] latestUpTo(int n) {
        latestUpTo = sized(latestUpTo, n);
        return latestUpTo;
    }

    /** Per echo, the earliest departure echoing at least as much. */
    long[] earliestFrom(int n) {
        earliestFrom = sized(earliestFrom, n);
        return earliestFrom;
    }

    /** Packets waiting for their acknowledgement (see {@link SensorRoles#minTurnaround}). */
    int[] pending(int n) {
        pending = sized(pending, n);
        return pending;
    }

    /** Sequence numbers sent for the first time, ascending. */
    long[] firstSeqs(int n) {
        firstSeqs = sized(firstSeqs, n);
        return firstSeqs;
    }

    private static long[] sized(long[] a, int n) {
        return fits(a.length, n) ? a : new long[capacity(a.length, n)];
    }

    private static int[] sized(int[] a, int n) {
        return fits(a.length, n) ? a : new int[capacity(a.length, n)];
    }

    /** An array this long serves n entries and is worth keeping after them. */
    static boolean fits(int length, int n) {
        return length >= n && (length <= MAX_KEPT || n > MAX_KEPT);
    }

    /** The length for n entries in place of one this long: doubling, so that growing connections seldom reallocate. */
    static int capacity(int length, int n) {
        return n > MAX_KEPT ? n : Math.min(MAX_KEPT, Math.max(n, 2 * length));
    }
}
