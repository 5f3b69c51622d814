package dev.critpath.core.analysis.align;

import dev.critpath.core.analysis.AnalysisConfig;
import dev.critpath.core.analysis.CaptureMode;
import dev.critpath.core.analysis.Direction;
import dev.critpath.core.analysis.InOrder;
import dev.critpath.core.analysis.PathPrior;
import dev.critpath.core.analysis.clean.Packet;
import dev.critpath.core.analysis.clean.SensorView;
import java.util.ArrayList;
import java.util.List;

/**
 * Every transmission of a connection on the client's timeline: which sensor sits where, which
 * packet at one sensor is which packet at the other, the clock between them, and estimates for
 * times no sensor saw.
 */
public final class Timeline {
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

    private Timeline(boolean sideContradicted, CaptureMode mode, List<Tx> txs, SensorView clientView, SensorView serverView, SensorClock clock, long minOwdC2s,
            long minOwdS2c, long minRttUs, CaptureGaps gaps) {
        this.mode = mode;
        this.txs = txs;
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
        ordered(txs);
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
        boolean contradicted = views.stream().anyMatch(v -> SensorRoles.contradicted(v, cfg));
        if (views.size() == 1) {
            return singleSensor(contradicted, views.get(0), SensorRoles.isClientSide(views.get(0), cfg));
        }
        boolean firstIsClient = SensorRoles.firstIsClientSide(views.get(0), views.get(1), cfg);
        return twoPoint(contradicted, views.get(firstIsClient ? 0 : 1), views.get(firstIsClient ? 1 : 0), prior);
    }

    /**
     * The remote end's events one half of the minimum round trip away from the sensor's, the local
     * end's packets arriving no earlier than the remote end's timestamp echoes allow.
     */
    private static Timeline singleSensor(boolean sideContradicted, SensorView v, boolean atClient) {
        TimestampEchoes echoes = TimestampEchoes.of(v.pkts, atClient);
        RemoteStamps stamps = RemoteStamps.of(v.pkts, !atClient);
        long minRtt = Math.min(SensorRoles.minTurnaround(v.pkts, Direction.of(atClient)), echoes.minRoundTrip(stamps));
        long half = minRtt == Long.MAX_VALUE ? 1 : Math.max(1, minRtt / 2); // network arcs must take time
        long[] queued = stamps.extraDelays(v.pkts);
        List<Tx> txs = new ArrayList<>(v.pkts.size());
        for (Packet p : v.pkts) {
            Tx t = new Tx(txs.size(), p);
            boolean leavesHere = p.c2s == atClient;
            if (leavesHere) {
                t.departed(p.ts, false);
                t.arrived(p.ts + half, true);
            } else {
                t.arrived(p.ts, false);
                t.seenArriving(p);
                t.departed(p.ts - half - queued[txs.size()], true);
            }
            txs.add(t);
        }
        echoes.bound(txs);
        return new Timeline(sideContradicted, atClient ? CaptureMode.CLIENT_SIDE : CaptureMode.SERVER_SIDE, txs, atClient ? v : null, atClient ? null : v,
                SensorClock.ONE_SENSOR, half, half, minRtt == Long.MAX_VALUE ? -1 : minRtt, new CaptureGaps());
    }

    private static Timeline twoPoint(boolean sideContradicted, SensorView client, SensorView server, PathPrior prior) {
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
        return new Timeline(sideContradicted, CaptureMode.TWO_POINT, txs, client, server, clock, minOwdC2s, minOwdS2c, minRtt, gaps);
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

    /** Orders transmissions by their earliest known time, numbers them, and marks what was new to each receiver. */
    private static void ordered(List<Tx> txs) {
        InOrder.sortBy(txs, Timeline::sortTime);
        for (int i = 0; i < txs.size(); i++) {
            txs.get(i).numbered(i);
        }
        for (Direction dir : Direction.values()) {
            markNewAtReceiver(txs, dir);
        }
    }

    private static long sortTime(Tx t) {
        return t.dep() != Tx.NONE ? t.dep() : t.arr();
    }

    /** Flags the arrivals that brought the receiver bytes it did not have yet. */
    private static void markNewAtReceiver(List<Tx> txs, Direction dir) {
        List<Tx> arrivals = new ArrayList<>();
        for (Tx t : txs) {
            if (t.direction() == dir && t.arr() != Tx.NONE && t.p.carriesSeqSpace()) {
                arrivals.add(t);
            }
        }
        InOrder.sortBy(arrivals, t -> t.arr());
        ReceivedBytes got = new ReceivedBytes();
        for (Tx t : arrivals) {
            t.newAtReceiver(got.add(t.seq(), t.end()));
        }
    }
}
