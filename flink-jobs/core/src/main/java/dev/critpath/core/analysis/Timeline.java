package dev.critpath.core.analysis;

import dev.critpath.core.analysis.clean.Packet;
import dev.critpath.core.analysis.clean.SensorView;
import dev.critpath.core.event.TcpFlags;
import java.util.ArrayDeque;
import java.util.ArrayList;
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
    final CaptureMode mode;
    final List<Tx> txs;
    final SensorView clientView;
    final SensorView serverView;
    /** Server sensor clock minus client sensor clock (two-point), µs. */
    long clockOffsetUs;
    /** Half-width of the interval the offset must lie in whatever the path asymmetry. */
    long clockOffsetUncertaintyUs = -1;
    /** False when one direction had no packet seen by both sensors: the offset is a guess or a hint. */
    boolean clockOffsetReliable = true;
    /** The offset is the sensor pair's from earlier connections, this one could not tell its own. */
    boolean clockOffsetFromPair;
    /** How fast the server sensor's clock gains on the client sensor's, µs per second (0 when not measurable). */
    double clockDriftPpm;
    /** Client-sensor time at which clockOffsetUs holds exactly; the offset moves by the drift from there. */
    private long driftEpochUs;
    /** Minimum one-way delay per direction on the unified timeline (single sensor: half the min RTT). */
    long minOwdC2s = -1;
    long minOwdS2c = -1;
    /** Minimum round trip through the sensors, µs. */
    long minRttUs = -1;
    /** Transmissions whose departure or arrival is estimated because a capture missed it. */
    int captureGaps;
    int lostBetweenSensorsC2s;
    int lostBetweenSensorsS2c;

    private Timeline(CaptureMode mode, List<Tx> txs, SensorView clientView, SensorView serverView) {
        this.mode = mode;
        this.txs = txs;
        this.clientView = clientView;
        this.serverView = serverView;
    }

    /**
     * @param prior what earlier connections on the path knew: its clock offset stands in when this
     *              connection cannot tell its own, its one-way delays when no packet of a direction
     *              was seen by both sensors
     */
    static Timeline build(List<SensorView> views, AnalysisConfig cfg, PathPrior prior) {
        if (views.isEmpty()) {
            throw new IllegalArgumentException("a connection needs packets from at least one sensor");
        }
        if (views.size() > 2) {
            throw new IllegalArgumentException("a connection seen by " + views.size() + " sensors; at most two (client and server side) are supported");
        }
        if (views.size() == 1) {
            return singleSensor(views.get(0), SensorRoles.isClientSide(views.get(0), cfg));
        }
        boolean firstIsClient = SensorRoles.firstIsClientSide(views.get(0), views.get(1), cfg);
        return twoPoint(views.get(firstIsClient ? 0 : 1), views.get(firstIsClient ? 1 : 0), prior);
    }

    // ---------------------------------------------------------------- single sensor

    private static Timeline singleSensor(SensorView v, boolean atClient) {
        long minRtt = SensorRoles.minTurnaround(v.pkts, atClient);
        long half = minRtt == Long.MAX_VALUE ? 1 : Math.max(1, minRtt / 2); // network arcs must take time
        List<Tx> txs = new ArrayList<>(v.pkts.size());
        for (Packet p : v.pkts) {
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
        Timeline tl = new Timeline(atClient ? CaptureMode.CLIENT_SIDE : CaptureMode.SERVER_SIDE, txs,
                atClient ? v : null, atClient ? null : v);
        tl.minRttUs = minRtt == Long.MAX_VALUE ? -1 : minRtt;
        tl.minOwdC2s = half;
        tl.minOwdS2c = half;
        tl.finish();
        return tl;
    }

    // ---------------------------------------------------------------- two sensors

    private static Timeline twoPoint(SensorView client, SensorView server, PathPrior prior) {
        List<Tx> txs = new ArrayList<>(client.pkts.size() + server.pkts.size());
        Matching c2s = Matching.match(client.pkts, server.pkts, true);
        Matching s2c = Matching.match(server.pkts, client.pkts, false);
        // offset from strong matches only: a wrong weak match could fake a small delay
        long minCs = c2s.minDelay();
        long minSc = s2c.minDelay();
        Timeline tl = new Timeline(CaptureMode.TWO_POINT, txs, client, server);
        if (minCs != Long.MAX_VALUE && minSc != Long.MAX_VALUE) {
            tl.clockOffsetUs = Math.floorDiv(minCs - minSc, 2);
            tl.clockOffsetUncertaintyUs = Math.floorDiv(minCs + minSc + 1, 2);
            tl.fitDrift(c2s, s2c);
        } else if (prior.clock() != null) {
            tl.clockOffsetUs = prior.clock().offsetUs();
            tl.clockOffsetUncertaintyUs = prior.clock().uncertaintyUs();
            tl.clockOffsetReliable = false;
            tl.clockOffsetFromPair = true;
        } else if (minCs != Long.MAX_VALUE) {
            tl.clockOffsetUs = minCs; // one direction only: assume the smallest delay is zero
            tl.clockOffsetReliable = false;
        } else if (minSc != Long.MAX_VALUE) {
            tl.clockOffsetUs = -minSc;
            tl.clockOffsetReliable = false;
        } else {
            tl.clockOffsetReliable = false;
        }
        c2s.weakMatch(tl::serverToClient, false);
        s2c.weakMatch(tl::serverToClient, true);
        c2s.emit(txs, t -> t, tl::serverToClient);
        s2c.emit(txs, tl::serverToClient, t -> t);
        tl.minOwdC2s = orElse(minObservedOwd(txs, true), prior.owdC2sUs());
        tl.minOwdS2c = orElse(minObservedOwd(txs, false), prior.owdS2cUs());
        tl.minRttUs = tl.minOwdC2s >= 0 && tl.minOwdS2c >= 0 ? tl.minOwdC2s + tl.minOwdS2c : -1;
        tl.fillGaps();
        tl.finish();
        return tl;
    }

    /** Server-sensor time on the client's timeline: minus the offset, which moves with the drift. */
    long serverToClient(long serverUs) {
        if (clockDriftPpm == 0) {
            return serverUs - clockOffsetUs;
        }
        long approx = serverUs - clockOffsetUs;
        return serverUs - clockOffsetUs - Math.round((approx - driftEpochUs) * clockDriftPpm / 1e6);
    }

    private static final long DRIFT_MIN_SPAN_US = 20_000_000;
    private static final int DRIFT_WINDOWS = 12;
    /** Drift smaller than this over the connection is noise next to the minimum filter's own. */
    private static final long DRIFT_MIN_EFFECT_US = 200;

    /**
     * Long connections: the offset estimated per time window (minimum filtering in each), a
     * least-squares line through the windows, then re-centred so that every corrected one-way
     * delay stays at least half the minimum round trip, as with a constant offset.
     */
    private void fitDrift(Matching c2s, Matching s2c) {
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (long[] p : c2s.strongPairs(true)) {
            first = Math.min(first, p[0]);
            last = Math.max(last, p[0]);
        }
        if (last - first < DRIFT_MIN_SPAN_US) {
            return;
        }
        long width = (last - first) / DRIFT_WINDOWS + 1;
        long[][] minCs = windowMinima(c2s.strongPairs(true), first, width);
        long[][] minSc = windowMinima(s2c.strongPairs(false), first, width);
        List<double[]> points = new ArrayList<>();
        for (int w = 0; w < DRIFT_WINDOWS; w++) {
            if (minCs[w] != null && minSc[w] != null) {
                // at the times of the two minimal samples, not the window's middle
                points.add(new double[] {(minCs[w][0] + minSc[w][0]) / 2.0, (minCs[w][1] - minSc[w][1]) / 2.0});
            }
        }
        if (points.size() < 3) {
            return;
        }
        double mt = points.stream().mapToDouble(p -> p[0]).average().orElse(0);
        double mo = points.stream().mapToDouble(p -> p[1]).average().orElse(0);
        double sxy = 0;
        double sxx = 0;
        for (double[] p : points) {
            sxy += (p[0] - mt) * (p[1] - mo);
            sxx += (p[0] - mt) * (p[0] - mt);
        }
        double slope = sxy / sxx;
        if (Math.abs(slope) * (last - first) < DRIFT_MIN_EFFECT_US) {
            return;
        }
        long epoch = Math.round(mt);
        long lowCs = Long.MAX_VALUE;
        long lowSc = Long.MAX_VALUE;
        for (long[] p : c2s.strongPairs(true)) {
            lowCs = Math.min(lowCs, p[1] - Math.round(mo + slope * (p[0] - epoch)));
        }
        for (long[] p : s2c.strongPairs(false)) {
            lowSc = Math.min(lowSc, p[1] + Math.round(mo + slope * (p[0] - epoch)));
        }
        if (lowCs + lowSc < 0) {
            return; // the line does not fit the minima: keep the constant offset
        }
        clockOffsetUs = Math.round(mo) + Math.floorDiv(lowCs - lowSc, 2);
        clockOffsetUncertaintyUs = Math.floorDiv(lowCs + lowSc + 1, 2);
        clockDriftPpm = slope * 1e6;
        driftEpochUs = epoch;
    }

    /** Per time window, the {time, delay} pair with the smallest delay (null for empty windows). */
    private static long[][] windowMinima(List<long[]> pairs, long first, long width) {
        long[][] min = new long[DRIFT_WINDOWS][];
        for (long[] p : pairs) {
            int w = (int) Math.max(0, Math.min(DRIFT_WINDOWS - 1, (p[0] - first) / width));
            if (min[w] == null || p[1] < min[w][1]) {
                min[w] = p;
            }
        }
        return min;
    }

    private static long orElse(long observed, long known) {
        return observed >= 0 ? observed : known;
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
        InOrder.sortBy(txs, Timeline::sortTime);
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
        InOrder.sortBy(arrivals, t -> t.arr);
        ReceivedBytes got = new ReceivedBytes();
        for (Tx t : arrivals) {
            t.newAtReceiver = got.add(t.seq(), t.end());
        }
    }

    // ---------------------------------------------------------------- matching

    /** Pairs one direction's departures (sender-side sensor) with its arrivals (receiver-side sensor). */
    private static final class Matching {
        final List<Packet> deps = new ArrayList<>();
        final List<Packet> arrs = new ArrayList<>();
        final int[] depToArr;
        final int[] arrToDep;
        final boolean[] strong;

        private Matching(List<Packet> senderSide, List<Packet> receiverSide, boolean c2s) {
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
            java.util.Arrays.fill(depToArr, -1);
            java.util.Arrays.fill(arrToDep, -1);
        }

        static Matching match(List<Packet> senderSide, List<Packet> receiverSide, boolean c2s) {
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

        /**
         * Strong matches as {client-sensor time, raw delay}: for c2s the departure time and
         * arrival - departure; for s2c (clientSide false) the arrival time and arrival - departure.
         */
        List<long[]> strongPairs(boolean senderIsClientSensor) {
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
        void weakMatch(java.util.function.LongUnaryOperator serverToClient, boolean senderIsServer) {
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
        void emit(List<Tx> out, java.util.function.LongUnaryOperator depClock, java.util.function.LongUnaryOperator arrClock) {
            for (int i = 0; i < deps.size(); i++) {
                Tx t = new Tx(out.size(), deps.get(i));
                t.dep = depClock.applyAsLong(deps.get(i).ts);
                if (depToArr[i] >= 0) {
                    t.arr = arrClock.applyAsLong(arrs.get(depToArr[i]).ts);
                }
                out.add(t);
            }
            for (int j = 0; j < arrs.size(); j++) {
                if (arrToDep[j] < 0) {
                    Tx t = new Tx(out.size(), arrs.get(j));
                    t.arr = arrClock.applyAsLong(arrs.get(j).ts);
                    out.add(t);
                }
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
