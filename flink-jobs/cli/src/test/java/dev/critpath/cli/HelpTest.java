package dev.critpath.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The help a newcomer reads first: every command listed, each said in whole sentences. */
class HelpTest {
    /** Commands a user reaches through the launcher; each must be in the jar's own list too. */
    private static final Set<String> EXPECTED = Set.of("demo", "analyze", "stream", "replay", "sql", "dashboards", "plot", "bench", "bench-stream", "bench-readers");

    private static String withoutSpace(String s) {
        return s.replaceAll("\\s+", "");
    }

    @Test
    void topLevelHelpListsEveryCommandWithAWholeSentence() {
        CliRun r = CliRun.of("--help");
        assertEquals(0, r.exit(), r.err());
        var commands = Main.commandLine().getSubcommands();
        assertTrue(commands.keySet().containsAll(EXPECTED), "commands: " + commands.keySet());
        for (var e : commands.entrySet()) {
            String[] header = e.getValue().getCommandSpec().usageMessage().header();
            assertEquals(1, header.length, e.getKey() + ": a one-sentence header");
            String sentence = header[0];
            assertTrue(sentence.matches("[A-Z].*\\.$"), e.getKey() + ": a whole sentence: " + sentence);
            // wrapped over lines, but never cut: the whole sentence is there
            assertTrue(r.out().contains("  " + e.getKey() + " "), e.getKey() + " listed: " + r.out());
            assertTrue(withoutSpace(r.out()).contains(withoutSpace(e.getKey() + sentence)), e.getKey() + "'s sentence whole: " + r.out());
        }
    }

    @Test
    void eachCommandsHelpSaysItsDescriptionInWholeSentences() {
        for (var e : Main.commandLine().getSubcommands().entrySet()) {
            if (e.getValue().getCommand() instanceof CommandLine.HelpCommand) {
                continue; // picocli's own, written as format strings
            }
            CommandLine.Model.UsageMessageSpec usage = e.getValue().getCommandSpec().usageMessage();
            String help = e.getValue().getUsageMessage(CommandLine.Help.Ansi.OFF);
            for (String paragraph : List.of(usage.description())) {
                assertTrue(paragraph.isEmpty() || paragraph.endsWith("."), e.getKey() + ": paragraph ends a sentence: " + paragraph);
                assertTrue(withoutSpace(help).contains(withoutSpace(paragraph)), e.getKey() + ": " + help);
            }
        }
    }
}
