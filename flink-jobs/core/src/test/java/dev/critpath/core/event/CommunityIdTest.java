package dev.critpath.core.event;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.critpath.core.testing.Repo;
import org.junit.jupiter.api.Test;

class CommunityIdTest {
    @Test
    void agreesWithTheReferenceImplementationOnEveryVector() throws Exception {
        JsonNode root = new ObjectMapper().readTree(Repo.schemaResource("vectors/community-id.json"));
        int checked = 0;
        for (JsonNode v : root.get("vectors")) {
            String got = CommunityId.tcpV1(v.get("src").asText(), v.get("sport").asInt(), v.get("dst").asText(),
                    v.get("dport").asInt(), v.get("seed").asInt());
            assertEquals(v.get("community_id").asText(), got, v.toString());
            checked++;
        }
        assertEquals(93, checked);
    }

    @Test
    void specExampleAndDirectionIndependence() {
        assertEquals("1:wCb3OG7yAFWelaUydu0D+125CLM=", CommunityId.tcpV1("1.2.3.4", 1122, "5.6.7.8", 3344, 0));
        assertEquals("1:wCb3OG7yAFWelaUydu0D+125CLM=", CommunityId.tcpV1("5.6.7.8", 3344, "1.2.3.4", 1122, 0));
        assertEquals("1:HhA1B+6CoLbiKPEs5nhNYN4XWfk=", CommunityId.tcpV1("1.2.3.4", 1122, "5.6.7.8", 3344, 1));
    }
}
