package dev.splice.weigh.campaign;

/**
 * A pair row refused while reading with bad rows skipped: where it was and why.
 *
 * @param file the file's name, e.g. {@code pairs.jsonl}
 * @param line 1-based line number
 * @param reason why the row was refused
 */
public record BadRow(String file, long line, String reason) {
    /** @return {@code FILE:LINE: REASON} */
    @Override
    public String toString() {
        return file + ":" + line + ": " + reason;
    }
}
