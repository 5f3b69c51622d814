package dev.critpath.core.analysis.profile;

import dev.critpath.core.analysis.CaptureMode;
import dev.critpath.core.analysis.align.Timeline;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.analysis.path.CriticalPath;
import dev.critpath.core.analysis.sender.SenderMarks;
import java.util.ArrayList;
import java.util.List;

/**
 * Request/response exchanges as the client saw them: a run of client data, then the server's. A
 * response ends when the client holds all of it in order: bytes that arrived above a hole wait
 * for the re-send that fills it.
 */
final class Exchange {
    long requestBytes;
    long responseBytes;
    long requestFirstDep = Tx.NONE;
    long requestLastDep = Tx.NONE;
    /** The request's bytes, relative sequence numbers [start, end). */
    long requestSeqStart = Long.MAX_VALUE;
    long requestSeqEnd = Long.MIN_VALUE;
    long requestLastArrAtServer = Tx.NONE;
    /** The last departure of a request copy that was not lost: the one the response answers. */
    long requestLastLiveDep = Tx.NONE;
    long responseFirstDepAtServer = Tx.NONE;
    long responseFirstArr = Tx.NONE;
    long responseSeqStart = Long.MAX_VALUE;
    /**
     * The first arrival of a server packet whose sequence number shows the response's first byte
     * had left before it (a FIN or ACK above a first copy lost on the way), or the response's first arrival.
     */
    long responseFirstEvidenceArr = Tx.NONE;
    long responseLastArr = Tx.NONE;
    boolean responseStarted;

    static List<Exchange> detect(Tx[] txs, SenderMarks marks, CriticalPath cp) {
        Tx[] events = Tx.picked(txs, t -> isEvent(t, marks, cp), Exchange::time);
        List<Exchange> out = new ArrayList<>();
        Exchange cur = null;
        for (Tx t : events) {
            if (t.c2s()) {
                if (cur == null || cur.responseStarted) {
                    cur = new Exchange();
                    out.add(cur);
                }
                cur.requestBytes += t.p.len;
                cur.requestFirstDep = cur.requestFirstDep == Tx.NONE ? t.dep() : cur.requestFirstDep;
                cur.requestLastDep = t.dep();
                cur.requestSeqStart = Math.min(cur.requestSeqStart, t.p.seq);
                cur.requestSeqEnd = Math.max(cur.requestSeqEnd, t.p.seq + t.p.len);
            } else {
                if (cur == null) {
                    cur = new Exchange(); // the server spoke first (banners)
                    out.add(cur);
                }
                cur.responseStarted = true;
                cur.responseBytes += t.p.len;
                cur.responseFirstArr = cur.responseFirstArr == Tx.NONE ? t.arr() : cur.responseFirstArr;
                cur.responseSeqStart = Math.min(cur.responseSeqStart, t.p.seq);
                long delivered = cp.deliveredAt(t);
                cur.responseLastArr = Math.max(cur.responseLastArr, delivered != Tx.NONE ? delivered : t.arr());
            }
        }
        out.removeIf(x -> !x.responseStarted); // a request still unanswered when the trace ends
        for (Exchange x : out) {
            x.serverSideTimes(txs, marks);
        }
        return out;
    }

    /** When the client saw an event: a request leave, a response arrive. */
    private static long time(Tx t) {
        return t.c2s() ? t.dep() : t.arr();
    }

    /** A request's new bytes leaving the client, or a response's bytes the client could read arriving. */
    private static boolean isEvent(Tx t, SenderMarks marks, CriticalPath cp) {
        if (t.c2s()) {
            return marks.firstCaptured(t) && t.dep() != Tx.NONE;
        }
        return t.p.len > 0 && t.arr() != Tx.NONE && !marks.lost(t) && (t.newAtReceiver() || cp.deliveredAt(t) != Tx.NONE);
    }

    /**
     * The request's last byte reaching the server and the response's first byte leaving it. The
     * request's bytes count in whichever copy reached the server (the timer's re-send of a lost first copy).
     */
    private void serverSideTimes(Tx[] txs, SenderMarks marks) {
        responseFirstEvidenceArr = responseFirstArr;
        for (Tx t : txs) {
            if (!t.c2s() && t.p.seq > responseSeqStart && t.arr() != Tx.NONE && t.arr() > requestLastDep && t.arr() < responseFirstEvidenceArr) {
                responseFirstEvidenceArr = t.arr();
            }
            boolean requestCopy = t.c2s() && t.p.len > 0 && t.p.seq >= requestSeqStart && t.p.seq < requestSeqEnd;
            if (requestCopy && t.newAtReceiver() && t.arr() != Tx.NONE) {
                requestLastArrAtServer = Math.max(requestLastArrAtServer, t.arr());
            }
            if (requestCopy && !marks.lost(t) && t.dep() != Tx.NONE && t.dep() < responseFirstArr) {
                requestLastLiveDep = Math.max(requestLastLiveDep, t.dep());
            }
            if (!t.c2s() && marks.isNewData(t) && t.arr() != Tx.NONE
                    && t.arr() >= responseFirstArr && t.arr() <= responseLastArr && responseFirstDepAtServer == Tx.NONE) {
                responseFirstDepAtServer = t.dep();
            }
        }
    }

    /**
     * Request complete at the server to first response byte; with a client-side capture only,
     * estimated from the request copy that was not lost (a timer's re-send, not the lost first copy)
     * and the first server packet showing the response had begun (a lost first copy's successors).
     */
    long serverThink(Timeline tl) {
        if (requestFirstDep == Tx.NONE) {
            return -1;
        }
        if (tl.mode == CaptureMode.CLIENT_SIDE) {
            long answered = requestLastLiveDep != Tx.NONE ? requestLastLiveDep : requestLastDep;
            return tl.minRttUs < 0 ? -1 : Math.max(0, responseFirstEvidenceArr - answered - tl.minRttUs);
        }
        if (requestLastArrAtServer == Tx.NONE || responseFirstDepAtServer == Tx.NONE) {
            return -1;
        }
        return Math.max(0, responseFirstDepAtServer - requestLastArrAtServer);
    }

    long firstByte() {
        return requestFirstDep == Tx.NONE ? -1 : responseFirstArr - requestFirstDep;
    }
}
