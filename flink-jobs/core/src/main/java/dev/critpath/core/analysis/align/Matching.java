package dev.critpath.core.analysis.align;

import dev.critpath.core.analysis.Direction;
import dev.critpath.core.analysis.clean.Packet;
import dev.critpath.core.event.TcpFlags;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongUnaryOperator;

/** Pairs one direction's departures (sender-side sensor) with its arrivals (receiver-side sensor). */
final class Matching {
    final List<Packet> deps = new ArrayList<>();
    final List<Packet> arrs = new ArrayList<>();
    final int[] depToArr;
    final int[] arrToDep;
    final boolean[] strong;
    private final Direction direction;

    private Matching(List<Packet> senderSide, List<Packet> receiverSide, Direction direction) {
        this.direction = direction;
        boolean c2s = direction == Direction.C2S;
        for (Packet p : senderSide) {
            if (p.c2s == c2s) {
                deps.add(p);
            }
        }
        for (Packet p : receiverSide) {
            if (p.c2s == c2s) {
                arrs.add(p);
            }
        }
        depToArr = new int[deps.size()];
        arrToDep = new int[arrs.size()];
        strong = new boolean[arrs.size()];
        Arrays.fill(depToArr, -1);
        Arrays.fill(arrToDep, -1);
    }

    static Matching match(List<Packet> senderSide, List<Packet> receiverSide, Direction direction) {
        Matching m = new Matching(senderSide, receiverSide, direction);
        Map<StrongKey, ArrayDeque<Integer>> byKey = new HashMap<>();
        for (int i = 0; i < m.deps.size(); i++) {
            byKey.computeIfAbsent(new StrongKey(m.deps.get(i)), k -> new ArrayDeque<>()).addLast(i);
        }
        for (int j = 0; j < m.arrs.size(); j++) {
            ArrayDeque<Integer> q = byKey.get(new StrongKey(m.arrs.get(j)));
            if (q != null && !q.isEmpty()) {
                int i = q.pollFirst();
                m.link(i, j, true);
            }
        }
        return m;
    }

    private void link(int dep, int arr, boolean isStrong) {
        depToArr[dep] = arr;
        arrToDep[arr] = dep;
        strong[arr] = isStrong;
    }

    /**
     * Strong matches as {client-sensor time, raw delay}: for c2s the departure time and
     * arrival - departure; for s2c the arrival time and arrival - departure.
     */
    List<long[]> strongPairs() {
        boolean senderIsClientSensor = direction == Direction.C2S;
        List<long[]> out = new ArrayList<>();
        for (int j = 0; j < arrs.size(); j++) {
            if (arrToDep[j] >= 0 && strong[j]) {
                long dep = deps.get(arrToDep[j]).ts;
                long arr = arrs.get(j).ts;
                out.add(new long[] {senderIsClientSensor ? dep : arr, arr - dep});
            }
        }
        return out;
    }

    /** Smallest (arrival - departure) over strong matches, on the raw sensor clocks. */
    long minDelay() {
        long best = Long.MAX_VALUE;
        for (int j = 0; j < arrs.size(); j++) {
            if (arrToDep[j] >= 0 && strong[j]) {
                best = Math.min(best, arrs.get(j).ts - deps.get(arrToDep[j]).ts);
            }
        }
        return best;
    }

    /**
     * Matches the rest by sequence range alone (IP ids rewritten, offload pieces): each
     * arrival takes the latest unmatched departure of the same bytes that left before it,
     * compared on the client's timeline.
     */
    void weakMatch(LongUnaryOperator serverToClient) {
        boolean senderIsServer = direction == Direction.S2C;
        Map<WeakKey, List<Integer>> byKey = new HashMap<>();
        for (int i = 0; i < deps.size(); i++) {
            if (depToArr[i] < 0) {
                byKey.computeIfAbsent(new WeakKey(deps.get(i)), k -> new ArrayList<>()).add(i);
            }
        }
        for (int j = 0; j < arrs.size(); j++) {
            if (arrToDep[j] >= 0) {
                continue;
            }
            List<Integer> cands = byKey.get(new WeakKey(arrs.get(j)));
            if (cands == null) {
                continue;
            }
            long arrival = senderIsServer ? arrs.get(j).ts : serverToClient.applyAsLong(arrs.get(j).ts);
            int best = -1;
            for (int i : cands) {
                long dep = senderIsServer ? serverToClient.applyAsLong(deps.get(i).ts) : deps.get(i).ts;
                if (depToArr[i] < 0 && dep < arrival && (best < 0 || deps.get(i).ts > deps.get(best).ts)) {
                    best = i;
                }
            }
            if (best >= 0) {
                link(best, j, false);
            }
        }
    }

    /** Adds one Tx per departure (matched or not) and per unmatched arrival, on the client's timeline. */
    void emit(List<Tx> out, LongUnaryOperator depClock, LongUnaryOperator arrClock) {
        for (int i = 0; i < deps.size(); i++) {
            Tx t = new Tx(out.size(), deps.get(i));
            t.departed(depClock.applyAsLong(deps.get(i).ts), false);
            if (depToArr[i] >= 0) {
                t.arrived(arrClock.applyAsLong(arrs.get(depToArr[i]).ts), false);
                t.seenArriving(arrs.get(depToArr[i]));
            }
            out.add(t);
        }
        for (int j = 0; j < arrs.size(); j++) {
            if (arrToDep[j] < 0) {
                Tx t = new Tx(out.size(), arrs.get(j));
                t.arrived(arrClock.applyAsLong(arrs.get(j).ts), false);
                t.seenArriving(arrs.get(j));
                out.add(t);
            }
        }
    }

    /** Fields a packet keeps from one sensor to the other, including its IP id and timestamp. */
    private record StrongKey(long seq, int len, int ctl, long ack, int ipId, long tsval) {
        StrongKey(Packet p) {
            this(p.seq, p.len, p.flags & (TcpFlags.SYN | TcpFlags.FIN | TcpFlags.RST), p.ack, p.ipId, p.tsval);
        }

        @Override
        public int hashCode() {
            return Objects.hash(seq, len, ack, ipId, tsval);
        }
    }

    private record WeakKey(long seq, int len, int ctl, long ackIfPure) {
        WeakKey(Packet p) {
            // pure ACKs are told apart by what they acknowledge, data by its bytes; a SYN by its
            // sequence number alone, as anonymisers have been seen to rewrite its IP length
            this(p.seq, p.has(TcpFlags.SYN) ? -1 : p.len, p.flags & (TcpFlags.SYN | TcpFlags.FIN | TcpFlags.RST),
                    p.len == 0 && !p.has(TcpFlags.SYN) ? p.ack : -1);
        }
    }
}
