package dev.critpath.core.event;

import java.util.HashMap;
import java.util.Map;

/**
 * Builds events from their fields, checking each flow's addresses and Community ID against its
 * tuple once: a flow sends hundreds of packets, and the hash is most of the cost of reading one.
 * Bounded: cleared when full. One per reader, whatever the encoding.
 */
final class CheckedFlows {
    private static final int MAX_CHECKED = 100_000;

    /** Seed the fleet's sensors use for Community IDs; a negative value skips the hash check. */
    private final int communityIdSeed;
    private final Map<String, Flow> checked = new HashMap<>();

    private record Flow(String origH, int origP, String respH, int respP) {
        boolean is(EventFields f) {
            return origP == f.origP && respP == f.respP && origH.equals(f.origH) && respH.equals(f.respH);
        }
    }

    CheckedFlows(int communityIdSeed) {
        this.communityIdSeed = communityIdSeed;
    }

    PacketEvent build(EventFields f) throws InvalidEventException {
        Flow known = f.communityId == null ? null : checked.get(f.communityId);
        boolean flowChecked = known != null && known.is(f);
        PacketEvent e = f.build(communityIdSeed, flowChecked);
        if (!flowChecked) {
            if (checked.size() >= MAX_CHECKED) {
                checked.clear();
            }
            checked.put(e.communityId(), new Flow(e.origH(), e.origP(), e.respH(), e.respP()));
        }
        return e;
    }
}
