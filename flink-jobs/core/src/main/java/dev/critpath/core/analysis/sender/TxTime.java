package dev.critpath.core.analysis.sender;

import dev.critpath.core.analysis.InOrder;
import dev.critpath.core.analysis.align.Tx;

/** A time of each transmission, to put a sender's transmissions in order by. */
enum TxTime {
    DEPARTURE, ARRIVAL,
    /** When the first sensor to see it captured it. */
    CAPTURE;

    /** Small enough for the quick compiler to inline (a switch is not). */
    long of(Tx t) {
        return this == DEPARTURE ? t.dep() : this == ARRIVAL ? t.arr() : captured(t);
    }

    private static long captured(Tx t) {
        return t.dep() != Tx.NONE && !t.depEstimated() ? t.dep() : t.arr();
    }

    /**
     * The transmissions by this time, stable: the array itself when in order already (nearly
     * always; a check that makes no call it cannot inline), else a sorted copy.
     */
    Tx[] sorted(Tx[] txs) {
        for (int k = 1; k < txs.length; k++) {
            if (of(txs[k]) < of(txs[k - 1])) {
                Tx[] copy = txs.clone();
                InOrder.sortBy(copy, this::of);
                return copy;
            }
        }
        return txs;
    }
}
