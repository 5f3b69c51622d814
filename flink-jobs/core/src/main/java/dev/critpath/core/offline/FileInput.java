package dev.critpath.core.offline;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** An input read from one file: its name, its size (taken once) and how far its reader has got. */
abstract class FileInput implements EventInput {
    protected final Path file;
    private final long sizeBytes;
    private volatile long bytesRead;
    private volatile boolean compressed;

    FileInput(Path file) {
        this.file = file;
        long size;
        try {
            size = Files.size(file);
        } catch (IOException e) {
            size = -1; // the reader says what is wrong with the file
        }
        this.sizeBytes = size;
    }

    @Override
    public String name() {
        return file.toString();
    }

    @Override
    public long sizeBytes() {
        return sizeBytes;
    }

    @Override
    public long bytesRead() {
        return bytesRead;
    }

    @Override
    public boolean bytesComparableToSize() {
        return !compressed;
    }

    /** Called by the reading thread as it goes. */
    protected void bytesRead(long bytes) {
        bytesRead = bytes;
    }

    protected void compressed(boolean isCompressed) {
        compressed = isCompressed;
    }
}
