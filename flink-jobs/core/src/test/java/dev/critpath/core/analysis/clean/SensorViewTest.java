package dev.critpath.core.analysis.clean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.analysis.AnalysisConfig;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.testing.HandTrace;
import dev.critpath.core.testing.LabFixtures;
import dev.critpath.core.trace.ConnectionTrace;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The clean step alone: one sensor's packets made relative, deduplicated and split as the analysis needs them. */
class SensorViewTest {
    private static SensorView clean(ConnectionTrace t) {
        return SensorView.clean(t.captures().get(0), new SequenceSpace(t), AnalysisConfig.defaults());
    }

    @Test
    void sequenceNumbersCountFromEachDirectionsIsnAcrossTheWrap() {
        // the client's ISN sits six below 2^32: its request crosses the wrap
        SensorView v = clean(HandTrace.smallTransfer(30, 30).isns(4_294_967_290L, 5_000).clientSensorOnly());
        List<Packet> client = v.pkts.stream().filter(p -> p.c2s).toList();
        assertEquals(0, client.get(0).seq, "the SYN at 0");
        Packet request = client.stream().filter(p -> p.len == 100).findFirst().orElseThrow();
        assertEquals(1, request.seq, "the first data byte is 1");
        Packet fin = client.get(client.size() - 1);
        assertEquals(101, fin.seq, "past the wrap, still counting on");
        Packet response = v.pkts.stream().filter(p -> !p.c2s && p.len == 1000).findFirst().orElseThrow();
        assertEquals(1, response.seq);
        assertEquals(101, response.ack, "acknowledgements in the other direction's space");
    }

    @Test
    void copiesCapturedTwiceAreKeptOnce() {
        ConnectionTrace once = HandTrace.smallTransfer(30, 30).clientSensorOnly();
        List<PacketEvent> twice = new ArrayList<>();
        for (PacketEvent e : once.captures().get(0).packets()) {
            twice.add(e);
            twice.add(e);
        }
        SensorView v = clean(LabFixtures.oneConnection(twice));
        assertEquals(once.captures().get(0).packets().size(), v.frames.size());
        assertEquals(once.captures().get(0).packets().size(), v.duplicatesRemoved);
    }

    @Test
    void anOffloadAggregateIsSplitAtTheSegmentSize() {
        HandTrace h = new HandTrace(30, 30).mss(1000);
        double request = h.handshakeAndRequest(30);
        h.s(request + 20).data(4000); // one 4 KB TSO aggregate as the server's own capture shows it
        h.c(request + 50.1);
        SensorView v = clean(h.serverSensorOnly());
        List<Packet> pieces = v.pkts.stream().filter(p -> !p.c2s && p.len > 0).toList();
        assertEquals(1, v.superSegments);
        assertEquals(4, pieces.size());
        for (int i = 0; i < 4; i++) {
            assertEquals(1 + 1000L * i, pieces.get(i).seq);
            assertEquals(1000, pieces.get(i).len);
            assertTrue(pieces.get(i).offloadPiece);
        }
        assertEquals(1, v.frames.stream().filter(p -> !p.c2s && p.len > 0).count(), "the frames keep what was captured");
    }
}
