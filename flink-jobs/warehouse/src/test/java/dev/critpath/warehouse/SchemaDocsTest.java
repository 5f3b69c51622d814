package dev.critpath.warehouse;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.testing.Repo;
import java.nio.file.Files;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

/** Every warehouse column is documented in schemas/README.md (rendered by schemas/render_readme.py). */
class SchemaDocsTest {
    @Test
    void everyColumnIsDocumented() throws Exception {
        String readme = Files.readString(Repo.root().resolve("schemas/README.md"));
        for (WarehouseTable t : WarehouseTable.values()) {
            assertTrue(readme.contains("### " + t.tableName()), t.tableName());
            for (Schema.Field f : t.schema().getFields()) {
                assertTrue(readme.contains("| `" + f.name() + "` |"), t.tableName() + "." + f.name()
                        + " is not in schemas/README.md: run python3 schemas/render_readme.py > schemas/README.md");
                assertTrue(f.doc() != null && !f.doc().isBlank(), t.tableName() + "." + f.name() + " has no doc");
            }
        }
    }
}
