package dev.critpath.warehouse;

import dev.critpath.core.lifecycle.PathAnalysis;
import dev.critpath.core.screen.ConnectionResult;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * {@link ParquetTables} written on a thread of their own: writing the tables (a row per packet of
 * the connections worth a look) takes longer than reading and assembling a capture, and goes on
 * beside them. Results are written in the order they were added; a failure to write comes back
 * from the next {@link #add} or from {@link #close}.
 */
public final class BackgroundTables implements Closeable {
    /** Results waiting: enough to ride out a burst of finished connections, few enough to hold little. */
    private static final int WAITING = 64;

    private record Added(ConnectionResult result, PathAnalysis.Rows rows) {
    }

    private static final Added END = new Added(null, null);

    private final ParquetTables tables;
    private final BlockingQueue<Added> waiting = new ArrayBlockingQueue<>(WAITING);
    private final Thread writer;
    private volatile Throwable failure;
    private boolean closed;

    public BackgroundTables(Path warehouse) {
        this.tables = new ParquetTables(warehouse);
        this.writer = new Thread(this::writeAll, "write " + warehouse);
        writer.setDaemon(true);
        writer.start();
    }

    public void add(ConnectionResult r, PathAnalysis.Rows rows) throws IOException {
        throwFailure();
        put(new Added(r, rows));
    }

    /** Waits for every result added to be written, and closes the files. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        put(END);
        try {
            writer.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted waiting for the Parquet tables to be written");
        }
        try {
            tables.close();
        } catch (IOException | RuntimeException e) {
            if (failure == null) {
                throw e;
            }
            failure.addSuppressed(e);
        }
        throwFailure();
    }

    /** The files written, per table: complete once closed. */
    public Map<WarehouseTable, List<Path>> written() {
        return tables.written();
    }

    private void writeAll() {
        try {
            for (Added a = waiting.take(); a != END; a = waiting.take()) {
                if (failure == null) { // after a failure the rest is only taken, so that adding never blocks
                    try {
                        tables.add(a.result(), a.rows());
                    } catch (Throwable e) { // whatever it is, the thread goes on taking: a dead writer would block every add
                        failure = e;
                    }
                }
            }
        } catch (InterruptedException e) {
            failure = new InterruptedIOException("the Parquet writer was interrupted");
        }
    }

    private void put(Added a) throws IOException {
        try {
            waiting.put(a);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted handing results to the Parquet writer");
        }
    }

    private void throwFailure() throws IOException {
        Throwable f = failure;
        if (f != null) {
            // a new exception each time: the same one thrown by add and again by close would suppress itself
            throw new IOException("writing the Parquet tables: " + (f.getMessage() != null ? f.getMessage() : f.toString()), f);
        }
    }
}
