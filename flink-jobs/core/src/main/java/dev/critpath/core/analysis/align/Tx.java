package dev.critpath.core.analysis.align;

import dev.critpath.core.analysis.Direction;
import dev.critpath.core.analysis.InOrder;
import dev.critpath.core.analysis.clean.Packet;
import dev.critpath.core.event.TcpFlags;
import java.util.Arrays;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * One transmission of a packet, seen leaving its sender and/or arriving at its receiver, on the
 * client's timeline. Times that no sensor saw are estimated (and flagged) so the dependence
 * graph stays connected.
 */
public final class Tx {
    public static final long NONE = Long.MIN_VALUE;

    public final Packet p;
    // set only while the timeline is aligned; later steps read them
    private int idx;
    private long dep = NONE;
    private long arr = NONE;
    private boolean depEstimated;
    private boolean arrEstimated;
    private boolean newAtReceiver;
    /** The packet as the receiver's sensor captured it (its own clock), or null when no sensor saw it arrive. */
    private Packet seenArriving;
    /** With one capture, the local transmission this remote one's timestamp echo shows had arrived; null when unknown. */
    private Tx echoNames;

    Tx(int idx, Packet p) {
        this.idx = idx;
        this.p = p;
    }

    /** The transmissions {@code keep} picks, in order of {@code key}; ties keep the timeline's order. */
    public static Tx[] picked(Tx[] txs, Predicate<Tx> keep, ToLongFunction<Tx> key) {
        Tx[] kept = new Tx[txs.length]; // one test per transmission: the tests cost more than the room
        int n = 0;
        for (Tx t : txs) {
            if (keep.test(t)) {
                kept[n++] = t;
            }
        }
        if (n < kept.length) {
            kept = Arrays.copyOf(kept, n);
        }
        InOrder.sortBy(kept, key);
        return kept;
    }

    /** Its place in the timeline's order. */
    public int idx() {
        return idx;
    }

    /** Departure from the sender, µs on the client timeline, or NONE. */
    public long dep() {
        return dep;
    }

    /** Arrival at the receiver, µs on the client timeline, or NONE. */
    public long arr() {
        return arr;
    }

    public boolean depEstimated() {
        return depEstimated;
    }

    public boolean arrEstimated() {
        return arrEstimated;
    }

    /** First arrival of these bytes at the receiver (as opposed to a duplicate). */
    public boolean newAtReceiver() {
        return newAtReceiver;
    }

    void departed(long us, boolean estimated) {
        dep = us;
        depEstimated = estimated;
    }

    void arrived(long us, boolean estimated) {
        arr = us;
        arrEstimated = estimated;
    }

    /** An estimated arrival a later step shows was no later than {@code us} (never before its departure). */
    public void arrivedBy(long us) {
        if (arrEstimated && us < arr) {
            arr = Math.max(us, dep + 1);
        }
    }

    /** The copy the receiver's sensor captured, its time on that sensor's own clock; null when none was. */
    public Packet seenArriving() {
        return seenArriving;
    }

    void seenArriving(Packet atReceiver) {
        seenArriving = atReceiver;
    }

    /**
     * With one capture, the first local transmission carrying the timestamp this remote one echoes
     * (see {@link TimestampEchoes}): it had reached the remote end when this left, and none sent
     * after it with a later timestamp had; null when unknown.
     */
    public Tx echoNames() {
        return echoNames;
    }

    void echoNames(Tx named) {
        echoNames = named;
    }

    void numbered(int index) {
        idx = index;
    }

    void newAtReceiver(boolean isNew) {
        newAtReceiver = isNew;
    }

    public boolean c2s() {
        return p.c2s;
    }

    public Direction direction() {
        return Direction.of(p.c2s);
    }

    public long seq() {
        return p.seq;
    }

    public long end() {
        return p.end();
    }

    public boolean has(int bit) {
        return p.has(bit);
    }

    public boolean isData() {
        return p.len > 0;
    }

    public boolean isPureAck() {
        return p.len == 0 && (p.flags & (TcpFlags.SYN | TcpFlags.FIN | TcpFlags.RST)) == 0;
    }

    @Override
    public String toString() {
        return "#" + idx + " " + (c2s() ? "C>S " : "S>C ") + TcpFlags.letters(p.flags) + " " + p.seq + ":" + end()
                + " ack " + p.ack + " len " + p.len + " dep " + (dep == NONE ? "-" : dep) + " arr " + (arr == NONE ? "-" : arr)
                + (newAtReceiver ? " new" : "");
    }
}
