package dev.critpath.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.analysis.recipe.Analyzer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;

/** The core's packages depend on each other one way only: steps on the shared vocabulary, the recipe on the steps, never back. */
class PackageCyclesTest {
    private static final Pattern ARROW = Pattern.compile("^\\s+(dev\\.critpath\\.\\S+)\\s+->\\s+(dev\\.critpath\\.\\S+)\\s", Pattern.MULTILINE);

    @Test
    void noPackageOfTheCoreDependsOnItselfThroughOthers() throws URISyntaxException {
        Path classes = Path.of(Analyzer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow(() -> new AssertionError("jdeps comes with every JDK 17"));
        StringWriter out = new StringWriter();
        int rc = jdeps.run(new PrintWriter(out), new PrintWriter(out), "-verbose:package", "-e", "dev\\.critpath\\..*", classes.toString());
        assertEquals(0, rc, out.toString());
        Map<String, Set<String>> uses = new TreeMap<>();
        Matcher m = ARROW.matcher(out.toString());
        while (m.find()) {
            uses.computeIfAbsent(m.group(1), k -> new TreeSet<>()).add(m.group(2));
        }
        assertTrue(uses.containsKey("dev.critpath.core.analysis.recipe"), "jdeps saw the recipe's dependencies: " + out);
        assertEquals(List.of(), cycles(uses), "packages that reach themselves");
    }

    /** Strongly connected groups of more than one package (Tarjan). */
    private static List<Set<String>> cycles(Map<String, Set<String>> uses) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        List<String> stack = new ArrayList<>();
        List<Set<String>> found = new ArrayList<>();
        for (String p : uses.keySet()) {
            if (!index.containsKey(p)) {
                visit(p, uses, index, low, stack, found);
            }
        }
        return found;
    }

    private static void visit(String p, Map<String, Set<String>> uses, Map<String, Integer> index, Map<String, Integer> low,
            List<String> stack, List<Set<String>> found) {
        index.put(p, index.size());
        low.put(p, index.get(p));
        stack.add(p);
        for (String q : uses.getOrDefault(p, Set.of())) {
            if (!index.containsKey(q)) {
                visit(q, uses, index, low, stack, found);
                low.put(p, Math.min(low.get(p), low.get(q)));
            } else if (stack.contains(q)) {
                low.put(p, Math.min(low.get(p), index.get(q)));
            }
        }
        if (low.get(p).equals(index.get(p))) {
            Set<String> group = new TreeSet<>();
            String q;
            do {
                q = stack.remove(stack.size() - 1);
                group.add(q);
            } while (!q.equals(p));
            if (group.size() > 1) {
                found.add(group);
            }
        }
    }
}
