package dev.critpath.core.analysis.align;

import dev.critpath.core.analysis.clean.Packet;
import dev.critpath.core.event.TcpFlags;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

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
    private final List<Packet> pkts;
    private final boolean atClient;
    /** The first local timestamp, which the others are taken relative to (they wrap at 2^32). */
    private final long base;
    /** Local packets with a timestamp, packed: relative timestamp, then the capture index; sorted. */
    private final long[] sent;

    private TimestampEchoes(List<Packet> pkts, boolean atClient) {
        this.pkts = pkts;
        this.atClient = atClient;
        long first = Long.MIN_VALUE;
        long[] keys = new long[pkts.size()];
        int n = 0;
        boolean unstamped = false;
        for (int i = 0; i < pkts.size(); i++) {
            Packet p = pkts.get(i);
            if (p.c2s == atClient && p.tsval >= 0) {
                first = first == Long.MIN_VALUE ? p.tsval : first;
                keys[n++] = (RemoteStamps.relative(p.tsval, first) << 32) | i;
            } else if (p.c2s == atClient && !p.has(TcpFlags.RST)) {
                unstamped = true;
            }
        }
        base = first;
        // a stack that stamps only some of its packets: the peer keeps echoing a stale stamp, which names nothing
        sent = unstamped ? new long[0] : Arrays.copyOf(keys, n);
        Arrays.sort(sent);
    }

    /** @param pkts one sensor's packets in capture order; atClient: the sensor is at the client's side */
    static TimestampEchoes of(List<Packet> pkts, boolean atClient) {
        return new TimestampEchoes(pkts, atClient);
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
        long best = Long.MAX_VALUE;
        SecondMinima ways = new SecondMinima();
        long[] ends = stamps.clocked() ? localEnds() : new long[0];
        for (Packet p : pkts) {
            if (stamps.stampedRemote(p)) {
                ways.back(p.ts, p.ts - stamps.stampedAt(p));
            }
            // a SYN cookie's stamp is up to 64 ticks old (its low bits carry options): it bounds no way there
            boolean timed = stamps.stampedRemote(p) && !p.has(TcpFlags.SYN);
            int named = echoes(p) ? firstWith(p.tsecr) : -1;
            long sent = named >= 0 ? pkts.get(named).ts : Long.MIN_VALUE;
            if (p.ts > sent && named >= 0) {
                best = Math.min(best, p.ts - sent);
            }
            int acked = timed && p.has(TcpFlags.ACK) ? firstEndingAt(ends, p.ack) : -1;
            sent = Math.max(sent, acked >= 0 ? pkts.get(acked).ts : Long.MIN_VALUE);
            if (timed && sent != Long.MIN_VALUE && sent < p.ts) {
                ways.there(p.ts, stamps.stampedAt(p) + stamps.resolutionUs() - sent);
            }
        }
        return Math.min(best, ways.leastSum());
    }

    /** Local packets taking sequence space, packed: where they end, then the capture index; sorted. */
    private long[] localEnds() {
        long[] ends = new long[pkts.size()];
        int n = 0;
        for (int i = 0; i < pkts.size(); i++) {
            Packet p = pkts.get(i);
            if (p.c2s == atClient && p.carriesSeqSpace() && p.end() >= 0 && p.end() < 1L << 31) {
                ends[n++] = p.end() << 32 | i;
            }
        }
        long[] sorted = Arrays.copyOf(ends, n);
        Arrays.sort(sorted);
        return sorted;
    }

    /** Capture index of the earliest local packet ending at this sequence number, or -1: some copy of it had arrived. */
    private static int firstEndingAt(long[] ends, long seq) {
        if (seq < 0 || seq >= 1L << 31) {
            return -1;
        }
        int k = Arrays.binarySearch(ends, seq << 32);
        k = k >= 0 ? k : -k - 1;
        return k < ends.length && ends[k] >> 32 == seq ? (int) ends[k] : -1;
    }

    /** Each way's least per second of capture time, summed over the same or adjacent seconds. */
    private static final class SecondMinima {
        private long second = Long.MIN_VALUE;
        private long there = Long.MAX_VALUE;
        private long back = Long.MAX_VALUE;
        private long prevSecond = Long.MIN_VALUE;
        private long prevThere = Long.MAX_VALUE;
        private long prevBack = Long.MAX_VALUE;
        private long best = Long.MAX_VALUE;

        void there(long ts, long us) {
            at(ts);
            there = Math.min(there, us);
        }

        void back(long ts, long us) {
            at(ts);
            back = Math.min(back, us);
        }

        /** Moves to the second holding ts, pairing the one it leaves with the one before. */
        private void at(long ts) {
            long s = Math.floorDiv(ts, 1_000_000);
            if (s == second) {
                return;
            }
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
    void bound(List<Tx> txs) {
        List<Tx> echoing = new ArrayList<>();
        for (Tx t : txs) {
            int named = echoes(t.p) ? firstWith(t.p.tsecr) : -1;
            if (named >= 0) {
                t.echoNames(txs.get(named));
                echoing.add(t);
            }
        }
        if (echoing.isEmpty()) {
            return;
        }
        Departures byEcho = new Departures(echoing, base);
        long peerAck = 0; // the SYN's sequence number: a SYN and the SYN/ACK answering it set TS.Recent
        long sentTo = Long.MIN_VALUE;
        long fifo = Long.MIN_VALUE;
        for (Tx t : txs) {
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
                boolean first = firstWith(t.p.tsval) == t.idx();
                arr = Math.max(t.dep() + 1, Math.min(arr, byEcho.before(first ? ts : ts + 1)));
            }
            if (arr != t.arr()) {
                t.arrived(arr, true);
            }
            fifo = arr;
            sentTo = Math.max(sentTo, t.end());
        }
    }

    /** A remote packet that echoes a local timestamp (a SYN's echo field is zero, not an echo). */
    private boolean echoes(Packet p) {
        return p.c2s != atClient && p.has(TcpFlags.ACK) && p.tsecr >= 0 && sent.length > 0;
    }

    /** Capture index of the first local packet carrying this timestamp, or -1. */
    private int firstWith(long ts) {
        long rel = RemoteStamps.relative(ts, base);
        int k = Arrays.binarySearch(sent, rel << 32);
        k = k >= 0 ? k : -k - 1;
        return k < sent.length && sent[k] >> 32 == rel ? (int) sent[k] : -1;
    }

    /** The remote departures by the timestamp they echo. */
    private static final class Departures {
        private final long[] echoed;
        /** Latest estimated departure among those echoing no more than echoed[i]. */
        private final long[] latestUpTo;
        /** Earliest estimated departure among those echoing at least echoed[i]. */
        private final long[] earliestFrom;

        Departures(List<Tx> remote, long base) {
            int n = remote.size();
            long[][] pairs = new long[n][];
            for (int i = 0; i < n; i++) {
                pairs[i] = new long[] {RemoteStamps.relative(remote.get(i).p.tsecr, base), remote.get(i).dep()};
            }
            Arrays.sort(pairs, (a, b) -> Long.compare(a[0], b[0]));
            echoed = new long[n];
            latestUpTo = new long[n];
            earliestFrom = new long[n];
            for (int i = 0; i < n; i++) {
                echoed[i] = pairs[i][0];
                latestUpTo[i] = Math.max(pairs[i][1], i == 0 ? Long.MIN_VALUE : latestUpTo[i - 1]);
            }
            for (int i = n - 1; i >= 0; i--) {
                earliestFrom[i] = Math.min(pairs[i][1], i == n - 1 ? Long.MAX_VALUE : earliestFrom[i + 1]);
            }
        }

        /** Just after the latest departure echoing an earlier (relative) timestamp than ts; MIN_VALUE when none did. */
        long after(long ts) {
            int below = firstAtLeast(ts);
            return below == 0 ? Long.MIN_VALUE : latestUpTo[below - 1] + 1;
        }

        /** The earliest departure echoing ts or a later timestamp; MAX_VALUE when none did. */
        long before(long ts) {
            int from = firstAtLeast(ts);
            return from < echoed.length ? earliestFrom[from] : Long.MAX_VALUE;
        }

        private int firstAtLeast(long ts) {
            int lo = 0;
            int hi = echoed.length;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (echoed[mid] < ts) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo;
        }
    }
}
