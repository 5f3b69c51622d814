package dev.critpath.core.analysis;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where one connection's time went, as the client saw it, with the counts behind it. {@link #columns()}
 * is the row of the warehouse's `profiles` table (schemas/profiles.avsc, documented in schemas/README.md)
 * but for the screen's two columns, which {@code ConnectionResult.profileColumns()} adds.
 */
public final class ConnectionProfile implements Serializable {
    public final String connUid;
    public final String communityId;
    public final String clientAddr;
    public final int clientPort;
    public final String serverAddr;
    public final int serverPort;
    public final String clientSensor;
    public final String serverSensor;
    public final CaptureMode mode;
    public final long startUs;
    public final long endUs;
    public final CategoryTimes times;
    public final PathSummary path;
    public final DirectionStats c2s;
    public final DirectionStats s2c;
    public final Timing timing;
    public final Quality quality;
    public final Pie pie;
    public final Costs costs;

    /** The critical path's shape. */
    public record PathSummary(int packets, int rounds, int arcs, long maxServerArcUs, long handshakeUs, long firstByteUs,
                              long serverThinkUs, boolean serverThinkEstimated, int exchanges) implements Serializable {
    }

    /** Delays through the sensors and the clock alignment between them. */
    public record Timing(long minRttUs, long minOwdC2sUs, long minOwdS2cUs, long clockOffsetUs,
                         long clockOffsetUncertaintyUs, boolean clockOffsetReliable, boolean clockOffsetFromPair, double clockDriftPpm) implements Serializable {
    }

    /** How much the engine had to repair or guess. */
    public record Quality(long outOfWindow, int captureGaps, int lostBetweenSensors, int acksLostBetweenSensors, int duplicatesRemoved,
                          int superSegments, int reorderedInCapture, boolean midStream, boolean closed, long eventsOverCap,
                          boolean sideContradicted, boolean sensorsColocated) implements Serializable {
    }

    /**
     * What the categories alone cannot say: what loss cost with the rounds it took from the window
     * (a loss-free replay's completion against the real one), and of each host's time on the path
     * the part its own link spent serialising bursts, with that link's rate (payload Mbit/s, from
     * packet pairs at its capture); -1 where no capture saw that host's departures or too few pairs.
     */
    public record Costs(long lossCostUs, long clientLinkUs, long serverLinkUs, double clientLinkMbps, double serverLinkMbps)
            implements Serializable {
        public static final Costs NONE = new Costs(0, -1, -1, -1, -1);

        /** This segment's costs followed by the next one's: times add up, a rate is the latest known. */
        Costs followedBy(Costs next) {
            return new Costs(lossCostUs + next.lossCostUs, sumKnown(clientLinkUs, next.clientLinkUs), sumKnown(serverLinkUs, next.serverLinkUs),
                    next.clientLinkMbps >= 0 ? next.clientLinkMbps : clientLinkMbps, next.serverLinkMbps >= 0 ? next.serverLinkMbps : serverLinkMbps);
        }

        /** The sum of two times of which either may be unknown (-1). */
        static long sumKnown(long a, long b) {
            return a < 0 ? b : b < 0 ? a : a + b;
        }
    }

    /** The client/network/server pie of the two-capture method (paper 002); null parts cannot be computed. */
    public record Pie(Long clientUs, Long serverUs, Long networkUs) implements Serializable {
    }

    public ConnectionProfile(String connUid, String communityId, String clientAddr, int clientPort, String serverAddr, int serverPort,
                      String clientSensor, String serverSensor, CaptureMode mode, long startUs, long endUs, CategoryTimes times,
                      PathSummary path, DirectionStats c2s, DirectionStats s2c, Timing timing, Quality quality, Pie pie, Costs costs) {
        this.connUid = connUid;
        this.communityId = communityId;
        this.clientAddr = clientAddr;
        this.clientPort = clientPort;
        this.serverAddr = serverAddr;
        this.serverPort = serverPort;
        this.clientSensor = clientSensor;
        this.serverSensor = serverSensor;
        this.mode = mode;
        this.startUs = startUs;
        this.endUs = endUs;
        this.times = times;
        this.path = path;
        this.c2s = c2s;
        this.s2c = s2c;
        this.timing = timing;
        this.quality = quality;
        this.pie = pie;
        this.costs = costs;
    }

    /**
     * This profile of a long-lived connection's first segments followed by the next segment's
     * (see {@link SegmentedConnection}): times and counts add up, extremes are kept, the first
     * exchange's figures come from the first segment that had one, and the clock offset is the
     * latest reliable one. Not screened: the screen judges the whole.
     *
     * @param continuesExchange the next segment begins with the rest of this one's last response
     */
    public ConnectionProfile followedBy(ConnectionProfile next, boolean continuesExchange) {
        CategoryTimes sum = new CategoryTimes();
        sum.addAll(times);
        sum.addAll(next.times);
        PathSummary first = path.exchanges() > 0 ? path : next.path;
        PathSummary p = new PathSummary(path.packets() + next.path.packets(), path.rounds() + next.path.rounds(),
                path.arcs() + next.path.arcs(), Math.max(path.maxServerArcUs(), next.path.maxServerArcUs()), path.handshakeUs(),
                first.firstByteUs(), first.serverThinkUs(), first.serverThinkEstimated(),
                path.exchanges() + next.path.exchanges() - (continuesExchange ? 1 : 0));
        Timing clock = next.timing.clockOffsetReliable() || !timing.clockOffsetReliable() ? next.timing : timing;
        Timing t = new Timing(DirectionStats.smallerKnown(timing.minRttUs(), next.timing.minRttUs()),
                DirectionStats.smallerKnown(timing.minOwdC2sUs(), next.timing.minOwdC2sUs()),
                DirectionStats.smallerKnown(timing.minOwdS2cUs(), next.timing.minOwdS2cUs()),
                clock.clockOffsetUs(), clock.clockOffsetUncertaintyUs(), clock.clockOffsetReliable(), clock.clockOffsetFromPair(),
                clock.clockDriftPpm());
        Quality q = new Quality(quality.outOfWindow() + next.quality.outOfWindow(), quality.captureGaps() + next.quality.captureGaps(),
                quality.lostBetweenSensors() + next.quality.lostBetweenSensors(),
                quality.acksLostBetweenSensors() + next.quality.acksLostBetweenSensors(), quality.duplicatesRemoved() + next.quality.duplicatesRemoved(),
                quality.superSegments() + next.quality.superSegments(), quality.reorderedInCapture() + next.quality.reorderedInCapture(),
                quality.midStream(), next.quality.closed(), quality.eventsOverCap() + next.quality.eventsOverCap(),
                quality.sideContradicted() || next.quality.sideContradicted(), quality.sensorsColocated() || next.quality.sensorsColocated());
        Pie pieSum = new Pie(plus(pie.clientUs(), next.pie.clientUs()), plus(pie.serverUs(), next.pie.serverUs()),
                plus(pie.networkUs(), next.pie.networkUs()));
        return new ConnectionProfile(connUid, communityId, clientAddr, clientPort, serverAddr, serverPort, clientSensor, serverSensor,
                mode, startUs, next.endUs, sum, p, c2s.followedBy(next.c2s), s2c.followedBy(next.s2c), t, q, pieSum,
                costs.followedBy(next.costs));
    }

    private static Long plus(Long a, Long b) {
        return a == null || b == null ? null : a + b;
    }

    /** All zero: the shape of a profile, for schema checks and templates. */
    public static ConnectionProfile empty() {
        return new ConnectionProfile("", "", "", 0, "", 0, null, null, CaptureMode.TWO_POINT, 0, 0, new CategoryTimes(),
                new PathSummary(0, 0, 0, 0, 0, 0, 0, false, 0), new DirectionStats(), new DirectionStats(),
                new Timing(0, 0, 0, 0, 0, true, false, 0), new Quality(0, 0, 0, 0, 0, 0, 0, false, false, 0, false, false), new Pie(0L, 0L, 0L), Costs.NONE);
    }

    public long durationUs() {
        return endUs - startUs;
    }

    public long retransmissions() {
        return c2s.retransmissions + s2c.retransmissions;
    }

    public long timeouts() {
        return c2s.timeouts + s2c.timeouts;
    }

    public long fastRetransmits() {
        return c2s.fastRetransmits + s2c.fastRetransmits;
    }

    public long backoffs() {
        return c2s.backoffs + s2c.backoffs;
    }

    /** The warehouse row, column names as in schemas/profiles.avsc; null for what cannot be known. */
    public Map<String, Object> columns() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("conn_uid", connUid);
        m.put("community_id", communityId);
        m.put("client_addr", clientAddr);
        m.put("client_port", clientPort);
        m.put("server_addr", serverAddr);
        m.put("server_port", serverPort);
        m.put("client_sensor", clientSensor);
        m.put("server_sensor", serverSensor);
        m.put("mode", mode.key());
        m.put("start_us", startUs);
        m.put("end_us", endUs);
        m.put("duration_us", durationUs());
        for (Category c : Category.ALL) {
            m.put(c.key() + "_us", times.get(c));
        }
        m.put("cp_packets", path.packets());
        m.put("cp_rounds", path.rounds());
        m.put("cp_arcs", path.arcs());
        m.put("max_server_arc_us", path.maxServerArcUs());
        m.put("handshake_us", nullIfNegative(path.handshakeUs()));
        m.put("first_byte_us", nullIfNegative(path.firstByteUs()));
        m.put("server_think_us", nullIfNegative(path.serverThinkUs()));
        m.put("server_think_estimated", path.serverThinkEstimated());
        m.put("exchanges", path.exchanges());
        m.put("packets_c2s", c2s.packets);
        m.put("packets_s2c", s2c.packets);
        m.put("bytes_c2s", c2s.bytes);
        m.put("bytes_s2c", s2c.bytes);
        m.put("retransmissions", retransmissions());
        m.put("retransmitted_bytes", c2s.retransmittedBytes + s2c.retransmittedBytes);
        m.put("retransmissions_of_captured_data", c2s.retransmissionsOfCapturedData + s2c.retransmissionsOfCapturedData);
        m.put("fast_retransmits", fastRetransmits());
        m.put("timeouts", timeouts());
        m.put("backoffs", backoffs());
        m.put("tail_loss_probes", c2s.tailLossProbes + s2c.tailLossProbes);
        m.put("spurious_retransmissions", c2s.spuriousRetransmissions + s2c.spuriousRetransmissions);
        m.put("dup_acks", c2s.dupAcksReceived + s2c.dupAcksReceived);
        m.put("zero_window_us", c2s.zeroWindowUs + s2c.zeroWindowUs);
        m.put("zero_window_episodes", c2s.zeroWindowEpisodes + s2c.zeroWindowEpisodes);
        m.put("rwnd_limited_us", c2s.rwndLimitedUs + s2c.rwndLimitedUs);
        m.put("longest_burst", Math.max(c2s.longestBurst, s2c.longestBurst));
        m.put("initial_flight", Math.max(c2s.initialFlight, s2c.initialFlight));
        m.put("burstiness_c2s", c2s.burstiness());
        m.put("burstiness_s2c", s2c.burstiness());
        m.put("min_rtt_us", nullIfNegative(timing.minRttUs()));
        m.put("min_owd_c2s_us", mode == CaptureMode.TWO_POINT ? nullIfNegative(timing.minOwdC2sUs()) : null);
        m.put("min_owd_s2c_us", mode == CaptureMode.TWO_POINT ? nullIfNegative(timing.minOwdS2cUs()) : null);
        m.put("srtt_server_us", nullIfNegative(s2c.srttUs));
        m.put("clock_offset_us", mode == CaptureMode.TWO_POINT ? timing.clockOffsetUs() : null);
        m.put("clock_offset_uncertainty_us", mode == CaptureMode.TWO_POINT ? nullIfNegative(timing.clockOffsetUncertaintyUs()) : null);
        m.put("clock_offset_reliable", timing.clockOffsetReliable());
        m.put("clock_offset_from_sensor_pair", timing.clockOffsetFromPair());
        m.put("clock_drift_ppm", mode == CaptureMode.TWO_POINT ? timing.clockDriftPpm() : null);
        m.put("out_of_window", quality.outOfWindow());
        m.put("capture_gaps", quality.captureGaps());
        m.put("lost_between_sensors", quality.lostBetweenSensors());
        m.put("acks_lost_between_sensors", quality.acksLostBetweenSensors());
        m.put("side_contradicted", quality.sideContradicted());
        m.put("sensors_colocated", quality.sensorsColocated());
        m.put("duplicates_removed", quality.duplicatesRemoved());
        m.put("super_segments", quality.superSegments());
        m.put("reordered_in_capture", quality.reorderedInCapture());
        m.put("mid_stream", quality.midStream());
        m.put("closed", quality.closed());
        m.put("events_over_cap", quality.eventsOverCap());
        m.put("pie_client_us", pie.clientUs());
        m.put("pie_server_us", pie.serverUs());
        m.put("pie_network_us", pie.networkUs());
        m.put("loss_cost_us", costs.lossCostUs());
        m.put("client_link_us", nullIfNegative(costs.clientLinkUs()));
        m.put("server_link_us", nullIfNegative(costs.serverLinkUs()));
        m.put("client_link_mbps", costs.clientLinkMbps() < 0 ? null : costs.clientLinkMbps());
        m.put("server_link_mbps", costs.serverLinkMbps() < 0 ? null : costs.serverLinkMbps());
        return m;
    }

    private static Long nullIfNegative(long v) {
        return v < 0 ? null : v;
    }

    @Override
    public String toString() {
        return connUid + " " + clientAddr + ":" + clientPort + " > " + serverAddr + ":" + serverPort + " " + mode
                + " duration " + durationUs() + " us: " + times;
    }
}
