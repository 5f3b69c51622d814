package dev.critpath.core.analysis.sender;

import dev.critpath.core.analysis.Direction;
import dev.critpath.core.analysis.align.Tx;
import java.util.List;

/** A connection's transmissions in timeline order: all of them, and each direction's apart. */
record Transmissions(List<Tx> all, Tx[] c2s, Tx[] s2c) {

    static Transmissions of(List<Tx> txs) {
        Tx[] all = txs.toArray(new Tx[txs.size()]);
        int c2sCount = 0;
        for (Tx t : all) {
            if (t.c2s()) {
                c2sCount++;
            }
        }
        Tx[] c2s = new Tx[c2sCount];
        Tx[] s2c = new Tx[all.length - c2sCount];
        int i = 0;
        int j = 0;
        for (Tx t : all) {
            if (t.c2s()) {
                c2s[i++] = t;
            } else {
                s2c[j++] = t;
            }
        }
        return new Transmissions(txs, c2s, s2c);
    }

    /** Those sent in {@code dir}. */
    Tx[] of(Direction dir) {
        return dir == Direction.C2S ? c2s : s2c;
    }

    /** Those sent the other way. */
    Tx[] against(Direction dir) {
        return dir == Direction.C2S ? s2c : c2s;
    }
}
