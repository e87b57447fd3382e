package dev.splice.weigh.model;

/** A row refused by {@link PairReader} under {@code --skip-bad-rows}: where it was and why. */
public record BadRow(String file, long line, String reason) {
    @Override
    public String toString() {
        return file + ":" + line + ": " + reason;
    }
}
