package dev.critpath.core.analysis.align;

import dev.critpath.core.analysis.AnalysisConfig;
import dev.critpath.core.analysis.CaptureMode;
import dev.critpath.core.analysis.Direction;
import dev.critpath.core.analysis.PathPrior;
import dev.critpath.core.analysis.clean.Packet;
import dev.critpath.core.analysis.clean.SensorView;
import dev.critpath.core.event.SensorRole;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Every transmission of a connection on the client's timeline: which sensor sits where, which
 * packet at one sensor is which packet at the other, the clock between them, and estimates for
 * times no sensor saw.
 */
public final class Timeline {
    /** Below a round trip this short, sensors a few switches apart cannot be told from co-located ones. */
    private static final long COLOCATED_MIN_ROUND_TRIP_US = 1_000;
    /** Packets that cross between two captures in under this fraction (1/n) of the round trip cross no path: the captures sit at one point. */
    private static final long COLOCATED_RATIO = 20;
    /** Quickest crossings each way adding up to this or more are a path between the captures, however slow the capture's clocks. */
    private static final long COLOCATED_MAX_CROSSINGS_US = 10_000;
    public final CaptureMode mode;
    /** In order of their earliest known time, numbered so. */
    public final List<Tx> txs;
    public final SensorView clientView;
    public final SensorView serverView;
    public final SensorClock clock;
    /** Minimum one-way delay per direction on the unified timeline (single sensor: half the min RTT). */
    public final long minOwdC2s;
    public final long minOwdS2c;
    /** Minimum round trip through the sensors, µs. */
    public final long minRttUs;
    /** Transmissions whose departure or arrival is estimated because a capture missed it. */
    public final int captureGaps;
    /** Packets seen leaving and never arriving, pure ACKs included. */
    public final int lostBetweenSensors;
    /** Of those, pure ACKs. */
    public final int acksLostBetweenSensors;
    /** A sensor's stated side (configured or hinted) that its own packets contradict (see {@link SensorRoles#evidence}). */
    public final boolean sideContradicted;
    /** Two captures that saw the connection at one point: it was analysed as one of them alone (see {@link #coLocated}). */
    public final boolean sensorsColocated;

    /** @param txs in the timeline's order, see {@link #ordered} */
    private Timeline(boolean sideContradicted, boolean sensorsColocated, CaptureMode mode, Tx[] txs, SensorView clientView, SensorView serverView,
            SensorClock clock, long minOwdC2s, long minOwdS2c, long minRttUs, CaptureGaps gaps) {
        this.mode = mode;
        this.txs = Arrays.asList(txs);
        this.clientView = clientView;
        this.serverView = serverView;
        this.clock = clock;
        this.minOwdC2s = minOwdC2s;
        this.minOwdS2c = minOwdS2c;
        this.minRttUs = minRttUs;
        this.captureGaps = gaps.estimated;
        this.lostBetweenSensors = gaps.lostC2s + gaps.lostS2c;
        this.acksLostBetweenSensors = gaps.lostAcks;
        this.sideContradicted = sideContradicted;
        this.sensorsColocated = sensorsColocated;
    }

    /**
     * @param prior what earlier connections on the path knew: its clock offset stands in when this
     *              connection cannot tell its own, its one-way delays when no packet of a direction
     *              was seen by both sensors
     */
    public static Timeline align(List<SensorView> views, AnalysisConfig cfg, PathPrior prior) {
        if (views.isEmpty()) {
            throw new IllegalArgumentException("a connection needs packets from at least one sensor");
        }
        if (views.size() > 2) {
            throw new IllegalArgumentException("a connection seen by " + views.size() + " sensors; at most two (client and server side) are supported");
        }
        boolean contradicted = false;
        for (SensorView v : views) {
            contradicted |= SensorRoles.contradicted(v, cfg);
        }
        int packets = 0;
        for (SensorView v : views) {
            packets += v.pieceArray().length;
        }
        Workspace ws = Workspace.forPackets(packets);
        if (views.size() == 1) {
            return singleSensor(contradicted, false, views.get(0), SensorRoles.isClientSide(views.get(0), cfg), ws);
        }
        boolean firstIsClient = SensorRoles.firstIsClientSide(views.get(0), views.get(1), cfg);
        SensorView client = views.get(firstIsClient ? 0 : 1);
        SensorView server = views.get(firstIsClient ? 1 : 0);
        Timeline both = twoPoint(contradicted, client, server, prior, ws);
        if (!coLocated(both, client, server, ws)) {
            return both;
        }
        SensorView kept = keptOfColocated(client, server, cfg);
        SensorRole side = SensorRoles.packetsSay(kept);
        return singleSensor(SensorRoles.contradicted(kept, cfg), true, kept, side != SensorRole.UNKNOWN ? side == SensorRole.CLIENT : kept == client, ws);
    }

    /**
     * Whether two captures saw the connection at one point (the same file twice, two taps on one
     * link): the quickest crossing from one to the other each way adds up to under a twentieth of
     * the round trip each capture shows alone (the shorter), a millisecond or more, and a quarter
     * of the packets both saw or more crossed that quickly too. Sensors at the two ends see the
     * round trip between them; a packet or two matched with the wrong copy do not make them one.
     */
    private static boolean coLocated(Timeline both, SensorView client, SensorView server, Workspace ws) {
        if (both.minRttUs < 0 || both.minRttUs >= COLOCATED_MAX_CROSSINGS_US) {
            return false;
        }
        long roundTrip = Math.min(roundTripAlone(client, ws), roundTripAlone(server, ws));
        if (roundTrip == Long.MAX_VALUE || roundTrip < COLOCATED_MIN_ROUND_TRIP_US || both.minRttUs * COLOCATED_RATIO >= roundTrip) {
            return false;
        }
        int seenByBoth = 0;
        int quick = 0;
        for (Tx t : both.txs) {
            if (t.dep() != Tx.NONE && t.arr() != Tx.NONE && !t.depEstimated() && !t.arrEstimated()) {
                seenByBoth++;
                quick += (t.arr() - t.dep()) * COLOCATED_RATIO < roundTrip ? 1 : 0;
            }
        }
        return seenByBoth > 0 && quick * 4 >= seenByBoth;
    }

    /** The least round trip one capture shows alone, on the side its packets put it; MAX_VALUE when none. */
    private static long roundTripAlone(SensorView v, Workspace ws) {
        Packet[] pkts = v.pieceArray();
        boolean atClient = SensorRoles.packetsSay(v) != SensorRole.SERVER;
        TimestampEchoes echoes = TimestampEchoes.of(pkts, atClient, ws);
        return minRoundTrip(pkts, atClient, echoes, RemoteStamps.of(pkts, !atClient, echoes), ws);
    }

    /** The least round trip one capture at this side shows: its packets' turnarounds and the far end's timestamps. */
    private static long minRoundTrip(Packet[] pkts, boolean atClient, TimestampEchoes echoes, RemoteStamps stamps, Workspace ws) {
        return Math.min(SensorRoles.minTurnaround(pkts, Direction.of(atClient), ws), echoes.minRoundTrip(stamps));
    }

    /** Of two captures at one point, the one whose packets confirm the side it was given, else the fuller one. */
    private static SensorView keptOfColocated(SensorView client, SensorView server, AnalysisConfig cfg) {
        boolean clientHolds = SensorRoles.givenSideHolds(client, cfg);
        boolean serverHolds = SensorRoles.givenSideHolds(server, cfg);
        if (clientHolds != serverHolds) {
            return clientHolds ? client : server;
        }
        return server.pieceArray().length > client.pieceArray().length ? server : client;
    }

    /**
     * The remote end's events one half of the minimum round trip away from the sensor's, the local
     * end's packets arriving no earlier than the remote end's timestamp echoes allow.
     */
    private static Timeline singleSensor(boolean sideContradicted, boolean sensorsColocated, SensorView v, boolean atClient, Workspace ws) {
        Packet[] pkts = v.pieceArray();
        TimestampEchoes echoes = TimestampEchoes.of(pkts, atClient, ws);
        RemoteStamps stamps = RemoteStamps.of(pkts, !atClient, echoes);
        long minRtt = minRoundTrip(pkts, atClient, echoes, stamps, ws);
        long half = minRtt == Long.MAX_VALUE ? 1 : Math.max(1, minRtt / 2); // network arcs must take time
        Tx[] txs = new Tx[pkts.length];
        for (int i = 0; i < pkts.length; i++) {
            Packet p = pkts[i];
            Tx t = new Tx(i, p);
            boolean leavesHere = p.c2s == atClient;
            if (leavesHere) {
                t.departed(p.ts, false);
                t.arrived(p.ts + half, true);
            } else {
                t.arrived(p.ts, false);
                t.seenArriving(p);
                t.departed(p.ts - half - stamps.extraDelay(p), true);
            }
            txs[i] = t;
        }
        echoes.bound(txs);
        return new Timeline(sideContradicted, sensorsColocated, atClient ? CaptureMode.CLIENT_SIDE : CaptureMode.SERVER_SIDE, ordered(txs, ws), atClient ? v : null, atClient ? null : v,
                SensorClock.ONE_SENSOR, half, half, minRtt == Long.MAX_VALUE ? -1 : minRtt, new CaptureGaps());
    }

    private static Timeline twoPoint(boolean sideContradicted, SensorView client, SensorView server, PathPrior prior, Workspace ws) {
        List<Tx> txs = new ArrayList<>(client.pkts.size() + server.pkts.size());
        Matching c2s = Matching.match(client.pkts, server.pkts, Direction.C2S);
        Matching s2c = Matching.match(server.pkts, client.pkts, Direction.S2C);
        SensorClock clock = SensorClock.estimate(c2s, s2c, prior);
        c2s.weakMatch(clock::serverToClient);
        s2c.weakMatch(clock::serverToClient);
        c2s.emit(txs, t -> t, clock::serverToClient);
        s2c.emit(txs, clock::serverToClient, t -> t);
        long minOwdC2s = orElse(minObservedOwd(txs, Direction.C2S), prior.owdC2sUs());
        long minOwdS2c = orElse(minObservedOwd(txs, Direction.S2C), prior.owdS2cUs());
        long minRtt = minOwdC2s >= 0 && minOwdS2c >= 0 ? minOwdC2s + minOwdS2c : -1;
        CaptureGaps gaps = CaptureGaps.fill(txs, minOwdC2s, minOwdS2c);
        return new Timeline(sideContradicted, false, CaptureMode.TWO_POINT, ordered(txs.toArray(new Tx[0]), ws), client, server, clock, minOwdC2s, minOwdS2c,
                minRtt, gaps);
    }

    private static long orElse(long observed, long known) {
        return observed >= 0 ? observed : known;
    }

    private static long minObservedOwd(List<Tx> txs, Direction dir) {
        long best = Long.MAX_VALUE;
        for (Tx t : txs) {
            if (t.direction() == dir && t.dep() != Tx.NONE && t.arr() != Tx.NONE) {
                best = Math.min(best, t.arr() - t.dep());
            }
        }
        return best == Long.MAX_VALUE ? -1 : best;
    }

    /**
     * Orders transmissions (in place) by their earliest known time, ties as numbered when made;
     * numbers them so, and marks what was new to each receiver.
     */
    private static Tx[] ordered(Tx[] txs, Workspace ws) {
        int[] from = ws.order(txs.length);
        if (!mergedByDirection(txs, from)) {
            KeyedIndices byTime = ws.byTime;
            byTime.clear(txs.length);
            addByTime(byTime, txs, true); // each direction's come nearly in time order: few runs to merge
            addByTime(byTime, txs, false);
            byTime.sort();
            from = byTime.indices;
        }
        moveTo(txs, from);
        for (int i = 0; i < txs.length; i++) {
            txs[i].numbered(i);
        }
        markNewAtReceiver(txs, ws);
        return txs;
    }

    private static long sortTime(Tx t) {
        return t.dep() != Tx.NONE ? t.dep() : t.arr();
    }

    private static void addByTime(KeyedIndices byTime, Tx[] txs, boolean c2s) {
        for (Tx t : txs) {
            if (t.c2s() == c2s) {
                byTime.add(sortTime(t), t.idx());
            }
        }
    }

    /**
     * The order (from[k]: the k-th transmission's number) when each direction's transmissions are
     * in time order already, as one capture's are where the far end's stamps keep its departures
     * in order: the two directions merged; false, from unfinished, where they are not.
     */
    private static boolean mergedByDirection(Tx[] txs, int[] from) {
        InTime c2s = new InTime(txs, true);
        InTime s2c = new InTime(txs, false);
        for (int k = 0; k < txs.length; k++) {
            InTime next = c2s.before(s2c) ? c2s : s2c;
            from[k] = next.at;
            if (!next.advance()) {
                return false;
            }
        }
        return true;
    }

    /** One direction's transmissions, walked in their numbers' order. */
    private static final class InTime {
        private final Tx[] txs;
        private final boolean c2s;
        /** The transmission at hand; txs.length past the last. */
        int at = -1;
        private long time = Long.MIN_VALUE;

        InTime(Tx[] txs, boolean c2s) {
            this.txs = txs;
            this.c2s = c2s;
            advance();
        }

        /** Whether the one at hand comes before the other's (by time, then number). */
        boolean before(InTime other) {
            return other.at == txs.length || at < txs.length && (time < other.time || time == other.time && at < other.at);
        }

        /** On to the next of the direction; false when it comes earlier in time than the one before it. */
        boolean advance() {
            do {
                at++;
            } while (at < txs.length && txs[at].c2s() != c2s);
            long previous = time;
            time = at < txs.length ? sortTime(txs[at]) : Long.MAX_VALUE;
            return time >= previous;
        }
    }

    /**
     * Moves txs[from[i]] to i for every i, in place: a cycle of the permutation at a time, each
     * position marked done (~from) as it is filled.
     */
    private static void moveTo(Tx[] txs, int[] from) {
        for (int start = 0; start < txs.length; start++) {
            if (from[start] < 0) {
                continue;
            }
            Tx first = txs[start];
            int to = start;
            while (from[to] != start) {
                int next = from[to];
                txs[to] = txs[next];
                from[to] = ~next;
                to = next;
            }
            txs[to] = first;
            from[to] = ~start;
        }
    }

    /** Flags the arrivals that brought the receiver bytes it did not have yet. */
    private static void markNewAtReceiver(Tx[] txs, Workspace ws) {
        KeyedIndices atServer = ws.byTime;
        KeyedIndices atClient = ws.arrivals;
        atServer.clear(txs.length);
        atClient.clear(txs.length);
        for (Tx t : txs) {
            if (t.arr() != Tx.NONE && t.p.carriesSeqSpace()) {
                (t.c2s() ? atServer : atClient).add(t.arr(), t.idx());
            }
        }
        markNew(txs, atServer);
        markNew(txs, atClient);
    }

    /** @param arrivals one receiver's arrivals that carry sequence space */
    private static void markNew(Tx[] txs, KeyedIndices arrivals) {
        arrivals.sort();
        ReceivedBytes got = new ReceivedBytes();
        for (int i = 0; i < arrivals.size; i++) {
            Tx t = txs[arrivals.indices[i]];
            t.newAtReceiver(got.add(t.seq(), t.end()));
        }
    }
}
