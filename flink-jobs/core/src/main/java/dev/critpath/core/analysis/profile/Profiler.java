package dev.critpath.core.analysis.profile;

import dev.critpath.core.analysis.AnalysisConfig;
import dev.critpath.core.analysis.CaptureMode;
import dev.critpath.core.analysis.Category;
import dev.critpath.core.analysis.CategoryTimes;
import dev.critpath.core.analysis.ConnectionAnalysis;
import dev.critpath.core.analysis.ConnectionPackets;
import dev.critpath.core.analysis.ConnectionProfile;
import dev.critpath.core.analysis.Direction;
import dev.critpath.core.analysis.Endpoint;
import dev.critpath.core.analysis.DirectionStats;
import dev.critpath.core.analysis.ExchangeProfile;
import dev.critpath.core.analysis.PathArc;
import dev.critpath.core.analysis.PathPrior;
import dev.critpath.core.analysis.SegmentStart;
import dev.critpath.core.analysis.align.Timeline;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.analysis.clean.SensorView;
import dev.critpath.core.analysis.clean.SequenceSpace;
import dev.critpath.core.analysis.path.CriticalPath;
import dev.critpath.core.analysis.sender.SenderReplay;
import dev.critpath.core.event.TcpFlags;
import dev.critpath.core.trace.ConnectionTrace;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * The last step: the critical path's arcs put into delay categories and summed, the exchanges
 * found and profiled, and the counts and quality flags gathered into the connection's profile.
 */
public final class Profiler {
    private final AnalysisConfig cfg;
    private final PathPrior prior;

    public Profiler(AnalysisConfig cfg, PathPrior prior) {
        this.cfg = cfg;
        this.prior = prior;
    }

    /**
     * The profile of what the critical path and the windows showed, from {@code start.fromUs()} on.
     *
     * @param senders the senders' replay (its counts before a segment's start are taken off)
     */
    public ConnectionAnalysis profile(ConnectionTrace trace, SequenceSpace bases, Timeline tl, SenderReplay senders, CriticalPath cp,
            SegmentStart start) {
        DirectionStats c2s = senders.c2s();
        DirectionStats s2c = senders.s2c();
        long owdC2s = baseline(tl.minOwdC2s, prior.owdC2sUs());
        long owdS2c = baseline(tl.minOwdS2c, prior.owdS2cUs());
        String uid = start.connUid() != null ? start.connUid() : trace.communityId() + "/" + Long.toHexString(bases.clientBase);
        boolean segment = start.fromUs() > cp.startUs;
        long spanStartUs = segment ? Math.min(start.fromUs(), cp.endUs) : cp.startUs;
        Tx[] txs = cp.transmissions();
        Tx[] dataByDep = dataByDeparture(txs);
        List<PathArc> arcs = new ArrayList<>(cp.arcCount());
        ArcCategories categories = new ArcCategories(cfg.idleThresholdUs, cp, tl, senders.marks(), owdC2s, owdS2c);
        CategoryTimes total = new CategoryTimes();
        long maxServerArc = 0;
        BitSet onPath = new BitSet(txs.length);
        int rounds = 0;
        HostLink clientLink = HostLink.of(dataByDep, Endpoint.CLIENT, senders.marks());
        HostLink serverLink = HostLink.of(dataByDep, Endpoint.SERVER, senders.marks());
        List<Exchange> exchanges = Exchange.detect(txs, senders.marks(), cp);
        exchanges.removeIf(x -> x.responseLastArr <= spanStartUs);
        long[] exchangeFrom = new long[exchanges.size()];
        long[] exchangeTo = new long[exchanges.size()];
        long prevEnd = spanStartUs;
        for (int i = 0; i < exchanges.size(); i++) {
            Exchange x = exchanges.get(i);
            exchangeFrom[i] = x.requestFirstDep != Tx.NONE ? x.requestFirstDep : prevEnd;
            exchangeTo[i] = x.responseLastArr;
            prevEnd = x.responseLastArr;
        }
        Charges clientLinkAt = new Charges(exchangeFrom, exchangeTo);
        Charges serverLinkAt = new Charges(exchangeFrom, exchangeTo);
        for (int i = 0; i < cp.arcCount(); i++) {
            if (segment && cp.arcToUs(i) <= spanStartUs) {
                continue; // an earlier segment's, or the restarted handshake
            }
            PathArc pa = categories.categorise(start.arcIndex() + arcs.size(), i);
            if (cp.arcFromUs(i) < spanStartUs) {
                pa = ArcCategories.clippedFrom(pa, spanStartUs);
            }
            arcs.add(pa);
            total.addAll(pa.times());
            // with the client's capture alone a server host arc is server_or_queuing: a stall all the same
            if (pa.kind() == PathArc.Kind.HOST && (pa.category() == Category.SERVER || pa.category() == Category.SERVER_OR_QUEUING)) {
                maxServerArc = Math.max(maxServerArc, pa.durationUs());
            }
            if (cp.arcFrom(i) >= 0 && cp.arcFromUs(i) >= spanStartUs) {
                onPath.set(cp.arcFrom(i) >> 1);
            }
            onPath.set(cp.arcTo(i) >> 1);
            if (pa.kind() == PathArc.Kind.NETWORK && pa.direction() == Direction.C2S) {
                rounds++;
            }
            if (pa.category() == Category.SERVER && pa.kind() == PathArc.Kind.HOST) {
                serverLinkAt.add(pa.toUs(), serverLink.serialisingBefore(txs[pa.txIndex()], pa.fromUs()));
            } else if (pa.category() == Category.CLIENT && pa.kind() == PathArc.Kind.HOST) {
                clientLinkAt.add(pa.toUs(), clientLink.serialisingBefore(txs[pa.txIndex()], pa.fromUs()));
            }
        }
        if (total.total() != cp.endUs - spanStartUs) {
            throw new IllegalStateException("critical path of " + uid + " covers " + total.total() + " us of a " + (cp.endUs - spanStartUs) + " us connection");
        }
        Charges lossAt = new Charges(exchangeFrom, exchangeTo);
        LossCost.of(tl, txs, dataByDep, senders.marks(), cp, cfg, arcs, spanStartUs, clientLink, serverLink, lossAt);
        List<ExchangeProfile> exchangeProfiles = new ArrayList<>();
        for (int i = 0; i < exchanges.size(); i++) {
            Exchange x = exchanges.get(i);
            CategoryTimes within = ArcCategories.clip(arcs, exchangeFrom[i], x.responseLastArr);
            exchangeProfiles.add(new ExchangeProfile(uid, i, exchangeFrom[i], x.responseLastArr,
                    x.requestBytes, x.responseBytes, x.serverThink(tl), tl.mode == CaptureMode.CLIENT_SIDE, x.firstByte(), within,
                    new ExchangeProfile.Costs(lossAt.exchange(i), known(clientLink, clientLinkAt.exchange(i)), known(serverLink, serverLinkAt.exchange(i)))));
        }
        Burstiness.count(dataByDep, spanStartUs, c2s, s2c);
        if (segment) {
            // the restarted handshake was counted by the segment before
            c2s.packets -= packetsBefore(txs, Direction.C2S, spanStartUs);
            s2c.packets -= packetsBefore(txs, Direction.S2C, spanStartUs);
        }
        ConnectionProfile profile = new ConnectionProfile(uid, trace.communityId(), trace.clientAddr(), trace.clientPort(),
                trace.serverAddr(), trace.serverPort(),
                tl.clientView != null ? tl.clientView.sensor : null, tl.serverView != null ? tl.serverView.sensor : null,
                tl.mode, spanStartUs, cp.endUs, total,
                new ConnectionProfile.PathSummary(onPath.cardinality(), rounds, arcs.size(), maxServerArc, handshake(txs),
                        exchangeProfiles.isEmpty() ? -1 : exchangeProfiles.get(0).firstByteUs(),
                        exchangeProfiles.isEmpty() ? -1 : exchangeProfiles.get(0).serverThinkUs(),
                        tl.mode == CaptureMode.CLIENT_SIDE, exchangeProfiles.size()),
                c2s, s2c,
                new ConnectionProfile.Timing(tl.minRttUs, tl.minOwdC2s, tl.minOwdS2c, tl.clock.offsetUs(),
                        tl.clock.uncertaintyUs(), tl.clock.reliable(), tl.clock.fromPair(), tl.clock.driftPpm()),
                quality(tl, txs, bases, c2s, s2c, trace.eventsOverCap()),
                PieBaseline.of(tl, segment ? spanStartUs : Long.MIN_VALUE),
                new ConnectionProfile.Costs(lossAt.total(), known(clientLink, clientLinkAt.total()), known(serverLink, serverLinkAt.total()),
                        HostLink.mbps(clientLink.rate), HostLink.mbps(serverLink.rate)));
        PacketMarks packets = new PacketMarks(tl, senders.marks(), bases, onPath);
        return new ConnectionAnalysis(profile, exchangeProfiles, arcs,
                new ConnectionPackets(segment ? spanStartUs : -1, () -> packets.from(segment ? spanStartUs : Long.MIN_VALUE)));
    }

    /** Every data transmission whose departure is known, in departure order: what bursts, links and turns are made of. */
    private static Tx[] dataByDeparture(Tx[] txs) {
        return Tx.picked(txs, t -> t.isData() && t.dep() != Tx.NONE, Tx::dep);
    }

    /** A link time, or -1 when the link's rate is unknown. */
    private static long known(HostLink link, long us) {
        return link.rate < 0 ? -1 : us;
    }

    private static long baseline(long own, long path) {
        if (path < 0) {
            return own;
        }
        return own < 0 ? path : Math.min(own, path);
    }

    /** Packets of one direction the sender simulation counted that left before {@code us}. */
    private static long packetsBefore(Tx[] txs, Direction dir, long us) {
        long n = 0;
        for (Tx t : txs) {
            if (t.direction() == dir && t.dep() != Tx.NONE && t.dep() < us) {
                n++;
            }
        }
        return n;
    }

    private static long handshake(Tx[] txs) {
        long syn = Tx.NONE;
        long synAck = Tx.NONE;
        for (Tx t : txs) {
            if (t.has(TcpFlags.SYN) && !t.has(TcpFlags.ACK) && syn == Tx.NONE && t.dep() != Tx.NONE) {
                syn = t.dep();
            } else if (t.has(TcpFlags.SYN) && t.has(TcpFlags.ACK) && synAck == Tx.NONE && t.arr() != Tx.NONE) {
                synAck = t.arr();
            }
            if (syn != Tx.NONE && synAck != Tx.NONE) {
                break; // both found: nothing later changes them
            }
        }
        return syn == Tx.NONE || synAck == Tx.NONE ? -1 : synAck - syn;
    }

    private static ConnectionProfile.Quality quality(Timeline tl, Tx[] txs, SequenceSpace bases, DirectionStats c2s, DirectionStats s2c, long eventsOverCap) {
        int dups = 0;
        int supers = 0;
        int reordered = 0;
        for (SensorView v : new SensorView[] {tl.clientView, tl.serverView}) {
            if (v == null) {
                continue;
            }
            dups += v.duplicatesRemoved;
            supers += v.superSegments;
            reordered += v.reorderedInCapture;
        }
        return new ConnectionProfile.Quality(c2s.outOfWindow + s2c.outOfWindow, tl.captureGaps,
                tl.lostBetweenSensors, tl.acksLostBetweenSensors, dups, supers, reordered, !bases.clientSynSeen, closed(txs), eventsOverCap,
                tl.sideContradicted, tl.sensorsColocated);
    }

    /** A FIN or RST anywhere; looked for from the end, where a close is. */
    private static boolean closed(Tx[] txs) {
        for (int i = txs.length - 1; i >= 0; i--) {
            if (txs[i].has(TcpFlags.FIN) || txs[i].has(TcpFlags.RST)) {
                return true;
            }
        }
        return false;
    }
}
