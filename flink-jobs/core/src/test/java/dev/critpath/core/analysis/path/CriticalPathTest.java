package dev.critpath.core.analysis.path;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.critpath.core.analysis.PathArc;
import dev.critpath.core.testing.HandTrace;
import dev.critpath.core.testing.Steps;
import dev.critpath.core.trace.ConnectionTrace;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The backward pass alone, on timelines the earlier steps made of hand-built connections. */
class CriticalPathTest {
    private static CriticalPath path(ConnectionTrace t) {
        return Steps.run(t).path();
    }

    private record Arc(long fromUs, long toUs, PathArc.Kind kind) {
    }

    private static List<Arc> arcs(CriticalPath cp) {
        return java.util.stream.IntStream.range(0, cp.arcCount()).mapToObj(i -> new Arc(cp.arcFromUs(i), cp.arcToUs(i), cp.arcKind(i))).toList();
    }

    private static long total(CriticalPath cp) {
        return arcs(cp).stream().mapToLong(a -> a.toUs() - a.fromUs()).sum();
    }

    @Test
    void aRequestAndItsResponseAlternateNetworkAndHostArcsFromTheSynToTheClientsLastEvent() {
        CriticalPath cp = path(HandTrace.smallTransfer(30, 30).bothSensors());
        // SYN, SYN/ACK, request (after the client's 0.1 ms), response (after 20 ms think time), FIN, the server's last ACK
        long[][] expected = {{0, 30_000}, {30_000, 30_000}, {30_000, 60_000}, {60_000, 60_100}, {60_100, 90_100}, {90_100, 110_100},
            {110_100, 140_100}, {140_100, 140_300}, {140_300, 170_300}, {170_300, 170_300}, {170_300, 200_300}};
        assertEquals(expected.length, arcs(cp).size(), arcs(cp).toString());
        for (int i = 0; i < expected.length; i++) {
            Arc a = arcs(cp).get(i);
            assertEquals(i % 2 == 0 ? PathArc.Kind.NETWORK : PathArc.Kind.HOST, a.kind(), "arc " + i + ": " + a);
            assertEquals(expected[i][0], a.fromUs() - cp.startUs, "arc " + i + " from");
            assertEquals(expected[i][1], a.toUs() - cp.startUs, "arc " + i + " to");
        }
        assertEquals(cp.endUs - cp.startUs, total(cp), "the arcs add up to the span");
    }

    @Test
    void aLostResponseWaitsOnALossArcFromTheLostCopyToItsResend() {
        HandTrace h = new HandTrace(30, 30);
        h.handshakeAndRequest(30);
        h.s(110.1).data(1000).lost();
        h.s(410.1).resend(1, 1000);      // the timer fires 300 ms later
        h.c(440.2).fin();
        h.s(470.2).fin();
        h.c(500.2);
        CriticalPath cp = path(h.bothSensors());
        List<Arc> loss = arcs(cp).stream().filter(a -> a.kind() == PathArc.Kind.LOSS).toList();
        assertEquals(1, loss.size(), arcs(cp).toString());
        assertEquals(110_100, loss.get(0).fromUs() - cp.startUs, "from the lost copy's departure");
        assertEquals(410_100, loss.get(0).toUs() - cp.startUs, "to the re-send's");
        assertEquals(cp.endUs - cp.startUs, total(cp));
    }
}
