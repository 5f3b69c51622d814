package dev.critpath.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/**
 * `critpath sql`, `critpath dashboards` and `critpath plot`: the commands written in Python (dashboards/). The
 * checkout's launcher runs them, in their virtual environment, without the jar; here they are
 * handed to it. Their own --help lists their options.
 */
@Command
final class PythonCommand implements Callable<Integer> {
    private final String name;

    @Unmatched
    List<String> args = new ArrayList<>();

    private PythonCommand(String name) {
        this.name = name;
    }

    static CommandLine sql() {
        return named("sql", "Opens the Parquet warehouse in DuckDB, with blame views, for SQL.",
                "Every table is a view, plus blame per server, per client network and per hour, and the screen's rule failures. "
                + "Interactive, or one query with -c. `critpath sql --help` lists its options.");
    }

    static CommandLine dashboards() {
        return named("dashboards", "Serves the Superset dashboards over the warehouse, on this machine only (port 8088).",
                "Fleet screening, server vs network blame and the delay profile explorer. The first run installs Superset from "
                + "PyPI into its own virtual environment; the admin password is CRITPATH_SUPERSET_PASSWORD or one generated and "
                + "printed. `critpath dashboards --help` lists its options.");
    }

    static CommandLine plot() {
        return named("plot", "Draws one connection's time-sequence plot with its critical path, as SVG and interactive HTML.",
                "From a warehouse (--warehouse DIR --conn-uid UID) or from captures or event files (analysed first; pick the "
                + "connection with --connection [ADDR:]PORT). The first run installs plotly and matplotlib from PyPI into their own "
                + "virtual environment. `critpath plot --help` lists its options; docs/plots.md says how to read the plot.");
    }

    private static CommandLine named(String name, String header, String description) {
        CommandLine cmd = new CommandLine(new PythonCommand(name));
        cmd.getCommandSpec().name(name).usageMessage().header(header).description(description);
        return cmd;
    }

    @Override
    public Integer call() throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Checkout.root().resolve("critpath").toString(), name));
        cmd.addAll(args);
        return new ProcessBuilder(cmd).inheritIO().start().waitFor();
    }
}
