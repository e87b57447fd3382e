package dev.splice.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The version of a peer tool as its own {@code --version} prints it, for {@code splice --version}. */
final class PeerVersion {
    private static final Pattern NUMBER = Pattern.compile("\\d+\\.\\d+(\\.\\d+)?");

    private PeerVersion() {}

    /** {@code tool}'s version number (the first one its version output names), or "not found". */
    static String of(String tool, String option) {
        try {
            Process p = new ProcessBuilder(tool, option).redirectErrorStream(true).start();
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readNBytes(4096);
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "no answer to " + option;
            }
            String text = new String(out, StandardCharsets.UTF_8);
            for (String line : text.split("\n")) {
                Matcher m = NUMBER.matcher(line);
                if (m.find()) {
                    return m.group();
                }
            }
            return "found (no version number in its " + option + ")";
        } catch (IOException e) {
            return "not found";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }
}
