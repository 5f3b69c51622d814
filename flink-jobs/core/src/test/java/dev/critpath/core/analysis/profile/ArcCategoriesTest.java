package dev.critpath.core.analysis.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.critpath.core.analysis.Category;
import dev.critpath.core.analysis.CategoryTimes;
import dev.critpath.core.analysis.Direction;
import dev.critpath.core.analysis.Endpoint;
import dev.critpath.core.analysis.PathArc;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ArcCategoriesTest {
    /** A network arc 0-100 µs (60 propagation, 40 queuing), then 100-200 µs of server time. */
    private static final List<PathArc> PATH = List.of(
            arc(0, 100, PathArc.Kind.NETWORK, Category.PROPAGATION, 60, Category.QUEUING, 40),
            arc(100, 200, PathArc.Kind.HOST, Category.SERVER, 100, Category.SERVER, 0));

    private static PathArc arc(long from, long to, PathArc.Kind kind, Category a, long aUs, Category b, long bUs) {
        CategoryTimes times = new CategoryTimes();
        times.add(a, aUs);
        times.add(b, bUs);
        return new PathArc(0, from, to, kind, a, times, Endpoint.SERVER, Direction.C2S, "A", 1, 0, 1, 0, false);
    }

    /** Within a network arc propagation comes first, then queuing, so a cut stays in whole microseconds. */
    @ParameterizedTest(name = "[{0}, {1}]")
    @CsvSource({
        "0,   200, 60, 40, 100",
        "0,   50,  50, 0,  0",
        "50,  100, 10, 40, 0",
        "70,  80,  0,  10, 0",
        "90,  150, 0,  10, 50",
        "150, 300, 0,  0,  50",
        "200, 300, 0,  0,  0",
    })
    void clipKeepsThePartOfThePathInsideAnInterval(long from, long to, long propagation, long queuing, long server) {
        CategoryTimes within = ArcCategories.clip(PATH, from, to);
        assertEquals(propagation, within.get(Category.PROPAGATION), "propagation");
        assertEquals(queuing, within.get(Category.QUEUING), "queuing");
        assertEquals(server, within.get(Category.SERVER), "server");
        assertEquals(Math.max(0, Math.min(to, 200) - Math.max(from, 0)), within.total(), "every microsecond once");
    }
}
