package dev.critpath.core.trace;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.SensorRole;
import dev.critpath.core.event.TcpFlags;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Groups packet events from any number of sensors into connection instances. A flow (Community
 * ID) is split into instances only on a fresh SYN with a new ISN after the previous instance
 * closed, moved data, or went idle; retransmitted SYNs, SYN/ACKs (even with a different ISN) and
 * FINs stay in their connection. Instances of different sensors are paired by the client's ISN,
 * or for mid-stream captures by overlapping sequence ranges.
 */
public final class ConnectionAssembler {
    /** A new SYN after this much silence starts a new instance even without a close. */
    private final long reuseIdleUs;
    private final Map<String, Map<String, List<PacketEvent>>> byFlowAndSensor = new LinkedHashMap<>();
    private final Map<String, SensorRole> roleHints = new LinkedHashMap<>();
    /** The list the last event went to: a flow's events come in runs, looked up once per run. */
    private String lastFlow;
    private String lastSensor;
    private SensorRole lastRole;
    private List<PacketEvent> lastList;

    public ConnectionAssembler(long reuseIdleUs) {
        this.reuseIdleUs = reuseIdleUs;
    }

    public ConnectionAssembler() {
        this(30_000_000L);
    }

    public void add(PacketEvent e) {
        // the same string objects (each flow's are made once) mean the same list; equal copies only cost a lookup
        boolean sameRun = e.communityId() == lastFlow && e.sensor() == lastSensor;
        if (!sameRun) {
            lastFlow = e.communityId();
            lastSensor = e.sensor();
            lastRole = null;
            lastList = byFlowAndSensor.computeIfAbsent(lastFlow, k -> new LinkedHashMap<>()).computeIfAbsent(lastSensor, k -> new ArrayList<>());
        }
        lastList.add(e);
        if (e.sensorRole() != null && e.sensorRole() != SensorRole.UNKNOWN && e.sensorRole() != lastRole) {
            roleHints.put(e.sensor(), e.sensorRole());
            lastRole = e.sensorRole();
        }
    }

    /** All connections seen so far, in order of first appearance. */
    public List<ConnectionTrace> connections() {
        List<ConnectionTrace> out = new ArrayList<>();
        for (Map.Entry<String, Map<String, List<PacketEvent>>> flow : byFlowAndSensor.entrySet()) {
            List<List<Instance>> perSensor = new ArrayList<>();
            for (Map.Entry<String, List<PacketEvent>> s : flow.getValue().entrySet()) {
                perSensor.add(split(s.getKey(), inCaptureOrder(s.getValue())));
            }
            out.addAll(pair(flow.getKey(), perSensor));
        }
        return out;
    }

    /** The packets as captured: nearly always in that order already, so sorted (a copy) only when not. */
    private static List<PacketEvent> inCaptureOrder(List<PacketEvent> pkts) {
        for (int i = 1, n = pkts.size(); i < n; i++) {
            PacketEvent a = pkts.get(i - 1);
            PacketEvent b = pkts.get(i);
            if (a.tsUs() > b.tsUs() || a.tsUs() == b.tsUs() && a.captureIndex() > b.captureIndex()) {
                List<PacketEvent> sorted = new ArrayList<>(pkts);
                sorted.sort(PacketEvent.CAPTURE_ORDER);
                return sorted;
            }
        }
        return pkts;
    }

    /** One sensor's packets of one flow cut into connection instances. */
    private List<Instance> split(String sensor, List<PacketEvent> pkts) {
        List<Instance> instances = new ArrayList<>();
        Instance cur = null;
        for (int i = 0, n = pkts.size(); i < n; i++) {
            PacketEvent e = pkts.get(i);
            boolean freshSyn = e.hasFlag(TcpFlags.SYN) && !e.hasFlag(TcpFlags.ACK);
            if (cur == null || (freshSyn && cur.endedBy(e, reuseIdleUs))) {
                cur = new Instance(sensor, roleHints.get(sensor), pkts, i);
                instances.add(cur);
            }
            cur.add(e);
        }
        return instances;
    }

    /** Pairs instances of different sensors that are the same connection. */
    private static List<ConnectionTrace> pair(String communityId, List<List<Instance>> perSensor) {
        List<List<Instance>> groups = new ArrayList<>();
        for (List<Instance> sensorInstances : perSensor) {
            for (Instance inst : sensorInstances) {
                List<Instance> home = null;
                for (List<Instance> g : groups) {
                    if (g.stream().noneMatch(x -> x.sensor.equals(inst.sensor)) && g.get(0).sameConnection(inst)) {
                        home = g;
                        break;
                    }
                }
                if (home == null) {
                    home = new ArrayList<>();
                    groups.add(home);
                }
                home.add(inst);
            }
        }
        List<ConnectionTrace> out = new ArrayList<>();
        for (List<Instance> g : groups) {
            PacketEvent any = g.get(0).first();
            List<SensorCapture> caps = new ArrayList<>();
            for (Instance i : g) {
                caps.add(new SensorCapture(i.sensor, i.roleHint, List.copyOf(i.packets())));
            }
            out.add(new ConnectionTrace(communityId, any.origH(), any.origP(), any.respH(), any.respP(), caps));
        }
        return out;
    }

    /**
     * One sensor's view of one connection instance while it is being cut: a run of the sensor's
     * packets, copied once when the cutting is done.
     */
    private static final class Instance {
        final String sensor;
        final SensorRole roleHint;
        private final List<PacketEvent> source;
        private final int from;
        private int to;
        long clientIsn = -1;
        boolean closedOrData;
        long lastTs;
        long minClientSeq = -1;
        long maxClientSeq = -1;

        /** @param from where in {@code source} its packets start */
        Instance(String sensor, SensorRole roleHint, List<PacketEvent> source, int from) {
            this.sensor = sensor;
            this.roleHint = roleHint;
            this.source = source;
            this.from = from;
            this.to = from;
        }

        PacketEvent first() {
            return source.get(from);
        }

        List<PacketEvent> packets() {
            return source.subList(from, to);
        }

        /** Takes the next packet of the source. */
        void add(PacketEvent e) {
            to++;
            lastTs = e.tsUs();
            if (e.isOrig()) {
                if (e.hasFlag(TcpFlags.SYN) && !e.hasFlag(TcpFlags.ACK) && clientIsn < 0) {
                    clientIsn = e.seq();
                }
                if (minClientSeq < 0) {
                    minClientSeq = e.seq();
                    maxClientSeq = e.seq();
                }
                // track the client's sequence span as an offset from the first value, wrap-safe
                if (seqAfter(minClientSeq, e.seq())) {
                    minClientSeq = e.seq();
                }
                long end = (e.seq() + e.len()) & 0xffff_ffffL;
                if (seqAfter(end, maxClientSeq)) {
                    maxClientSeq = end;
                }
            }
            if (e.len() > 0 || e.hasFlag(TcpFlags.FIN) || e.hasFlag(TcpFlags.RST)) {
                closedOrData = true;
            }
        }

        /** Would this fresh SYN start a new connection rather than retransmit the current one's? */
        boolean endedBy(PacketEvent syn, long reuseIdleUs) {
            if (clientIsn == syn.seq()) {
                return false;
            }
            return closedOrData || syn.tsUs() - lastTs > reuseIdleUs || clientIsn < 0;
        }

        boolean sameConnection(Instance other) {
            if (clientIsn >= 0 && other.clientIsn >= 0) {
                return clientIsn == other.clientIsn;
            }
            if (minClientSeq < 0 || other.minClientSeq < 0) {
                return true; // one side saw no client packet at all: nothing to contradict
            }
            return !seqAfter(other.minClientSeq, maxClientSeq) && !seqAfter(minClientSeq, other.maxClientSeq);
        }

        /** a > b in 32-bit sequence space. */
        private static boolean seqAfter(long a, long b) {
            return (int) (a - b) > 0;
        }
    }
}
