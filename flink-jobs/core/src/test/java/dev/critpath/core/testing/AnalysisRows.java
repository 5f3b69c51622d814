package dev.critpath.core.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.critpath.core.analysis.ExchangeProfile;
import dev.critpath.core.analysis.recipe.Analyzer;
import dev.critpath.core.event.PacketEvent;
import dev.critpath.core.event.PacketEventJson;
import dev.critpath.core.screen.ConnectionResult;
import dev.critpath.core.screen.Screen;
import dev.critpath.core.trace.ConnectionAssembler;
import dev.critpath.core.trace.ConnectionTrace;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What `critpath analyze --all --arcs --json` writes about the connections some packet events make:
 * per connection, in the order they were assembled, its profile row with the screen's verdict, its
 * exchange rows and its critical-path rows; a half-open flow, which analyze sets aside, by its
 * addresses only.
 */
public final class AnalysisRows {
    private AnalysisRows() {
    }

    public static List<Map<String, Object>> of(List<PacketEvent> events) {
        ConnectionAssembler assembler = new ConnectionAssembler();
        events.forEach(assembler::add);
        Analyzer analyzer = Analyzer.defaults();
        Screen screen = Screen.defaults();
        List<Map<String, Object>> rows = new ArrayList<>();
        for (ConnectionTrace t : assembler.connections()) {
            Map<String, Object> row = new LinkedHashMap<>();
            if (t.isHalfOpen()) {
                row.put("half_open", t.addresses());
            } else {
                row.putAll(row(screen.apply(analyzer.analyze(t))));
            }
            rows.add(row);
        }
        return rows;
    }

    /** The row of one analysed connection: profile with verdict, exchanges, critical path. */
    public static Map<String, Object> row(ConnectionResult r) {
        Map<String, Object> row = new LinkedHashMap<>(r.profileColumns());
        row.put("exchanges", r.exchanges().stream().map(ExchangeProfile::columns).toList());
        row.put("screen", r.verdict().columns());
        row.put("critical_path", r.arcColumns());
        return row;
    }

    /**
     * The Java reader's events and Zeek's for the same capture give the same rows, connection by
     * connection; a failure also names the first event that differs, where the cause usually is.
     */
    public static void assertSame(List<PacketEvent> javaReader, List<PacketEvent> zeek, String what) {
        List<Map<String, Object>> expected = of(javaReader);
        List<Map<String, Object>> actual = of(zeek);
        if (expected.equals(actual)) {
            return;
        }
        String events = "events (Java reader, then Zeek): "
                + firstDifference(javaReader.stream().map(PacketEventJson::toJson).toList(), zeek.stream().map(PacketEventJson::toJson).toList());
        assertEquals(expected.size(), actual.size(), what + ": connections; " + events);
        for (int i = 0; i < expected.size(); i++) {
            assertEquals(expected.get(i), actual.get(i), what + ": connection " + i + "; " + events);
        }
    }

    /** Where two lists of lines first differ, for a failure message. */
    public static String firstDifference(List<String> expected, List<String> actual) {
        for (int i = 0; i < Math.min(expected.size(), actual.size()); i++) {
            if (!expected.get(i).equals(actual.get(i))) {
                return "line " + (i + 1) + ": " + expected.get(i) + " against " + actual.get(i);
            }
        }
        return expected.size() == actual.size() ? "none differs" : expected.size() + " lines against " + actual.size();
    }
}
