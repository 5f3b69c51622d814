package dev.critpath.core.analysis.recipe;

import dev.critpath.core.analysis.CategoryTimes;
import dev.critpath.core.analysis.ConnectionAnalysis;
import dev.critpath.core.analysis.ConnectionPackets;
import dev.critpath.core.analysis.ConnectionProfile;
import dev.critpath.core.analysis.ExchangeProfile;
import dev.critpath.core.analysis.PathPrior;
import dev.critpath.core.analysis.SegmentStart;
import dev.critpath.core.analysis.profile.ArcCategories;
import dev.critpath.core.trace.ConnectionSegments;
import dev.critpath.core.trace.ConnectionTrace;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * A long-lived connection analysed segment by segment, so that a streaming job need not hold all
 * its packets: each segment (cut by {@link ConnectionSegments} where everything sent was
 * acknowledged and the connection went quiet) is analysed from the end of the one before; its
 * arcs are final at once, its exchanges as soon as the next request shows they are complete, and
 * the profile adds up until the connection ends. The streaming job keeps it in keyed state as
 * {@link #toBytes()}.
 */
public final class SegmentedConnection implements Serializable {
    /**
     * Java serialisation spends most of its bytes on class descriptors, the same every time:
     * deflating against a dictionary that holds them (a serialised one-segment connection) keeps
     * an idle long-lived connection's state small.
     */
    private static final byte[] DICTIONARY = serialise(template());

    private ConnectionProfile sofar;
    private int exchangesOut;
    private int arcs;
    /** The latest exchange: a response that paused may go on in the next segment. */
    private ExchangeProfile held;
    /** Path time from the held exchange's end to its segment's end. */
    private CategoryTimes afterHeld;

    /** Analyses the next segment; the result's arcs and exchanges are final and can be written out now. */
    public ConnectionAnalysis add(Analyzer analyzer, ConnectionTrace segment, PathPrior prior) {
        SegmentStart start = sofar == null ? SegmentStart.WHOLE : new SegmentStart(sofar.endUs, sofar.connUid, arcs);
        ConnectionAnalysis r = analyzer.analyze(segment, start, prior);
        List<ExchangeProfile> found = new ArrayList<>(r.exchanges());
        boolean continues = held != null && !found.isEmpty() && found.get(0).continuesResponse();
        if (continues) {
            found.set(0, held.continuedBy(afterHeld, found.get(0)));
        } else if (held != null) {
            found.add(0, held);
        }
        List<ExchangeProfile> ready = new ArrayList<>();
        for (int i = 0; i < found.size() - 1; i++) {
            ready.add(found.get(i).numbered(exchangesOut++));
        }
        held = found.isEmpty() ? null : found.get(found.size() - 1);
        afterHeld = held == null ? null : ArcCategories.clip(r.arcs(), held.endUs(), r.profile().endUs);
        sofar = sofar == null ? r.profile() : sofar.followedBy(r.profile(), continues);
        arcs += r.arcs().size();
        return new ConnectionAnalysis(r.profile(), ready, r.arcs(), r.packets());
    }

    public boolean isEmpty() {
        return sofar == null;
    }

    /** The whole connection's profile and its last exchange, once its last segment was added. */
    public ConnectionAnalysis finish() {
        if (sofar == null) {
            throw new IllegalStateException("no segment was added");
        }
        List<ExchangeProfile> last = held == null ? List.of() : List.of(held.numbered(exchangesOut));
        return new ConnectionAnalysis(sofar, last, List.of(), ConnectionPackets.NONE);
    }

    /** Compact bytes for keyed state. */
    public byte[] toBytes() {
        byte[] raw = serialise(this);
        Deflater d = new Deflater(Deflater.BEST_COMPRESSION);
        try {
            d.setDictionary(DICTIONARY);
            d.setInput(raw);
            d.finish();
            ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length / 4);
            byte[] buf = new byte[4096];
            while (!d.finished()) {
                out.write(buf, 0, d.deflate(buf));
            }
            return out.toByteArray();
        } finally {
            d.end();
        }
    }

    public static SegmentedConnection fromBytes(byte[] bytes) {
        Inflater inf = new Inflater();
        try {
            inf.setInput(bytes);
            ByteArrayOutputStream raw = new ByteArrayOutputStream(bytes.length * 4);
            byte[] buf = new byte[4096];
            while (!inf.finished()) {
                int n = inf.inflate(buf);
                if (n == 0 && inf.needsDictionary()) {
                    inf.setDictionary(DICTIONARY);
                } else if (n == 0 && inf.needsInput()) {
                    throw new IOException("truncated state");
                }
                raw.write(buf, 0, n);
            }
            try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(raw.toByteArray()))) {
                return (SegmentedConnection) in.readObject();
            }
        } catch (IOException | DataFormatException | ClassNotFoundException e) {
            throw new IllegalStateException("unreadable state of a long-lived connection", e);
        } finally {
            inf.end();
        }
    }

    private static byte[] serialise(SegmentedConnection c) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(b)) {
            out.writeObject(c);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return b.toByteArray();
    }

    /** A connection with one segment and one held exchange, all zero: every class descriptor once. */
    private static SegmentedConnection template() {
        SegmentedConnection t = new SegmentedConnection();
        t.sofar = ConnectionProfile.empty();
        t.held = new ExchangeProfile("", 0, 0, 0, 0, 0, 0, false, 0, new CategoryTimes(), ExchangeProfile.Costs.NONE);
        t.afterHeld = new CategoryTimes();
        return t;
    }
}
