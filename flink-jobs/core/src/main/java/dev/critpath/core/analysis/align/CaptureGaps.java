package dev.critpath.core.analysis.align;

import dev.critpath.core.analysis.Direction;
import dev.critpath.core.event.TcpFlags;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** What the sensors missed, estimated where the other side proves it happened (paper 000's capture gaps). */
final class CaptureGaps {
    /** Transmissions whose departure or arrival is estimated because a capture missed it. */
    int estimated;
    /** Packets the sender's sensor saw and the receiver's did not, in each direction: lost in between. */
    int lostC2s;
    int lostS2c;
    /** Of those, pure ACKs (which nobody re-sends: a later cumulative ACK stands in for them). */
    int lostAcks;

    /**
     * Estimates what one sensor missed. A packet only the receiver's sensor saw left the sender
     * one minimum delay earlier (the sender's sensor dropped it). A packet only the sender's sensor
     * saw was lost in between, unless the receiver acknowledged its bytes although no other copy
     * of them arrived: then the receiver's sensor dropped it.
     */
    static CaptureGaps fill(List<Tx> txs, long minOwdC2s, long minOwdS2c) {
        CaptureGaps gaps = new CaptureGaps();
        for (Tx t : txs) {
            long owd = t.c2s() ? Math.max(minOwdC2s, 1) : Math.max(minOwdS2c, 1);
            if (t.dep() == Tx.NONE && t.arr() != Tx.NONE) {
                t.departed(t.arr() - owd, true);
                gaps.estimated++;
            }
        }
        for (Direction dir : Direction.values()) {
            long maxAckByReceiver = Long.MIN_VALUE;
            for (Tx t : txs) {
                if (t.direction() != dir && t.has(TcpFlags.ACK) && !t.depEstimated() && t.dep() != Tx.NONE) {
                    maxAckByReceiver = Math.max(maxAckByReceiver, t.p.ack);
                }
            }
            for (Tx t : txs) {
                if (t.direction() != dir || t.arr() != Tx.NONE || !t.p.carriesSeqSpace()) {
                    continue;
                }
                if (t.end() <= maxAckByReceiver && !anotherCopyArrived(txs, t)) {
                    t.arrived(t.dep() + (dir == Direction.C2S ? Math.max(minOwdC2s, 1) : Math.max(minOwdS2c, 1)), true);
                    gaps.estimated++;
                } else {
                    gaps.lost(dir);
                }
            }
            gaps.pureAcks(txs, dir, dir == Direction.C2S ? Math.max(minOwdC2s, 1) : Math.max(minOwdS2c, 1));
        }
        return gaps;
    }

    private void lost(Direction dir) {
        if (dir == Direction.C2S) {
            lostC2s++;
        } else {
            lostS2c++;
        }
    }

    /**
     * Pure ACKs of a direction seen leaving and never arriving. Lost in between only where the
     * receiver's sensor was still capturing (it saw something sent later arrive); and one whose
     * timestamp the receiver echoed, when nothing that arrived carried that timestamp, did arrive:
     * the receiver's sensor dropped it, so its arrival is estimated (paper 000's capture gaps).
     */
    private void pureAcks(List<Tx> txs, Direction dir, long owd) {
        long lastSentThatArrived = Long.MIN_VALUE;
        Set<Long> arrivedTsvals = new HashSet<>();
        Set<Long> echoedByReceiver = new HashSet<>();
        for (Tx t : txs) {
            if (t.direction() == dir && t.arr() != Tx.NONE && !t.arrEstimated()) {
                lastSentThatArrived = Math.max(lastSentThatArrived, t.dep());
                arrivedTsvals.add(t.p.tsval);
            } else if (t.direction() != dir && t.dep() != Tx.NONE && !t.depEstimated()) {
                echoedByReceiver.add(t.p.tsecr);
            }
        }
        for (Tx t : txs) {
            if (t.direction() != dir || !t.isPureAck() || t.arr() != Tx.NONE || t.depEstimated() || t.dep() >= lastSentThatArrived) {
                continue;
            }
            if (t.p.tsval >= 0 && echoedByReceiver.contains(t.p.tsval) && !arrivedTsvals.contains(t.p.tsval)) {
                t.arrived(t.dep() + owd, true);
                estimated++;
            } else {
                lost(dir);
                lostAcks++;
            }
        }
    }

    /** Any other arrival carrying some of the same bytes (re-sends may be cut into smaller pieces). */
    private static boolean anotherCopyArrived(List<Tx> txs, Tx lost) {
        for (Tx t : txs) {
            if (t != lost && t.c2s() == lost.c2s() && t.arr() != Tx.NONE && t.seq() < lost.end() && t.end() > lost.seq()) {
                return true;
            }
        }
        return false;
    }
}
