package dev.critpath.core.event;

/** A packet event that breaks the contract; carries the code and field for dead-letter records. */
public final class InvalidEventException extends Exception {
    private final EventError error;
    private final String field;

    public InvalidEventException(EventError error, String field, String message) {
        super(message);
        this.error = error;
        this.field = field;
    }

    public EventError error() {
        return error;
    }

    /** The offending field, or null when the record as a whole is broken. */
    public String field() {
        return field;
    }
}
