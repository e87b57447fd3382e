package dev.splice.weigh;

import dev.splice.base.BadInputException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * An extension the weight contexts cannot measure on QEMU 7.2, with the reason (issue 14; the list
 * is the resource {@code unavailable.tsv}, documented in docs/contexts.md). {@code
 * UnavailableExtensionsTest} checks every claim: QEMU refuses the property, and the instruction dies of
 * SIGILL on the CPU model after its setup, which itself runs.
 *
 * @param extension lower-case extension name ({@code zvbb})
 * @param property the {@code qemu-riscv64 -cpu} property that would enable it and that QEMU 7.2 lacks;
 *     empty when QEMU has the property but still cannot run the instruction in user mode
 * @param cpu the {@code -cpu} model Splice would run it on
 * @param setup assembly lines run before the instruction (a {@code vsetvli} for vector instructions)
 * @param instruction one instruction of the extension, in assembly
 * @param reason why it cannot be measured
 */
public record UnavailableExtension(String extension, Optional<String> property, String cpu, List<String> setup,
        String instruction, String reason) {
    /** The resource holding the list. */
    public static final String RESOURCE = "unavailable.tsv";
    private static final List<String> COLUMNS = List.of("extension", "property", "cpu", "setup", "instruction", "reason");

    /**
     * Copies the setup.
     *
     * @param extension see {@link #extension()}
     * @param property see {@link #property()}
     * @param cpu see {@link #cpu()}
     * @param setup see {@link #setup()}
     * @param instruction see {@link #instruction()}
     * @param reason see {@link #reason()}
     */
    public UnavailableExtension {
        setup = List.copyOf(setup);
    }

    /**
     * Splice's list.
     *
     * @return the extensions in {@link #RESOURCE}, in file order
     */
    public static List<UnavailableExtension> load() {
        try (InputStream in = UnavailableExtension.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("resource " + RESOURCE + " is missing from the Splice jar");
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), RESOURCE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Parses the list's text; {@code source} names it in error messages. */
    static List<UnavailableExtension> parse(String text, String source) {
        List<UnavailableExtension> out = new ArrayList<>();
        boolean header = false;
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].isEmpty() || lines[i].startsWith("#")) {
                continue;
            }
            String[] f = lines[i].split("\t", -1);
            if (f.length != COLUMNS.size()) {
                throw new BadInputException(source + ":" + (i + 1) + ": " + f.length + " columns, expected " + COLUMNS.size());
            }
            if (!header) {
                if (!List.of(f).equals(COLUMNS)) {
                    throw new BadInputException(source + ":" + (i + 1) + ": expected the header line");
                }
                header = true;
                continue;
            }
            out.add(new UnavailableExtension(f[0], f[1].equals("-") ? Optional.empty() : Optional.of(f[1]), f[2],
                    f[3].equals("-") ? List.of() : List.of(f[3].split(" ; ", -1)), f[4], f[5]));
        }
        return out;
    }
}
