package dev.critpath.core.analysis;

import dev.critpath.core.event.SensorRole;
import dev.critpath.core.event.TcpFlags;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Puts every transmission of a connection on the client's timeline: which sensor sits where,
 * which packet at one sensor is which packet at the other, the clock offset between them (from
 * the minimum one-way delays in both directions), and estimates for times no sensor saw.
 */
final class Timeline {
    /** Which sensors the connection was seen by. */
    enum Mode {
        TWO_POINT, CLIENT_SIDE, SERVER_SIDE;

        String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    final Mode mode;
    final List<Tx> txs;
    final SensorView clientView;
    final SensorView serverView;
    /** Server sensor clock minus client sensor clock (two-point), µs. */
    long clockOffsetUs;
    /** Half-width of the interval the offset must lie in whatever the path asymmetry. */
    long clockOffsetUncertaintyUs = -1;
    /** False when one direction had no packet seen by both sensors: the offset is a guess. */
    boolean clockOffsetReliable = true;
    /** Minimum one-way delay per direction on the unified timeline (single sensor: half the min RTT). */
    long minOwdC2s = -1;
    long minOwdS2c = -1;
    /** Minimum round trip through the sensors, µs. */
    long minRttUs = -1;
    /** Transmissions whose departure or arrival is estimated because a capture missed it. */
    int captureGaps;
    int lostBetweenSensorsC2s;
    int lostBetweenSensorsS2c;

    private Timeline(Mode mode, List<Tx> txs, SensorView clientView, SensorView serverView) {
        this.mode = mode;
        this.txs = txs;
        this.clientView = clientView;
        this.serverView = serverView;
    }

    /** True when this endpoint's own events are estimates (single-sensor mode, remote end). */
    boolean remote(boolean clientEndpoint) {
        return (mode == Mode.SERVER_SIDE && clientEndpoint) || (mode == Mode.CLIENT_SIDE && !clientEndpoint);
    }

    static Timeline build(List<SensorView> views, AnalysisConfig cfg) {
        if (views.isEmpty()) {
            throw new IllegalArgumentException("a connection needs packets from at least one sensor");
        }
        assignRoles(views, cfg);
        if (views.size() == 1) {
            return singleSensor(views.get(0));
        }
        SensorView client = views.get(0).role == SensorRole.CLIENT ? views.get(0) : views.get(1);
        SensorView server = client == views.get(0) ? views.get(1) : views.get(0);
        return twoPoint(client, server);
    }

    // ---------------------------------------------------------------- sensor roles

    private static void assignRoles(List<SensorView> views, AnalysisConfig cfg) {
        if (views.size() > 2) {
            throw new IllegalArgumentException("a connection seen by " + views.size() + " sensors; at most two (client and server side) are supported");
        }
        SensorRole[] hints = new SensorRole[views.size()];
        for (int i = 0; i < views.size(); i++) {
            SensorView v = views.get(i);
            SensorRole h = cfg.sensorRoles.getOrDefault(v.sensor, v.hint);
            hints[i] = h == null ? SensorRole.UNKNOWN : h;
        }
        if (views.size() == 1) {
            SensorView v = views.get(0);
            v.role = hints[0] != SensorRole.UNKNOWN ? hints[0] : nearClientScore(v) < 0 ? SensorRole.CLIENT : SensorRole.SERVER;
            return;
        }
        SensorView a = views.get(0);
        SensorView b = views.get(1);
        boolean aClient;
        if (hints[0] != SensorRole.UNKNOWN && hints[0] != hints[1]) {
            aClient = hints[0] == SensorRole.CLIENT;
        } else if (hints[1] != SensorRole.UNKNOWN && hints[0] == SensorRole.UNKNOWN) {
            aClient = hints[1] == SensorRole.SERVER;
        } else {
            aClient = nearClientScore(a) <= nearClientScore(b);
        }
        a.role = aClient ? SensorRole.CLIENT : SensorRole.SERVER;
        b.role = aClient ? SensorRole.SERVER : SensorRole.CLIENT;
    }

    /**
     * Negative near the client: the client's turnaround (server packet -> client packet acking it)
     * is short there and the server's long, and the other way round near the server.
     */
    private static double nearClientScore(SensorView v) {
        long clientTurn = minTurnaround(v.pkts, false);
        long serverTurn = minTurnaround(v.pkts, true);
        if (clientTurn == Long.MAX_VALUE || serverTurn == Long.MAX_VALUE) {
            return 0;
        }
        return clientTurn - (double) serverTurn;
    }

    /** Minimum time from a packet of direction fromC2s to the first reply acknowledging it. */
    private static long minTurnaround(List<Pkt> pkts, boolean fromC2s) {
        ArrayDeque<Pkt> pending = new ArrayDeque<>();
        long best = Long.MAX_VALUE;
        for (Pkt p : pkts) {
            if (p.c2s == fromC2s) {
                if (p.carriesSeqSpace()) {
                    pending.addLast(p);
                }
            } else if (p.has(TcpFlags.ACK)) {
                Pkt latest = null;
                while (!pending.isEmpty() && pending.peekFirst().end() <= p.ack) {
                    latest = pending.pollFirst();
                }
                if (latest != null) {
                    best = Math.min(best, p.ts - latest.ts);
                }
            }
        }
        return best;
    }

    // ---------------------------------------------------------------- single sensor

    private static Timeline singleSensor(SensorView v) {
        boolean atClient = v.role == SensorRole.CLIENT;
        long minRtt = minRoundTrip(v.pkts, atClient);
        long half = minRtt == Long.MAX_VALUE ? 1 : Math.max(1, minRtt / 2); // network arcs must take time
        List<Tx> txs = new ArrayList<>(v.pkts.size());
        for (Pkt p : v.pkts) {
            Tx t = new Tx(txs.size(), p);
            boolean leavesHere = p.c2s == atClient;
            if (leavesHere) {
                t.dep = p.ts;
                t.arr = p.ts + half;
                t.arrEstimated = true;
            } else {
                t.arr = p.ts;
                t.dep = p.ts - half;
                t.depEstimated = true;
            }
            txs.add(t);
        }
        Timeline tl = new Timeline(atClient ? Mode.CLIENT_SIDE : Mode.SERVER_SIDE, txs,
                atClient ? v : null, atClient ? null : v);
        tl.minRttUs = minRtt == Long.MAX_VALUE ? -1 : minRtt;
        tl.minOwdC2s = half;
        tl.minOwdS2c = half;
        tl.finish();
        return tl;
    }

    /** Minimum time from a locally sent packet to the first local arrival acknowledging it. */
    private static long minRoundTrip(List<Pkt> pkts, boolean atClient) {
        return minTurnaround(pkts, atClient);
    }

    // ---------------------------------------------------------------- two sensors

    private static Timeline twoPoint(SensorView client, SensorView server) {
        List<Tx> txs = new ArrayList<>(client.pkts.size() + server.pkts.size());
        Matching c2s = Matching.match(client.pkts, server.pkts, true);
        Matching s2c = Matching.match(server.pkts, client.pkts, false);
        // offset from strong matches only: a wrong weak match could fake a small delay
        long minCs = c2s.minDelay();
        long minSc = s2c.minDelay();
        Timeline tl = new Timeline(Mode.TWO_POINT, txs, client, server);
        long theta;
        if (minCs != Long.MAX_VALUE && minSc != Long.MAX_VALUE) {
            theta = Math.floorDiv(minCs - minSc, 2);
            tl.clockOffsetUncertaintyUs = Math.floorDiv(minCs + minSc + 1, 2);
        } else if (minCs != Long.MAX_VALUE) {
            theta = minCs; // one direction only: assume the smallest delay is zero
            tl.clockOffsetReliable = false;
        } else if (minSc != Long.MAX_VALUE) {
            theta = -minSc;
            tl.clockOffsetReliable = false;
        } else {
            theta = 0;
            tl.clockOffsetReliable = false;
        }
        tl.clockOffsetUs = theta;
        c2s.weakMatch(theta);
        s2c.weakMatch(-theta);
        c2s.emit(txs, 0, -theta);
        s2c.emit(txs, -theta, 0);
        tl.minOwdC2s = minObservedOwd(txs, true);
        tl.minOwdS2c = minObservedOwd(txs, false);
        tl.minRttUs = tl.minOwdC2s >= 0 && tl.minOwdS2c >= 0 ? tl.minOwdC2s + tl.minOwdS2c : -1;
        tl.fillGaps();
        tl.finish();
        return tl;
    }

    private static long minObservedOwd(List<Tx> txs, boolean c2s) {
        long best = Long.MAX_VALUE;
        for (Tx t : txs) {
            if (t.c2s() == c2s && t.dep != Tx.NONE && t.arr != Tx.NONE) {
                best = Math.min(best, t.arr - t.dep);
            }
        }
        return best == Long.MAX_VALUE ? -1 : best;
    }

    /**
     * Estimates what one sensor missed. A packet only the receiver's sensor saw left the sender
     * one minimum delay earlier (the sender's sensor dropped it). A packet only the sender's sensor
     * saw was lost in between, unless the receiver acknowledged its bytes although no other copy
     * of them arrived: then the receiver's sensor dropped it.
     */
    private void fillGaps() {
        for (Tx t : txs) {
            long owd = t.c2s() ? Math.max(minOwdC2s, 1) : Math.max(minOwdS2c, 1);
            if (t.dep == Tx.NONE && t.arr != Tx.NONE) {
                t.dep = t.arr - owd;
                t.depEstimated = true;
                captureGaps++;
            }
        }
        for (boolean dir : new boolean[] {true, false}) {
            long maxAckByReceiver = Long.MIN_VALUE;
            for (Tx t : txs) {
                if (t.c2s() != dir && t.has(TcpFlags.ACK) && !t.depEstimated && t.dep != Tx.NONE) {
                    maxAckByReceiver = Math.max(maxAckByReceiver, t.p.ack);
                }
            }
            for (Tx t : txs) {
                if (t.c2s() != dir || t.arr != Tx.NONE || !t.p.carriesSeqSpace()) {
                    continue;
                }
                if (t.end() <= maxAckByReceiver && !anotherCopyArrived(t)) {
                    t.arr = t.dep + (dir ? Math.max(minOwdC2s, 1) : Math.max(minOwdS2c, 1));
                    t.arrEstimated = true;
                    captureGaps++;
                } else if (dir) {
                    lostBetweenSensorsC2s++;
                } else {
                    lostBetweenSensorsS2c++;
                }
            }
        }
    }

    /** Any other arrival carrying some of the same bytes (re-sends may be cut into smaller pieces). */
    private boolean anotherCopyArrived(Tx lost) {
        for (Tx t : txs) {
            if (t != lost && t.c2s() == lost.c2s() && t.arr != Tx.NONE && t.seq() < lost.end() && t.end() > lost.seq()) {
                return true;
            }
        }
        return false;
    }

    /** Orders transmissions by their earliest known time and numbers them. */
    private void finish() {
        txs.sort(Comparator.comparingLong(Timeline::sortTime));
        for (int i = 0; i < txs.size(); i++) {
            txs.get(i).idx = i;
        }
        markNewAtReceiver(true);
        markNewAtReceiver(false);
    }

    private static long sortTime(Tx t) {
        return t.dep != Tx.NONE ? t.dep : t.arr;
    }

    /** Flags the arrivals that brought the receiver bytes it did not have yet. */
    private void markNewAtReceiver(boolean dir) {
        List<Tx> arrivals = new ArrayList<>();
        for (Tx t : txs) {
            if (t.c2s() == dir && t.arr != Tx.NONE && t.p.carriesSeqSpace()) {
                arrivals.add(t);
            }
        }
        arrivals.sort(Comparator.comparingLong(t -> t.arr));
        ReceivedBytes got = new ReceivedBytes();
        for (Tx t : arrivals) {
            t.newAtReceiver = got.add(t.seq(), t.end());
        }
    }

    // ---------------------------------------------------------------- matching

    /** Pairs one direction's departures (sender-side sensor) with its arrivals (receiver-side sensor). */
    private static final class Matching {
        final List<Pkt> deps = new ArrayList<>();
        final List<Pkt> arrs = new ArrayList<>();
        final int[] depToArr;
        final int[] arrToDep;
        final boolean[] strong;

        private Matching(List<Pkt> senderSide, List<Pkt> receiverSide, boolean c2s) {
            for (Pkt p : senderSide) {
                if (p.c2s == c2s) {
                    deps.add(p);
                }
            }
            for (Pkt p : receiverSide) {
                if (p.c2s == c2s) {
                    arrs.add(p);
                }
            }
            depToArr = new int[deps.size()];
            arrToDep = new int[arrs.size()];
            strong = new boolean[arrs.size()];
            java.util.Arrays.fill(depToArr, -1);
            java.util.Arrays.fill(arrToDep, -1);
        }

        static Matching match(List<Pkt> senderSide, List<Pkt> receiverSide, boolean c2s) {
            Matching m = new Matching(senderSide, receiverSide, c2s);
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
         * arrival takes the latest unmatched departure of the same bytes that left before it.
         * arrShift converts receiver-sensor time to sender-sensor time.
         */
        void weakMatch(long arrShift) {
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
                long arrivalOnSenderClock = arrs.get(j).ts - arrShift;
                int best = -1;
                for (int i : cands) {
                    if (depToArr[i] < 0 && deps.get(i).ts < arrivalOnSenderClock && (best < 0 || deps.get(i).ts > deps.get(best).ts)) {
                        best = i;
                    }
                }
                if (best >= 0) {
                    link(best, j, false);
                }
            }
        }

        /** Adds one Tx per departure (matched or not) and per unmatched arrival. */
        void emit(List<Tx> out, long depShift, long arrShift) {
            for (int i = 0; i < deps.size(); i++) {
                Tx t = new Tx(out.size(), deps.get(i));
                t.dep = deps.get(i).ts + depShift;
                if (depToArr[i] >= 0) {
                    t.arr = arrs.get(depToArr[i]).ts + arrShift;
                }
                out.add(t);
            }
            for (int j = 0; j < arrs.size(); j++) {
                if (arrToDep[j] < 0) {
                    Tx t = new Tx(out.size(), arrs.get(j));
                    t.arr = arrs.get(j).ts + arrShift;
                    out.add(t);
                }
            }
        }
    }

    /** Fields a packet keeps from one sensor to the other, including its IP id and timestamp. */
    private record StrongKey(long seq, int len, int ctl, long ack, int ipId, long tsval) {
        StrongKey(Pkt p) {
            this(p.seq, p.len, p.flags & (TcpFlags.SYN | TcpFlags.FIN | TcpFlags.RST), p.ack, p.ipId, p.tsval);
        }

        @Override
        public int hashCode() {
            return Objects.hash(seq, len, ack, ipId, tsval);
        }
    }

    private record WeakKey(long seq, int len, int ctl, long ackIfPure) {
        WeakKey(Pkt p) {
            // pure ACKs are told apart by what they acknowledge, data by its bytes; a SYN by its
            // sequence number alone, as anonymisers have been seen to rewrite its IP length
            this(p.seq, p.has(TcpFlags.SYN) ? -1 : p.len, p.flags & (TcpFlags.SYN | TcpFlags.FIN | TcpFlags.RST),
                    p.len == 0 && !p.has(TcpFlags.SYN) ? p.ack : -1);
        }
    }
}
