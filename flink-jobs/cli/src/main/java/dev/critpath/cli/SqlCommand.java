package dev.critpath.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/** `critpath sql`: the warehouse in DuckDB (dashboards/critpath_sql.py; its own --help lists the options). */
@Command(name = "sql", header = "Opens the Parquet warehouse in DuckDB, with blame views, for SQL.",
        description = {"Every table is a view, plus blame per server, per client network and per hour, and the screen's "
            + "rule failures. Interactive, or one query with -c. `critpath sql --help` lists its options."})
final class SqlCommand implements Callable<Integer> {
    @Unmatched
    List<String> args = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        return PythonTool.run("critpath_sql.py", args);
    }
}
