package dev.critpath.core.analysis;

import dev.critpath.core.analysis.align.Timeline;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.analysis.clean.SensorView;
import dev.critpath.core.analysis.clean.SequenceSpace;
import dev.critpath.core.analysis.path.CriticalPath;
import dev.critpath.core.analysis.sender.SenderSim;
import dev.critpath.core.event.TcpFlags;
import dev.critpath.core.trace.ConnectionTrace;
import dev.critpath.core.trace.SensorCapture;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Critical path analysis of one connection: clean each sensor's view, align them on the client's
 * timeline, replay both senders' windows (forward pass), walk the dependence graph back from the
 * client's last packet (backward pass), and profile the path into delay categories.
 */
public final class Analyzer {
    private final AnalysisConfig cfg;

    public Analyzer(AnalysisConfig cfg) {
        this.cfg = cfg;
    }

    public static Analyzer defaults() {
        return new Analyzer(AnalysisConfig.defaults());
    }

    public AnalysisConfig config() {
        return cfg;
    }

    public ConnectionAnalysis analyze(ConnectionTrace trace) {
        return analyze(trace, PathPrior.NONE);
    }

    public ConnectionAnalysis analyze(ConnectionTrace trace, PathPrior prior) {
        return analyze(trace, SegmentStart.WHOLE, prior);
    }

    /**
     * One segment of a long-lived connection (see {@link SegmentedConnection}): the trace holds the
     * connection's handshake restarted just before the segment's packets; times, arcs, exchanges
     * and counts cover only what happened from {@code start.fromUs()} on.
     */
    public ConnectionAnalysis analyze(ConnectionTrace trace, SegmentStart start, PathPrior prior) {
        SequenceSpace bases = new SequenceSpace(trace);
        List<SensorView> views = new ArrayList<>();
        for (SensorCapture c : trace.captures()) {
            if (!c.packets().isEmpty()) {
                views.add(SensorView.clean(c, bases, cfg));
            }
        }
        Timeline tl = Timeline.align(views, cfg, prior);
        SenderSim c2s = new SenderSim(tl.txs, true, cfg, segmentSize(bases.smssC2s, tl, true), bases.wscaleServer, bases.sackPermitted);
        SenderSim s2c = new SenderSim(tl.txs, false, cfg, segmentSize(bases.smssS2c, tl, false), bases.wscaleClient, bases.sackPermitted);
        c2s.run();
        s2c.run();
        c2s.stats.bytes = uniqueBytes(tl, true);
        s2c.stats.bytes = uniqueBytes(tl, false);
        CriticalPath cp = new CriticalPath(tl);

        long owdC2s = baseline(tl.minOwdC2s, prior.owdC2sUs());
        long owdS2c = baseline(tl.minOwdS2c, prior.owdS2cUs());
        String uid = start.connUid() != null ? start.connUid() : trace.communityId() + "/" + Long.toHexString(bases.clientBase);
        boolean segment = start.fromUs() > cp.startUs;
        long spanStartUs = segment ? Math.min(start.fromUs(), cp.endUs) : cp.startUs;
        List<PathArc> arcs = new ArrayList<>(cp.arcs().size());
        CategoryTimes total = new CategoryTimes();
        long maxServerArc = 0;
        Set<Integer> pathPackets = new HashSet<>();
        int rounds = 0;
        for (CriticalPath.Arc a : cp.arcs()) {
            if (segment && a.toUs() <= spanStartUs) {
                continue; // an earlier segment's, or the restarted handshake
            }
            PathArc pa = categorise(start.arcIndex() + arcs.size(), a, cp, tl, owdC2s, owdS2c);
            if (a.fromUs() < spanStartUs) {
                pa = clippedFrom(pa, spanStartUs);
            }
            arcs.add(pa);
            total.addAll(pa.times());
            if (pa.kind() == PathArc.Kind.HOST && pa.category() == Category.SERVER) {
                maxServerArc = Math.max(maxServerArc, pa.durationUs());
            }
            if (a.from() >= 0 && a.fromUs() >= spanStartUs) {
                pathPackets.add(a.from() >> 1);
            }
            pathPackets.add(a.to() >> 1);
            if (pa.kind() == PathArc.Kind.NETWORK && pa.direction() == Direction.C2S) {
                rounds++;
            }
        }
        if (total.total() != cp.endUs - spanStartUs) {
            throw new IllegalStateException("critical path of " + uid + " covers " + total.total() + " us of a " + (cp.endUs - spanStartUs) + " us connection");
        }
        List<Exchange> exchanges = Exchange.detect(tl);
        exchanges.removeIf(x -> x.responseLastArr <= spanStartUs);
        List<ExchangeProfile> exchangeProfiles = new ArrayList<>();
        long prevEnd = spanStartUs;
        for (Exchange x : exchanges) {
            long from = x.requestFirstDep != Tx.NONE ? x.requestFirstDep : prevEnd;
            CategoryTimes within = clip(arcs, from, x.responseLastArr);
            exchangeProfiles.add(new ExchangeProfile(uid, exchangeProfiles.size(), from, x.responseLastArr,
                    x.requestBytes, x.responseBytes, x.serverThink(tl), tl.mode == CaptureMode.CLIENT_SIDE, x.firstByte(), within));
            prevEnd = x.responseLastArr;
        }
        if (segment) {
            // the restarted handshake was counted by the segment before
            c2s.stats.packets -= packetsBefore(tl, true, spanStartUs);
            s2c.stats.packets -= packetsBefore(tl, false, spanStartUs);
        }
        ConnectionProfile profile = new ConnectionProfile(uid, trace.communityId(), trace.clientAddr(), trace.clientPort(),
                trace.serverAddr(), trace.serverPort(),
                tl.clientView != null ? tl.clientView.sensor : null, tl.serverView != null ? tl.serverView.sensor : null,
                tl.mode, spanStartUs, cp.endUs, total,
                new ConnectionProfile.PathSummary(pathPackets.size(), rounds, arcs.size(), maxServerArc, handshake(tl),
                        exchangeProfiles.isEmpty() ? -1 : exchangeProfiles.get(0).firstByteUs(),
                        exchangeProfiles.isEmpty() ? -1 : exchangeProfiles.get(0).serverThinkUs(),
                        tl.mode == CaptureMode.CLIENT_SIDE, exchangeProfiles.size()),
                c2s.stats, s2c.stats,
                new ConnectionProfile.Timing(tl.minRttUs, tl.minOwdC2s, tl.minOwdS2c, tl.clock.offsetUs(),
                        tl.clock.uncertaintyUs(), tl.clock.reliable(), tl.clock.fromPair(), tl.clock.driftPpm()),
                quality(tl, views, bases, c2s, s2c, trace.eventsOverCap()),
                PieBaseline.of(tl, segment ? spanStartUs : Long.MIN_VALUE));
        return new ConnectionAnalysis(profile, exchangeProfiles, arcs);
    }

    /** Column names and types of a profile row, for configuration checks and schema tests. */
    public static Map<String, Object> emptyProfileColumns() {
        return ConnectionProfile.empty().columns();
    }

    /** Payload bytes in the union of sequence ranges seen in one direction (tcptrace's "unique bytes"). */
    private static long uniqueBytes(Timeline tl, boolean c2s) {
        List<long[]> ranges = new ArrayList<>();
        for (Tx t : tl.txs) {
            if (t.c2s() == c2s && t.p.len > 0) {
                long first = t.seq() + (t.has(TcpFlags.SYN) ? 1 : 0); // a SYN's data follows its own sequence number
                ranges.add(new long[] {first, first + t.p.len});
            }
        }
        InOrder.sortBy(ranges, r -> r[0]);
        long total = 0;
        long coveredTo = Long.MIN_VALUE;
        for (long[] r : ranges) {
            long from = Math.max(r[0], coveredTo);
            if (r[1] > from) {
                total += r[1] - from;
            }
            coveredTo = Math.max(coveredTo, r[1]);
        }
        return total;
    }

    private static long baseline(long own, long path) {
        if (path < 0) {
            return own;
        }
        return own < 0 ? path : Math.min(own, path);
    }

    /** The sender's segment size: MSS option minus timestamps, else the largest segment seen. */
    private static int segmentSize(int fromOptions, Timeline tl, boolean c2s) {
        if (fromOptions > 0) {
            return fromOptions;
        }
        int max = 0;
        for (Tx t : tl.txs) {
            if (t.c2s() == c2s && !t.p.offloadPiece) {
                max = Math.max(max, t.p.len);
            }
        }
        return max > 0 ? max : 1460;
    }

    private CategoryTimes arcTimes(CriticalPath.Arc a, CriticalPath cp, Timeline tl, long owdC2s, long owdS2c) {
        CategoryTimes ct = new CategoryTimes();
        long w = a.toUs() - a.fromUs();
        Tx child = cp.tx(a.to());
        switch (a.kind()) {
            case NETWORK -> {
                long base = Math.max(0, child.c2s() ? owdC2s : owdS2c);
                long prop = Math.min(w, base);
                ct.add(Category.PROPAGATION, prop);
                // with one sensor, delay above the minimum cannot be told from the remote end's own
                ct.add(tl.mode == CaptureMode.TWO_POINT ? Category.QUEUING : unsplit(tl.mode == CaptureMode.SERVER_SIDE ? Endpoint.CLIENT : Endpoint.SERVER), w - prop);
            }
            case HOST -> {
                Endpoint at = cp.endpointOf(a.to());
                if (tl.mode.remote(at)) {
                    ct.add(unsplit(at), w);
                } else if ((child.has(TcpFlags.FIN) || child.has(TcpFlags.RST)) && w >= cfg.idleThresholdUs) {
                    ct.add(Category.IDLE, w);
                } else {
                    ct.add(at == Endpoint.CLIENT ? Category.CLIENT : Category.SERVER, w);
                }
            }
            case LOSS -> ct.add(switch (child.lossCause) {
                case FAST_RETRANSMIT -> Category.LOSS_FAST_RETRANSMIT;
                case BACKOFF -> Category.LOSS_BACKOFF;
                default -> Category.LOSS_TIMEOUT;
            }, w);
            default -> ct.add(Category.UNKNOWN, w);
        }
        return ct;
    }

    /** With one sensor, the remote end's time cannot be told from queuing on the way to it. */
    private static Category unsplit(Endpoint remote) {
        return remote == Endpoint.CLIENT ? Category.CLIENT_OR_QUEUING : Category.SERVER_OR_QUEUING;
    }

    private PathArc categorise(int index, CriticalPath.Arc a, CriticalPath cp, Timeline tl, long owdC2s, long owdS2c) {
        CategoryTimes ct = arcTimes(a, cp, tl, owdC2s, owdS2c);
        Tx child = cp.tx(a.to());
        Direction direction = Direction.of(child.c2s());
        Endpoint endpoint = a.kind() == PathArc.Kind.NETWORK ? direction.receiver() : cp.endpointOf(a.to());
        return new PathArc(index, a.fromUs(), a.toUs(), a.kind(), largest(ct), ct, endpoint, direction, TcpFlags.letters(child.p.flags),
                child.seq(), child.p.len, cp.estimated(a.from()) || cp.estimated(a.to()));
    }

    private static Category largest(CategoryTimes ct) {
        Category main = Category.UNKNOWN;
        long best = -1;
        for (Category c : Category.ALL) {
            if (ct.get(c) > best) {
                best = ct.get(c);
                main = c;
            }
        }
        return main;
    }

    /** The part of an arc from {@code fromUs} on: a segment starts inside the wait before its first packet. */
    private static PathArc clippedFrom(PathArc a, long fromUs) {
        CategoryTimes ct = clip(List.of(a), fromUs, a.toUs());
        return new PathArc(a.index(), fromUs, a.toUs(), a.kind(), largest(ct), ct, a.endpoint(), a.direction(), a.flags(), a.seq(), a.len(), a.estimated());
    }

    /** Packets of one direction the sender simulation counted that left before {@code us}. */
    private static long packetsBefore(Timeline tl, boolean c2s, long us) {
        long n = 0;
        for (Tx t : tl.txs) {
            if (t.c2s() == c2s && t.dep != Tx.NONE && t.dep < us) {
                n++;
            }
        }
        return n;
    }

    /**
     * The categories of the part of the path inside [from, to]. Within a network arc propagation
     * comes first, then queuing, so clipping stays in whole microseconds.
     */
    static CategoryTimes clip(List<PathArc> arcs, long from, long to) {
        CategoryTimes out = new CategoryTimes();
        for (PathArc a : arcs) {
            long lo = Math.max(a.fromUs(), from);
            long hi = Math.min(a.toUs(), to);
            if (hi <= lo) {
                continue;
            }
            long offset = lo - a.fromUs();
            long span = hi - lo;
            for (Category c : Category.ALL) {
                long part = a.times().get(c);
                if (part == 0) {
                    continue;
                }
                long take = Math.max(0, Math.min(part - offset, span));
                offset = Math.max(0, offset - part);
                out.add(c, take);
                span -= take;
            }
        }
        return out;
    }

    private static long handshake(Timeline tl) {
        long syn = Tx.NONE;
        long synAck = Tx.NONE;
        for (Tx t : tl.txs) {
            if (t.has(TcpFlags.SYN) && !t.has(TcpFlags.ACK) && syn == Tx.NONE && t.dep != Tx.NONE) {
                syn = t.dep;
            } else if (t.has(TcpFlags.SYN) && t.has(TcpFlags.ACK) && synAck == Tx.NONE && t.arr != Tx.NONE) {
                synAck = t.arr;
            }
        }
        return syn == Tx.NONE || synAck == Tx.NONE ? -1 : synAck - syn;
    }

    private static ConnectionProfile.Quality quality(Timeline tl, List<SensorView> views, SequenceSpace bases, SenderSim c2s, SenderSim s2c,
            long eventsOverCap) {
        int dups = 0;
        int supers = 0;
        int reordered = 0;
        for (SensorView v : views) {
            dups += v.duplicatesRemoved;
            supers += v.superSegments;
            reordered += v.reorderedInCapture;
        }
        boolean closed = tl.txs.stream().anyMatch(t -> t.has(TcpFlags.FIN) || t.has(TcpFlags.RST));
        return new ConnectionProfile.Quality(c2s.stats.outOfWindow + s2c.stats.outOfWindow, tl.captureGaps,
                tl.lostBetweenSensors, dups, supers, reordered, !bases.clientSynSeen, closed, eventsOverCap);
    }

    /** Request/response exchanges as the client saw them: a run of client data, then the server's. */
    static final class Exchange {
        long requestBytes;
        long responseBytes;
        long requestFirstDep = Tx.NONE;
        long requestLastDep = Tx.NONE;
        long requestLastArrAtServer = Tx.NONE;
        long responseFirstDepAtServer = Tx.NONE;
        long responseFirstArr = Tx.NONE;
        long responseLastArr = Tx.NONE;
        boolean responseStarted;

        static List<Exchange> detect(Timeline tl) {
            List<Tx> events = new ArrayList<>();
            for (Tx t : tl.txs) {
                boolean request = t.c2s() && t.kind == Tx.Kind.NEW_DATA && t.p.len > 0 && t.dep != Tx.NONE;
                boolean response = !t.c2s() && t.p.len > 0 && t.newAtReceiver && t.arr != Tx.NONE;
                if (request || response) {
                    events.add(t);
                }
            }
            InOrder.sortBy(events, t -> t.c2s() ? t.dep : t.arr);
            List<Exchange> out = new ArrayList<>();
            Exchange cur = null;
            for (Tx t : events) {
                if (t.c2s()) {
                    if (cur == null || cur.responseStarted) {
                        cur = new Exchange();
                        out.add(cur);
                    }
                    cur.requestBytes += t.p.len;
                    cur.requestFirstDep = cur.requestFirstDep == Tx.NONE ? t.dep : cur.requestFirstDep;
                    cur.requestLastDep = t.dep;
                } else {
                    if (cur == null) {
                        cur = new Exchange(); // the server spoke first (banners)
                        out.add(cur);
                    }
                    cur.responseStarted = true;
                    cur.responseBytes += t.p.len;
                    cur.responseFirstArr = cur.responseFirstArr == Tx.NONE ? t.arr : cur.responseFirstArr;
                    cur.responseLastArr = t.arr;
                }
            }
            out.removeIf(x -> !x.responseStarted); // a request still unanswered when the trace ends
            for (Exchange x : out) {
                x.serverSideTimes(tl);
            }
            return out;
        }

        /** The request's last byte reaching the server and the response's first byte leaving it. */
        private void serverSideTimes(Timeline tl) {
            for (Tx t : tl.txs) {
                if (t.c2s() && t.p.len > 0 && t.newAtReceiver && t.arr != Tx.NONE && t.dep >= requestFirstDep
                        && (requestLastDep == Tx.NONE || t.dep <= requestLastDep)) {
                    requestLastArrAtServer = Math.max(requestLastArrAtServer, t.arr);
                }
                if (!t.c2s() && t.kind == Tx.Kind.NEW_DATA && t.p.len > 0 && t.arr != Tx.NONE
                        && t.arr >= responseFirstArr && t.arr <= responseLastArr && responseFirstDepAtServer == Tx.NONE) {
                    responseFirstDepAtServer = t.dep;
                }
            }
        }

        /** Request complete at the server to first response byte; with a client-side capture only, estimated. */
        long serverThink(Timeline tl) {
            if (requestFirstDep == Tx.NONE) {
                return -1;
            }
            if (tl.mode == CaptureMode.CLIENT_SIDE) {
                return tl.minRttUs < 0 ? -1 : Math.max(0, responseFirstArr - requestLastDep - tl.minRttUs);
            }
            if (requestLastArrAtServer == Tx.NONE || responseFirstDepAtServer == Tx.NONE) {
                return -1;
            }
            return Math.max(0, responseFirstDepAtServer - requestLastArrAtServer);
        }

        long firstByte() {
            return requestFirstDep == Tx.NONE ? -1 : responseFirstArr - requestFirstDep;
        }
    }
}
