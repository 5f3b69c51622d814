package dev.critpath.core.analysis;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One request/response exchange of a connection (HTTP/1.1 keep-alive gives several): the part of
 * the connection's critical path from the first request byte leaving the client to the last
 * response byte reaching it. Row of the warehouse's `exchanges` table.
 */
public record ExchangeProfile(
        String connUid,
        int index,
        long startUs,
        long endUs,
        long requestBytes,
        long responseBytes,
        long serverThinkUs,
        boolean serverThinkEstimated,
        long firstByteUs,
        CategoryTimes times,
        Costs costs) implements java.io.Serializable {

    /** The exchange's part of the connection's costs (see {@link ConnectionProfile.Costs}); link times -1 where unknown. */
    public record Costs(long lossCostUs, long clientLinkUs, long serverLinkUs) implements java.io.Serializable {
        public static final Costs NONE = new Costs(0, -1, -1);

        Costs plus(Costs next) {
            return new Costs(lossCostUs + next.lossCostUs, ConnectionProfile.Costs.sumKnown(clientLinkUs, next.clientLinkUs),
                    ConnectionProfile.Costs.sumKnown(serverLinkUs, next.serverLinkUs));
        }
    }

    /** A copy numbered {@code newIndex}. */
    public ExchangeProfile numbered(int newIndex) {
        return new ExchangeProfile(connUid, newIndex, startUs, endUs, requestBytes, responseBytes, serverThinkUs, serverThinkEstimated, firstByteUs, times, costs);
    }

    /** No request of its own: the server went on with the previous response after a pause. */
    public boolean continuesResponse() {
        return requestBytes == 0;
    }

    /** This exchange, the path time between it and {@code next}, and {@code next}, its continuation. */
    public ExchangeProfile continuedBy(CategoryTimes between, ExchangeProfile next) {
        CategoryTimes sum = new CategoryTimes();
        sum.addAll(times);
        sum.addAll(between);
        sum.addAll(next.times);
        return new ExchangeProfile(connUid, index, startUs, next.endUs, requestBytes, responseBytes + next.responseBytes,
                serverThinkUs, serverThinkEstimated, firstByteUs, sum, costs.plus(next.costs));
    }

    public long durationUs() {
        return endUs - startUs;
    }

    public Map<String, Object> columns() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("conn_uid", connUid);
        m.put("exchange_index", index);
        m.put("start_us", startUs);
        m.put("end_us", endUs);
        m.put("duration_us", durationUs());
        m.put("request_bytes", requestBytes);
        m.put("response_bytes", responseBytes);
        m.put("server_think_us", serverThinkUs < 0 ? null : serverThinkUs);
        m.put("server_think_estimated", serverThinkEstimated);
        m.put("first_byte_us", firstByteUs < 0 ? null : firstByteUs);
        for (Category c : Category.ALL) {
            m.put(c.key() + "_us", times.get(c));
        }
        m.put("loss_cost_us", costs.lossCostUs());
        m.put("client_link_us", costs.clientLinkUs() < 0 ? null : costs.clientLinkUs());
        m.put("server_link_us", costs.serverLinkUs() < 0 ? null : costs.serverLinkUs());
        return m;
    }
}
