package dev.critpath.core.offline;

import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.lifecycle.ConnectionLifecycle;
import dev.critpath.core.lifecycle.FinishedConnection;
import dev.critpath.core.lifecycle.LifecycleConfig;
import dev.critpath.core.lifecycle.LifecycleLoop;
import dev.critpath.core.lifecycle.PathAnalysis;
import dev.critpath.core.lifecycle.PathState;
import dev.critpath.core.lifecycle.Rejection;
import dev.critpath.core.screen.ConnectionResult;
import dev.critpath.core.screen.Screen;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Captures of any length in bounded memory: packets are read once, in time order, through the
 * same life cycle the streaming job uses; each connection is finalised when it closes or goes
 * idle, analysed (on a pool of threads), handed on in the order it was finalised, and dropped.
 * What is held at one time is the connections open at that time, within the life cycle's caps.
 * Each connection is analysed on its own, as a whole (no path history: a rerun of one connection
 * gives its row).
 */
public final class OfflineAnalysis {
    /** Events a merged input may be behind the time the life cycle has reached (pcap stamps go back a little). */
    static final long SLACK_US = 2_000_000;
    private static final int PROGRESS_EVERY = 1 << 16;

    /** Where results and rejections go, on the caller's thread, results in the order connections were finalised. */
    public interface Output {
        void analysed(ConnectionResult result, PathAnalysis.Rows rows) throws IOException;

        void rejected(Rejection rejection);
    }

    /** How far a run is, for progress output; the last one is {@code done}. */
    public record Progress(long events, long bytesRead, long bytesTotal, long connectionsHeld, long connectionsDone, long nanos, boolean done) {
    }

    /** What a run read and did. */
    public record Totals(long events, long connections, Map<String, Long> rejected, List<String> notes) {
    }

    /**
     * @param lifecycle       the caps and quiet periods
     * @param analysisThreads threads analysing finished connections; 0 analyses on the reading thread
     */
    public record Settings(LifecycleConfig lifecycle, int analysisThreads) {
        /** A connection open this long is analysed in segments where it goes quiet, as the stream does. */
        public static final Duration SEGMENT_AFTER = Duration.ofHours(1);
        /**
         * As the stream's. A stray packet more than this after a close (a RST repeated, an ACK
         * drawn by a late segment) comes after its connection was analysed and is counted, not
         * kept: a longer grace keeps it, and holds every closed connection that much longer.
         */
        public static final long CLOSE_GRACE_S = 5;
        public static final int MAX_EVENTS_PER_CONNECTION = 1_000_000;
        /** Offline there is no hurry: a connection silent this long without closing is done (keep-alives and persist timers stay within). */
        public static final long IDLE_TIMEOUT_S = 900;
        public static final int MAX_OPEN_CONNECTIONS = 1_000_000;
        public static final long MAX_BUFFERED_PACKETS = 2_000_000;
        /**
         * What a held packet may take of the heap, with its share of its connection's state: held packed
         * (LifecycleLoop), 96 bytes on the lab's connections of 34 packets and 60 on those of 678, as
         * objects 147 and 134.
         */
        public static final long BYTES_PER_BUFFERED_PACKET = 200;

        /** Packets held at most by default: {@link #MAX_BUFFERED_PACKETS}, or what half of a smaller heap holds. */
        public static long maxBufferedPackets(long maxHeapBytes) {
            return Math.min(MAX_BUFFERED_PACKETS, maxHeapBytes / 2 / BYTES_PER_BUFFERED_PACKET);
        }

        /**
         * What an open connection may take of the heap besides its packets: the life cycle's state
         * and the capture reader's (a flood of 3-packet connections held 929 bytes each in the life
         * cycle, their names and addresses included), and its share of the tombstones (twice as
         * many at most, a few hundred bytes each).
         */
        public static final long BYTES_PER_OPEN_CONNECTION = 1_500;

        /** Connections held at most by default: {@link #MAX_OPEN_CONNECTIONS}, or what a quarter of a smaller heap holds. */
        public static int maxOpenConnections(long maxHeapBytes) {
            return (int) Math.min(MAX_OPEN_CONNECTIONS, maxHeapBytes / 4 / BYTES_PER_OPEN_CONNECTION);
        }
        public static final int MAX_HALF_OPEN_FLOWS = 100_000;

        /** The defaults of `critpath analyze`. */
        public static Settings defaults(int analysisThreads) {
            long heap = Runtime.getRuntime().maxMemory();
            return new Settings(lifecycle(Duration.ofSeconds(CLOSE_GRACE_S), Duration.ofSeconds(IDLE_TIMEOUT_S), maxOpenConnections(heap),
                    maxBufferedPackets(heap)), analysisThreads);
        }

        /** The offline life cycle: the stream's lateness, caps from the caller. */
        public static LifecycleConfig lifecycle(Duration closeGrace, Duration idleTimeout, int maxOpenConnections, long maxBufferedPackets) {
            return new LifecycleConfig(closeGrace, idleTimeout, Duration.ofSeconds(60), MAX_EVENTS_PER_CONNECTION,
                    SEGMENT_AFTER, Duration.ofSeconds(1), maxOpenConnections, maxBufferedPackets, MAX_HALF_OPEN_FLOWS);
        }
    }

    /** What came of one finished connection (or segment), kept until its turn to be handed on. */
    private record Outcome(List<ConnectionResult> results, List<PathAnalysis.Rows> rows, List<Rejection> failed) {
        Outcome() {
            this(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        }
    }

    private final PathAnalysis pathAnalysis;
    private final Settings settings;

    public OfflineAnalysis(Analyzer analyzer, Screen screen, Settings settings) {
        this.pathAnalysis = new PathAnalysis(analyzer, screen);
        this.settings = settings;
    }

    public Totals run(List<EventInput> inputs, Output out, java.util.function.Consumer<Progress> progress)
            throws InputFailedException, InterruptedException, IOException {
        long started = System.nanoTime();
        Map<String, Long> rejected = new LinkedHashMap<>();
        Output counted = new Output() {
            @Override
            public void analysed(ConnectionResult result, PathAnalysis.Rows rows) throws IOException {
                out.analysed(result, rows);
            }

            @Override
            public void rejected(Rejection r) {
                rejected.merge(r.reason(), 1L, Long::sum);
                out.rejected(r);
            }
        };
        Run run = new Run(counted);
        ConnectionLifecycle lifecycle = new ConnectionLifecycle(settings.lifecycle(), t -> "");
        LifecycleLoop loop = new LifecycleLoop(lifecycle, run::finished, counted::rejected);
        long events = 0;
        try (MergedInputs merged = new MergedInputs(inputs)) {
            merged.start();
            PacketEvent e;
            // the watermark moves in whole ms: most events leave it where it is, and are let through on one comparison
            long nextMsAtUs = Long.MIN_VALUE;
            while ((e = merged.next()) != null) {
                loop.add(e);
                long watermarkUs = merged.watermarkUs();
                if (watermarkUs >= nextMsAtUs) {
                    long ms = Math.floorDiv(watermarkUs - SLACK_US, 1000);
                    loop.advanceWatermark(ms);
                    nextMsAtUs = ms < (Long.MAX_VALUE - SLACK_US) / 1000 ? (ms + 1) * 1000 + SLACK_US : Long.MAX_VALUE;
                }
                run.deliverDone();
                if ((++events & (PROGRESS_EVERY - 1)) == 0) {
                    progress.accept(new Progress(events, merged.bytesRead(), bytesTotal(inputs), lifecycle.flowsHeld(), run.connections,
                            System.nanoTime() - started, false));
                }
            }
            loop.endOfInput();
            run.deliverAll();
            progress.accept(new Progress(events, merged.bytesRead(), bytesTotal(inputs), 0, run.connections, System.nanoTime() - started, true));
            return new Totals(events, run.connections, rejected, merged.notes());
        } catch (DeliveryFailed f) {
            throw f.cause();
        } finally {
            run.close();
        }
    }

    /** The output's failure, or an interrupt, while handing on from within the life cycle's callback. */
    private static final class DeliveryFailed extends RuntimeException {
        DeliveryFailed(Exception cause) {
            super(cause);
        }

        IOException cause() throws InterruptedException {
            if (getCause() instanceof InterruptedException i) {
                throw i;
            }
            return (IOException) getCause();
        }
    }

    /** The inputs' total size in the bytes they count as read; -1 when a compressed or unsized input makes it unknown. */
    private static long bytesTotal(List<EventInput> inputs) {
        long total = 0;
        for (EventInput in : inputs) {
            if (in.sizeBytes() < 0 || !in.bytesComparableToSize()) {
                return -1;
            }
            total += in.sizeBytes();
        }
        return total;
    }

    /** One run's analyses in flight, handed on in the order their connections were finalised. */
    private final class Run implements AutoCloseable {
        private final Output out;
        private final ExecutorService pool;
        private final int maxInFlight;
        private final ArrayDeque<Future<Outcome>> inFlight = new ArrayDeque<>();
        /** What the segments of a long-lived connection so far left for the next, by flow. */
        private final Map<String, byte[]> segmentsKept = new HashMap<>();
        long connections;

        Run(Output out) {
            this.out = out;
            int threads = settings.analysisThreads();
            this.pool = threads > 0 ? Executors.newFixedThreadPool(threads, r -> {
                Thread t = new Thread(r, "analysis");
                t.setDaemon(true);
                return t;
            }) : null;
            this.maxInFlight = 4 * Math.max(1, threads) + 8;
        }

        /**
         * Also hands on what is done: one step of the watermark can finalise any number of
         * connections (the end of input finalises every one still open), and their analyses wait
         * their turn here rather than all in memory at once.
         */
        void finished(FinishedConnection c) {
            if (c.whole() && pool != null) {
                inFlight.add(pool.submit(() -> analyse(c)));
            } else { // segments follow one another: analysed here, in order
                inFlight.add(CompletableFuture.completedFuture(analyse(c)));
            }
            try {
                deliverDone();
            } catch (IOException | InterruptedException e) {
                throw new DeliveryFailed(e);
            }
        }

        private Outcome analyse(FinishedConnection c) {
            Outcome o = new Outcome();
            PathAnalysis.Outcomes outcomes = new PathAnalysis.Outcomes() {
                @Override
                public void analysed(ConnectionResult result, PathAnalysis.Rows rows) {
                    o.results().add(result);
                    o.rows().add(rows);
                }

                @Override
                public void failed(Rejection why) {
                    o.failed().add(why);
                }
            };
            if (c.whole()) {
                pathAnalysis.whole(c, new PathState(), outcomes);
            } else {
                byte[] kept = pathAnalysis.segment(c, new PathState(), segmentsKept.remove(c.flow()), outcomes);
                if (kept != null) {
                    segmentsKept.put(c.flow(), kept);
                }
            }
            return o;
        }

        /** Hands on what is done at the head of the queue; waits when too much is in flight. */
        void deliverDone() throws InterruptedException, IOException {
            while (!inFlight.isEmpty() && (inFlight.peek().isDone() || inFlight.size() > maxInFlight)) {
                deliver(inFlight.poll());
            }
        }

        void deliverAll() throws InterruptedException, IOException {
            while (!inFlight.isEmpty()) {
                deliver(inFlight.poll());
            }
        }

        private void deliver(Future<Outcome> f) throws InterruptedException, IOException {
            Outcome o;
            try {
                o = f.get();
            } catch (ExecutionException e) { // the analysis catches its own failures: this is a bug worth stopping for
                throw new IllegalStateException(e.getCause());
            }
            for (int i = 0; i < o.results().size(); i++) {
                if (o.rows().get(i) != PathAnalysis.Rows.SEGMENT) {
                    connections++;
                }
                out.analysed(o.results().get(i), o.rows().get(i));
            }
            o.failed().forEach(out::rejected);
        }

        @Override
        public void close() {
            if (pool != null) {
                pool.shutdownNow();
            }
        }
    }
}
