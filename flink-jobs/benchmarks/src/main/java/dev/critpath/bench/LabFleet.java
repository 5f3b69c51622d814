package dev.critpath.bench;

import dev.critpath.core.event.PacketEvent;
import dev.critpath.kafka.Replay;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The lab's two-point connections as a fleet's traffic, for benchmarks: connection instances, each
 * a lab connection (taken in turn) on a client address of its own, both sensors' events with
 * their recorded relative timing and clock offsets, moved to start where the benchmark says.
 */
final class LabFleet {
    /** Each lab connection's events, both sensors, in time order. */
    private final List<List<PacketEvent>> connections = new ArrayList<>();

    LabFleet(List<Path> runs) throws Exception {
        Map<String, List<PacketEvent>> byClient = new LinkedHashMap<>();
        for (PacketEvent e : Replay.labRuns(runs)) { // one client address per lab connection
            byClient.computeIfAbsent(e.origH(), k -> new ArrayList<>()).add(e);
        }
        connections.addAll(byClient.values());
    }

    double eventsPerConnection() {
        return connections.stream().mapToInt(List::size).average().orElse(0);
    }

    /** Instance j: lab connection j mod n on client 10.a.b.c (from j), its first event at startUs. */
    List<PacketEvent> instance(int j, long startUs) {
        return instance(j, startUs, e -> true);
    }

    /** The part of instance j that {@code keep} accepts (times as in the whole instance). */
    List<PacketEvent> instance(int j, long startUs, Predicate<PacketEvent> keep) {
        List<PacketEvent> lab = connections.get(j % connections.size());
        String client = "10." + (128 + (j >> 16) % 128) + "." + ((j >> 8) & 255) + "." + (j & 255);
        String communityId = lab.get(0).communityIdWithClient(client); // one flow: its events share the tuple
        long shift = startUs - lab.get(0).tsUs();
        List<PacketEvent> out = new ArrayList<>(lab.size());
        for (PacketEvent e : lab) {
            if (keep.test(e)) {
                out.add(e.withClient(client, communityId).withTsUs(e.tsUs() + shift));
            }
        }
        return out;
    }

    /** Instances 0..count-1 starting intervalUs apart, merged in time order as sensors would publish them. */
    List<PacketEvent> stream(int count, long startUs, long intervalUs) {
        List<PacketEvent> all = new ArrayList<>();
        for (int j = 0; j < count; j++) {
            all.addAll(instance(j, startUs + j * intervalUs));
        }
        all.sort(PacketEvent.CAPTURE_ORDER);
        return all;
    }
}
