package dev.critpath.core.analysis;

/**
 * A connection would cost the analysis far more work than its packets justify (an MSS of a few
 * bytes with megabyte segments splits into millions of pieces): it is refused before the work is
 * allocated, so no input, valid or not, can exhaust memory.
 */
public final class AnalysisBudgetExceededException extends RuntimeException {
    private final long pieces;
    private final long budget;

    public AnalysisBudgetExceededException(String sensor, int packets, long pieces, long budget) {
        super("sensor " + sensor + ": " + packets + " packets would split into " + pieces
                + " MSS-sized pieces, over the budget of " + budget);
        this.pieces = pieces;
        this.budget = budget;
    }

    public long pieces() {
        return pieces;
    }

    public long budget() {
        return budget;
    }
}
