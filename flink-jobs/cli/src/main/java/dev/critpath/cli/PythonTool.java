package dev.critpath.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * The commands written in Python (the SQL layer, Superset), run in the checkout's own virtual
 * environment through dashboards/venv-python, as the launcher runs them without building the jar.
 */
final class PythonTool {
    private PythonTool() {
    }

    static int run(String script, List<String> args) throws Exception {
        var root = Checkout.root();
        List<String> cmd = new ArrayList<>(List.of(root.resolve("dashboards/venv-python").toString(),
                root.resolve("dashboards/requirements-sql.txt").toString(), root.resolve("dashboards").resolve(script).toString()));
        cmd.addAll(args);
        return new ProcessBuilder(cmd).inheritIO().start().waitFor();
    }
}
