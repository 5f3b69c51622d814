package dev.critpath.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The `critpath` command. */
@Command(name = "critpath", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = {"Explains where every TCP connection's time went along its critical path (server, client, network "
            + "propagation, network queuing or loss), and screens out the boring connections so you look only at the ones "
            + "that matter."},
        footer = {"", "`critpath COMMAND --help` describes a command; README.md says how the parts fit together."})
public final class Main {
    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs a command line and returns its exit code (0 ok, 1 analysis problems, 2 usage or input errors). */
    public static int run(String... args) {
        return (args.length > 0 && args[0].equals("analyze") ? analyzeOnly() : commandLine()).execute(args);
    }

    /** The command tree; errors end as one line on stderr, never a stack trace. */
    static CommandLine commandLine() {
        return withErrorLine(new CommandLine(new Main())
                .addSubcommand(new DemoCommand()).addSubcommand(new AnalyzeCommand()).addSubcommand(new StreamCommand())
                .addSubcommand(new ReplayCommand()).addSubcommand("sql", PythonCommand.sql())
                .addSubcommand("dashboards", PythonCommand.dashboards())
                .addSubcommand("plot", PythonCommand.plot()).addSubcommand(new BenchCommand())
                .addSubcommand(new StreamBenchCommand()).addSubcommand(new ReaderBenchCommand()).addSubcommand(new CommandLine.HelpCommand()));
    }

    /**
     * The tree with `analyze` alone, which parses and runs an analyze command line as the whole
     * tree does: reading every other command's options (and loading their classes) took a tenth
     * of a second of each run.
     */
    private static CommandLine analyzeOnly() {
        return withErrorLine(new CommandLine(new Main()).addSubcommand(new AnalyzeCommand()));
    }

    private static CommandLine withErrorLine(CommandLine main) {
        return main.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            cmd.getErr().println("critpath: " + ex.getMessage() + rootCause(ex));
            return 2;
        });
    }

    /** What lies under a wrapper such as Flink's "Job execution failed.", which says nothing by itself; nothing when the message says it already. */
    static String rootCause(Throwable ex) {
        Throwable root = ex;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        boolean said = root.getMessage() != null && ex.getMessage() != null && ex.getMessage().contains(root.getMessage());
        return root == ex || said ? "" : " (cause: " + root + ")";
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"critpath " + (v == null ? "(development build)" : v)};
        }
    }
}
