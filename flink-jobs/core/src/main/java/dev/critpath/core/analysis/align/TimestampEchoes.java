package dev.critpath.core.analysis.align;

import dev.critpath.core.analysis.clean.Packet;
import dev.critpath.core.event.TcpFlags;

/**
 * With one capture, what the unwatched end's TCP timestamps say about when the local end's
 * packets reached it. Each remote packet echoes TS.Recent (RFC 7323): the timestamp of the latest
 * packet it had taken in from here, where a packet starting at or below the last ACK it sent
 * replaces it. So the first local packet carrying the echoed timestamp had arrived when the remote
 * packet left (paths are taken as FIFO), and one whose timestamp is above the echo had not,
 * however short the minimum one-way delay makes the estimate (an ACK queued on a slow uplink, a
 * jittery path). Without timestamps (or with one side's only, or some of the local end's packets
 * unstamped) nothing changes.
 */
final class TimestampEchoes {
    private final Packet[] pkts;
    private final boolean atClient;
    private final Workspace ws;
    /** The first local timestamp, which the others are taken relative to (they wrap at 2^32). */
    private final long base;
    /** Local packets with a timestamp by it (relative); none when the local end leaves some packets unstamped. */
    private final KeyedIndices byStamp;
    /** Local packets taking sequence space by where they end. */
    private final KeyedIndices ends;
    /**
     * Per packet, the first local packet carrying the timestamp that this one echoes (a remote
     * packet that {@link #echoes}) or carries (a local one), or -1.
     */
    private final int[] firstCarriers;

    private TimestampEchoes(Packet[] pkts, boolean atClient, Workspace ws) {
        this.pkts = pkts;
        this.atClient = atClient;
        this.ws = ws;
        int n = pkts.length;
        byStamp = ws.stamps;
        byStamp.clear(n);
        ends = ws.ends;
        ends.clear(n);
        long first = Long.MIN_VALUE;
        boolean unstamped = false;
        for (int i = 0; i < n; i++) {
            Packet p = pkts[i];
            if (p.c2s != atClient) {
                continue;
            }
            if (p.tsval >= 0) {
                first = first == Long.MIN_VALUE ? p.tsval : first;
                byStamp.add(RemoteStamps.relative(p.tsval, first), i);
            } else if (!p.has(TcpFlags.RST)) {
                unstamped = true;
            }
            if (p.carriesSeqSpace() && p.end() >= 0 && p.end() < 1L << 31) {
                ends.add(p.end(), i);
            }
        }
        base = first;
        if (unstamped) {
            byStamp.clear(0); // a stack that stamps only some of its packets: the peer keeps echoing a stale stamp, which names nothing
        }
        byStamp.sort();
        ends.sort();
        firstCarriers = ws.firstCarriers(n);
        int carrier = -1;
        long echoed = Long.MIN_VALUE; // echoes come in runs of one timestamp: each run looked up once
        for (int i = 0; i < n; i++) {
            Packet p = pkts[i];
            if (byStamp.size > 0 && echoes(p)) {
                long rel = RemoteStamps.relative(p.tsecr, base);
                carrier = rel == echoed ? carrier : byStamp.firstWith(rel);
                echoed = rel;
                firstCarriers[i] = carrier;
            } else {
                firstCarriers[i] = -1; // the local end's stamped packets follow
            }
        }
        for (int k = 0; k < byStamp.size; k++) {
            carrier = k == 0 || byStamp.keys[k] != byStamp.keys[k - 1] ? byStamp.indices[k] : carrier;
            firstCarriers[byStamp.indices[k]] = carrier;
        }
    }

    /** @param pkts one sensor's packets in capture order; atClient: the sensor is at the client's side */
    static TimestampEchoes of(Packet[] pkts, boolean atClient, Workspace ws) {
        return new TimestampEchoes(pkts, atClient, ws);
    }

    /**
     * The least round trip the timestamps show, µs, or MAX_VALUE without them. RFC 7323's RTTM:
     * from the first local packet carrying a timestamp to a remote packet echoing it, which left
     * after some packet with that timestamp arrived; pure ACKs time round trips this way too, so
     * a path whose larger packets serialise slowly (a 64 kbit/s uplink) is timed by its smallest
     * ones. When the far end's stamps tell time, each way is also timed apart: a remote packet
     * was stamped after the local packets it echoes or acknowledges arrived, so its stamp less
     * the latest such departure bounds the way there, and a remote packet's arrival less its
     * stamp the way back, each up to the clocks' offset, which cancels in their sum. The quickest
     * ways there and back need not belong to one round trip (jitter; small packets one way,
     * full-size ones the other), so their sum may be less. Each way's least is paired within
     * adjacent seconds: timestamp clocks keep their rate to a ten-thousandth, a fifth of a
     * millisecond over two seconds.
     */
    long minRoundTrip(RemoteStamps stamps) {
        SecondMinima ways = new SecondMinima();
        return Math.min(timeWays(stamps, ways), ways.leastSum());
    }

    /**
     * How much faster the capture's clock ran than the far end's stamps say, as a share of the
     * time elapsed (negative: slower), seen both ways: a clock losing time against the capture's
     * lengthens each way back (arrival less stamp) and shortens each way there (stamp less
     * departure) alike, so their sum holds, where a queue lengthens one way alone. Each way's
     * least in the first, middle and last thirds of the time the far end's stamps span (three
     * samples or more in each): where the two ways move in step, the lesser trend; 0 where they
     * do not, where the lesser move is within four steps of the stamps plus twice what the sum
     * of the two ways' least moves from third to third, or where a way's middle third is off the
     * line through its first and last by more than a quarter of that move plus those four steps
     * (a step, not a drift).
     */
    double drift(RemoteStamps stamps) {
        Thirds thirds = new Thirds(stamps.firstUs(), stamps.latestUs());
        timeWays(stamps, thirds);
        return thirds.drift(4 * stamps.resolutionUs());
    }

    /** Each way as the far end's stamps time it, handed to {@code ways}; returns the least round trip from a local packet to an echo of its stamp. */
    private long timeWays(RemoteStamps stamps, Ways ways) {
        long best = Long.MAX_VALUE;
        int newest = -1; // the latest local packet a remote one has named yet
        for (int i = 0; i < pkts.length; i++) {
            Packet p = pkts[i];
            boolean stamped = stamps.stampedRemote(p);
            if (stamped) {
                ways.back(p.ts, p.ts - stamps.stampedAt(p));
            }
            // a SYN cookie's stamp is up to 64 ticks old (its low bits carry options): it bounds no way there
            boolean timed = stamped && !p.has(TcpFlags.SYN);
            int named = p.c2s != atClient ? firstCarriers[i] : -1;
            if (named >= 0 && p.ts > pkts[named].ts) {
                best = Math.min(best, p.ts - pkts[named].ts);
            }
            int acked = timed && p.has(TcpFlags.ACK) ? firstEndingAt(p.ack) : -1;
            int sent = acked >= 0 && (named < 0 || pkts[acked].ts > pkts[named].ts) ? acked : named;
            if (timed && sent >= 0 && pkts[sent].ts < p.ts) {
                ways.there(p.ts, stamps.stampedAt(p) + stamps.resolutionUs() - pkts[sent].ts, sent > newest);
                newest = Math.max(newest, sent);
            }
        }
        return best;
    }

    /** One way's time as the far end's stamps tell it, at capture time {@code ts}, µs (up to the clocks' offset). */
    private interface Ways {
        /** @param first whether the local packet named is later than any named before (a packet named again bounds the way ever more loosely) */
        void there(long ts, long us, boolean first);

        void back(long ts, long us);
    }

    /** Each way's least in each third of a span, when it was, and how many samples each third had. */
    private static final class Thirds implements Ways {
        /** Samples of each way a third needs before its least counts. */
        private static final int MIN_SAMPLES = 3;
        private final long from;
        private final long to;
        private final long[] there = {Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE};
        private final long[] thereAt = new long[3];
        private final int[] thereSamples = new int[3];
        private final long[] back = {Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE};
        private final long[] backAt = new long[3];
        private final int[] backSamples = new int[3];

        Thirds(long from, long to) {
            this.from = from;
            this.to = to;
        }

        private int third(long ts) {
            long third = (to - from) / 3;
            return ts < from + third ? 0 : ts >= to - third ? 2 : 1;
        }

        @Override
        public void there(long ts, long us, boolean first) {
            int k = third(ts);
            if (first) {
                thereSamples[k]++;
                if (us < there[k]) {
                    there[k] = us;
                    thereAt[k] = ts;
                }
            }
        }

        @Override
        public void back(long ts, long us) {
            int k = third(ts);
            backSamples[k]++;
            if (us < back[k]) {
                back[k] = us;
                backAt[k] = ts;
            }
        }

        double drift(long noiseUs) {
            long leastSum = Long.MAX_VALUE;
            long mostSum = Long.MIN_VALUE;
            for (int k = 0; k < 3; k++) {
                if (thereSamples[k] < MIN_SAMPLES || backSamples[k] < MIN_SAMPLES) {
                    return 0;
                }
                leastSum = Math.min(leastSum, there[k] + back[k]);
                mostSum = Math.max(mostSum, there[k] + back[k]);
            }
            long backChange = back[2] - back[0];
            long thereChange = there[0] - there[2];
            long change = Math.min(Math.abs(backChange), Math.abs(thereChange));
            if (backChange > 0 != thereChange > 0 || change <= noiseUs + 2 * (mostSum - leastSum)
                    || !onTheLine(back, backAt, change / 4 + noiseUs) || !onTheLine(there, thereAt, change / 4 + noiseUs)) {
                return 0;
            }
            double backLengthens = (double) backChange / (backAt[2] - backAt[0]);
            double thereShortens = (double) thereChange / (thereAt[2] - thereAt[0]);
            return Math.copySign(Math.min(Math.abs(backLengthens), Math.abs(thereShortens)), backLengthens);
        }

        /** A drift moves each way's least steadily: the middle third's lies near the line through the others' (no step between two of them). */
        private static boolean onTheLine(long[] least, long[] at, long slackUs) {
            double expected = least[0] + (double) (least[2] - least[0]) * (at[1] - at[0]) / (at[2] - at[0]);
            return Math.abs(least[1] - expected) <= slackUs;
        }
    }

    /** Capture index of the earliest local packet ending at this sequence number, or -1: some copy of it had arrived. */
    private int firstEndingAt(long seq) {
        return seq < 0 || seq >= 1L << 31 ? -1 : ends.firstWith(seq);
    }

    /** Each way's least per second of capture time, summed over the same or adjacent seconds. */
    private static final class SecondMinima implements Ways {
        private long second = Long.MIN_VALUE;
        /** Where that second starts, µs; MAX_VALUE before the first. */
        private long secondStart = Long.MAX_VALUE;
        private long there = Long.MAX_VALUE;
        private long back = Long.MAX_VALUE;
        private long prevSecond = Long.MIN_VALUE;
        private long prevThere = Long.MAX_VALUE;
        private long prevBack = Long.MAX_VALUE;
        private long best = Long.MAX_VALUE;

        @Override
        public void there(long ts, long us, boolean first) {
            at(ts);
            there = Math.min(there, us);
        }

        @Override
        public void back(long ts, long us) {
            at(ts);
            back = Math.min(back, us);
        }

        private void at(long ts) {
            if (ts < secondStart || ts - secondStart >= 1_000_000) {
                moveTo(ts);
            }
        }

        /** Moves to the second holding ts, pairing the one it leaves with the one before. */
        private void moveTo(long ts) {
            long s = Math.floorDiv(ts, 1_000_000);
            secondStart = s * 1_000_000;
            close();
            boolean adjacent = s == second + 1;
            prevSecond = adjacent ? second : Long.MIN_VALUE;
            prevThere = adjacent ? there : Long.MAX_VALUE;
            prevBack = adjacent ? back : Long.MAX_VALUE;
            second = s;
            there = Long.MAX_VALUE;
            back = Long.MAX_VALUE;
        }

        private void close() {
            best = Math.min(best, sum(there, back));
            best = Math.min(best, sum(there, prevBack));
            best = Math.min(best, sum(prevThere, back));
        }

        private static long sum(long a, long b) {
            return a == Long.MAX_VALUE || b == Long.MAX_VALUE ? Long.MAX_VALUE : a + b;
        }

        long leastSum() {
            close();
            return best;
        }
    }

    /**
     * On the timeline's transmissions (one per packet, in capture order, remote departures
     * estimated): names, for each remote one, the local transmission its echo shows had arrived;
     * and moves the local ones' estimated arrivals to just after the latest remote departure that
     * did not echo them, yet no later than the earliest that did.
     */
    void bound(Tx[] txs) {
        KeyedIndices echoing = ws.echoes;
        echoing.clear(txs.length);
        for (int i = 0; i < txs.length; i++) {
            Tx t = txs[i];
            int named = t.c2s() != atClient ? firstCarriers[i] : -1;
            if (named >= 0) {
                t.echoNames(txs[named]);
                echoing.add(RemoteStamps.relative(t.p.tsecr, base), i);
            }
        }
        if (echoing.size == 0) {
            return;
        }
        Departures byEcho = new Departures(echoing, txs, ws);
        long peerAck = 0; // the SYN's sequence number: a SYN and the SYN/ACK answering it set TS.Recent
        long sentTo = Long.MIN_VALUE;
        long fifo = Long.MIN_VALUE;
        for (int i = 0; i < txs.length; i++) {
            Tx t = txs[i];
            if (t.c2s() != atClient) {
                peerAck = t.has(TcpFlags.ACK) ? Math.max(peerAck, t.p.ack) : peerAck;
                continue;
            }
            long arr = Math.max(t.arr(), fifo);
            if (t.p.tsval >= 0) {
                long ts = RemoteStamps.relative(t.p.tsval, base);
                // the peer's last ACK reached the sensor before this left: the unwatched end's last
                // ACK sent was at least that when this arrived, so taking it in replaced TS.Recent
                if (!t.has(TcpFlags.RST) && t.seq() >= sentTo && t.seq() <= peerAck) {
                    arr = Math.max(arr, byEcho.after(ts));
                }
                // an echo of this timestamp (for the first packet carrying it) or of a later one left
                // after this arrived: that evidence wins where the departures' estimates disagree
                boolean first = firstCarriers[i] == i;
                arr = Math.max(t.dep() + 1, Math.min(arr, byEcho.before(first ? ts : ts + 1)));
            }
            if (arr != t.arr()) {
                t.arrived(arr, true);
            }
            fifo = arr;
            sentTo = Math.max(sentTo, t.end());
        }
    }

    /** A remote packet that echoes a local timestamp, if the local end stamps its packets (a SYN's echo field is zero, not an echo). */
    private boolean echoes(Packet p) {
        return p.c2s != atClient && p.has(TcpFlags.ACK) && p.tsecr >= 0;
    }

    /** The remote departures by the timestamp they echo. */
    private static final class Departures {
        private final KeyedIndices echoed;
        /** Latest estimated departure among those echoing no more than the k-th echo. */
        private final long[] latestUpTo;
        /** Earliest estimated departure among those echoing at least the k-th echo. */
        private final long[] earliestFrom;

        /** @param echoed the echoing transmissions of txs by the (relative) timestamp they echo */
        Departures(KeyedIndices echoed, Tx[] txs, Workspace ws) {
            echoed.sort();
            int n = echoed.size;
            this.echoed = echoed;
            latestUpTo = ws.latestUpTo(n);
            earliestFrom = ws.earliestFrom(n);
            for (int i = 0; i < n; i++) {
                latestUpTo[i] = Math.max(txs[echoed.indices[i]].dep(), i == 0 ? Long.MIN_VALUE : latestUpTo[i - 1]);
            }
            for (int i = n - 1; i >= 0; i--) {
                earliestFrom[i] = Math.min(txs[echoed.indices[i]].dep(), i == n - 1 ? Long.MAX_VALUE : earliestFrom[i + 1]);
            }
        }

        /** Just after the latest departure echoing an earlier (relative) timestamp than ts; MIN_VALUE when none did. */
        long after(long ts) {
            int below = echoed.firstAtLeast(ts);
            return below == 0 ? Long.MIN_VALUE : latestUpTo[below - 1] + 1;
        }

        /** The earliest departure echoing ts or a later timestamp; MAX_VALUE when none did. */
        long before(long ts) {
            int from = echoed.firstAtLeast(ts);
            return from < echoed.size ? earliestFrom[from] : Long.MAX_VALUE;
        }
    }
}
