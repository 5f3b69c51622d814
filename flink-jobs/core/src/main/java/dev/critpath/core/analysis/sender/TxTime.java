package dev.critpath.core.analysis.sender;

import dev.critpath.core.analysis.InOrder;
import dev.critpath.core.analysis.align.Tx;
import java.util.Arrays;

/** A time of each transmission, to put a sender's transmissions in order by. */
enum TxTime {
    DEPARTURE, ARRIVAL,
    /** When the first sensor to see it captured it. */
    CAPTURE;

    long of(Tx t) {
        return switch (this) {
            case DEPARTURE -> t.dep();
            case ARRIVAL -> t.arr();
            case CAPTURE -> t.dep() != Tx.NONE && !t.depEstimated() ? t.dep() : t.arr();
        };
    }

    /** Sorts by this time, stable, unless in order already (nearly always): that check makes no call it cannot inline. */
    void sort(Tx[] txs) {
        for (int k = 1; k < txs.length; k++) {
            if (of(txs[k]) < of(txs[k - 1])) {
                InOrder.sortBy(Arrays.asList(txs), this::of);
                return;
            }
        }
    }
}
