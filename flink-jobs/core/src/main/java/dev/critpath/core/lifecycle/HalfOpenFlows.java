package dev.critpath.core.lifecycle;

import dev.critpath.core.event.PacketEvent;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Flows that so far have neither an answer nor payload (a SYN, its retransmissions), held apart
 * from the keyed connection state and bounded: when full, the flow quiet the longest is set aside
 * first, so a SYN flood costs the oldest half-open flows, never the connections being analysed. A
 * flow leaves when an answer or payload comes (it becomes a connection), when it has been quiet
 * for the idle timeout, or when evicted.
 */
final class HalfOpenFlows {
    /** Packets kept per half-open flow; more (a flood on one flow) are only counted. */
    static final int MAX_EVENTS_PER_FLOW = 16;

    /** One half-open flow set aside, and why. */
    record SetAside(String flow, List<PacketEvent> events, long uncounted, boolean evicted) {
    }

    private static final class Pen {
        final List<PacketEvent> events = new ArrayList<>(2);
        /** The responder's SYN/ACK came: the originator's ACK would complete the handshake. */
        boolean answered;
        long lastActivityMs;
        long uncounted;
    }

    private final int capacity;
    private final Map<String, Pen> flows = new LinkedHashMap<>(16, 0.75f, true); // quiet longest first

    HalfOpenFlows(int capacity) {
        this.capacity = capacity;
    }

    boolean holds(String flow) {
        return flows.containsKey(flow);
    }

    /** Whether the event, with what the flow holds, engages it; the table is looked at only for a bare ACK. */
    boolean engages(String flow, PacketEvent e) {
        Pen p = e.completesHandshake() ? flows.get(flow) : null;
        return e.engagesFlow(p != null && p.answered);
    }

    /** Adds a packet of a half-open flow; returns the flow it evicted to make room, if any. */
    SetAside add(String flow, PacketEvent e, long activityMs) {
        SetAside evicted = null;
        Pen p = flows.get(flow);
        if (p == null) {
            if (flows.size() >= capacity) {
                evicted = remove(flows.keySet().iterator().next(), true);
            }
            p = new Pen();
            flows.put(flow, p);
        }
        if (p.events.size() < MAX_EVENTS_PER_FLOW) {
            p.events.add(e);
        } else {
            p.uncounted++;
        }
        p.answered |= e.isSynAck();
        p.lastActivityMs = Math.max(p.lastActivityMs, activityMs);
        return evicted;
    }

    /** The flow's packets, now that it became a connection. */
    List<PacketEvent> take(String flow) {
        return remove(flow, false).events();
    }

    /** Flows quiet since before {@code beforeMs}, removed. */
    List<SetAside> expire(long beforeMs) {
        List<SetAside> out = new ArrayList<>();
        Iterator<Map.Entry<String, Pen>> it = flows.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<String, Pen> oldest = it.next();
            if (oldest.getValue().lastActivityMs >= beforeMs) {
                break;
            }
            it.remove();
            out.add(new SetAside(oldest.getKey(), oldest.getValue().events, oldest.getValue().uncounted, false));
        }
        return out;
    }

    private SetAside remove(String flow, boolean evicted) {
        Pen p = flows.remove(flow);
        return new SetAside(flow, p.events, p.uncounted, evicted);
    }

    /** When the flow quiet the longest was last active, or Long.MAX_VALUE with none held. */
    long oldestActivityMs() {
        return flows.isEmpty() ? Long.MAX_VALUE : flows.values().iterator().next().lastActivityMs;
    }

    int size() {
        return flows.size();
    }

    long events() {
        return flows.values().stream().mapToLong(p -> p.events.size()).sum();
    }

    /** Every packet held, quiet longest first: what a checkpoint keeps. */
    List<PacketEvent> snapshot() {
        List<PacketEvent> all = new ArrayList<>();
        flows.values().forEach(p -> all.addAll(p.events));
        return all;
    }
}
