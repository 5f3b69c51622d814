package dev.critpath.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/** `critpath dashboards`: Superset over the warehouse (dashboards/critpath_dashboards.py; its own --help lists the options). */
@Command(name = "dashboards", header = "Serves the Superset dashboards over the warehouse, on this machine only (port 8088).",
        description = {"Fleet screening, server vs network blame and the delay profile explorer. The first run installs "
            + "Superset from PyPI into its own virtual environment; the admin password is CRITPATH_SUPERSET_PASSWORD or "
            + "one generated and printed. `critpath dashboards --help` lists its options."})
final class DashboardsCommand implements Callable<Integer> {
    @Unmatched
    List<String> args = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        return PythonTool.run("critpath_dashboards.py", args);
    }
}
