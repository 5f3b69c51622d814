package dev.critpath.core.analysis.profile;

import dev.critpath.core.analysis.CaptureMode;
import dev.critpath.core.analysis.ConnectionProfile;
import dev.critpath.core.analysis.align.Timeline;
import dev.critpath.core.analysis.clean.Packet;
import java.util.List;

/**
 * The operators' client/network/server pie from two captures (paper 002): client time is the sum
 * of the gaps before each client-sent frame in the client-side capture, server time the same for
 * server-sent frames in the server-side capture, and network time what remains of the
 * client-side capture's span. Kept beside the critical path so users see where they disagree.
 */
final class PieBaseline {
    private PieBaseline() {
    }

    /** @param fromUs client-timeline time before which frames only bound the first gap (segments), or Long.MIN_VALUE */
    static ConnectionProfile.Pie of(Timeline tl, long fromUs) {
        long fromAtServer = fromUs == Long.MIN_VALUE || tl.mode != CaptureMode.TWO_POINT ? fromUs : fromUs + tl.clock.offsetUs();
        Long client = tl.clientView == null ? null : sumGapsBefore(tl.clientView.frames, true, fromUs);
        Long server = tl.serverView == null ? null : sumGapsBefore(tl.serverView.frames, false, fromAtServer);
        Long network = null;
        if (client != null && server != null && !tl.clientView.frames.isEmpty()) {
            List<Packet> f = tl.clientView.frames;
            network = f.get(f.size() - 1).ts - Math.max(f.get(0).ts, fromUs) - client - server;
        }
        return new ConnectionProfile.Pie(client, server, network);
    }

    /** Sum of DeltaT (time since the previous frame, or since fromUs) over frames sent by the given side from fromUs on. */
    private static long sumGapsBefore(List<Packet> frames, boolean fromClient, long fromUs) {
        long sum = 0;
        long prevTs = frames.isEmpty() ? 0 : frames.get(0).ts;
        for (int i = 1, n = frames.size(); i < n; i++) {
            Packet p = frames.get(i);
            if (p.c2s == fromClient && p.ts >= fromUs) {
                sum += p.ts - Math.max(prevTs, fromUs);
            }
            prevTs = p.ts;
        }
        return sum;
    }
}
