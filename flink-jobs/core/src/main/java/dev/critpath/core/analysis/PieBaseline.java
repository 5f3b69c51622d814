package dev.critpath.core.analysis;

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

    static ConnectionProfile.Pie of(Timeline tl) {
        Long client = tl.clientView == null ? null : sumGapsBefore(tl.clientView.frames, true);
        Long server = tl.serverView == null ? null : sumGapsBefore(tl.serverView.frames, false);
        Long network = null;
        if (client != null && server != null && !tl.clientView.frames.isEmpty()) {
            List<Pkt> f = tl.clientView.frames;
            network = f.get(f.size() - 1).ts - f.get(0).ts - client - server;
        }
        return new ConnectionProfile.Pie(client, server, network);
    }

    /** Sum of DeltaT (time since the previous frame) over frames sent by the given side. */
    private static long sumGapsBefore(List<Pkt> frames, boolean fromClient) {
        long sum = 0;
        for (int i = 1; i < frames.size(); i++) {
            if (frames.get(i).c2s == fromClient) {
                sum += frames.get(i).ts - frames.get(i - 1).ts;
            }
        }
        return sum;
    }
}
