package dev.critpath.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.critpath.core.analysis.Category;
import dev.critpath.core.testing.NameDrift;
import dev.critpath.warehouse.WarehouseTable;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

/**
 * The command line's own lists of the delay categories leave none out: the categories are
 * {@link Category} and the profiles columns schemas/tables/profiles.avsc marks "category"
 * (TableColumnsTest holds those two to each other).
 */
class CategoryListsTest {
    @Test
    void theResultTableHasAHeadingForEveryCategory() {
        assertEquals(List.of(), NameDrift.between("Category.java", Category.ALL.stream().map(Category::key).toList(),
                "ResultTable.HEADERS", ResultTable.HEADERS.keySet().stream().map(Category::key).toList()));
    }

    @Test
    void theBlameSummarySumsEveryCategoryColumnOnce() {
        List<String> marked = WarehouseTable.PROFILES.schema().getFields().stream()
                .filter(f -> Boolean.TRUE.equals(f.getObjectProp("category"))).map(Schema.Field::name).toList();
        List<String> summed = Arrays.stream(BlameSummary.GROUPS).flatMap(g -> Arrays.stream(g, 1, g.length)).toList();
        assertEquals(summed.size(), Set.copyOf(summed).size(), "a column summed twice in BlameSummary.GROUPS: " + summed);
        // the summary's order is its own (idle and unknown last): sorted as the schema's for the comparison
        assertEquals(List.of(), NameDrift.between("schemas/tables/profiles.avsc", marked, "BlameSummary.GROUPS",
                summed.stream().sorted(Comparator.comparing(marked::indexOf)).toList()));
    }
}
