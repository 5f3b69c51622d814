package dev.critpath.cli;

import java.nio.file.Files;
import java.nio.file.Path;

/** The critpath checkout the command runs from: the launcher exports CRITPATH_HOME; else the working directory upwards. */
final class Checkout {
    private Checkout() {
    }

    static Path root() {
        String home = System.getenv("CRITPATH_HOME");
        if (home != null) {
            return Path.of(home);
        }
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("testdata")) && Files.isDirectory(p.resolve("schemas"))) {
                return p;
            }
        }
        throw new IllegalStateException("cannot find the critpath checkout; run from it or set CRITPATH_HOME");
    }
}
