package dev.critpath.core.offline;

/** An input that could not be read (not a capture, unreadable); the events before the failure were analysed. */
public final class InputFailedException extends Exception {
    private final String input;

    InputFailedException(EventInput input, Exception cause) {
        super(cause.getMessage(), cause);
        this.input = input.name();
    }

    public String input() {
        return input;
    }
}
