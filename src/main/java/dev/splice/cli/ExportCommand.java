package dev.splice.cli;

import dev.splice.Binary;
import dev.splice.Function;
import dev.splice.base.AtomicFiles;
import dev.splice.listing.ListingWriter;
import dev.splice.listing.Region;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** `splice export`: one listing file per function. */
@Command(
        name = "export",
        mixinStandardHelpOptions = true,
        description = {
            "Writes one listing per function of a RISC-V64 ELF file into a directory, named after the function (characters other than letters, digits, '.', '_' and '-' become '_'; clashing names get the function's address appended). Functions of size 0 are skipped."
        })
final class ExportCommand implements Callable<Integer>, Main.WarmsUp {
    @Parameters(index = "0", paramLabel = "FILE", description = "ELF file.")
    Path file;

    @Option(names = "--output-dir", paramLabel = "DIR", required = true, description = "Directory for the listings.")
    Path outputDir;

    @Option(names = "--aliases", description = "Readable aliases; not guaranteed to reassemble.")
    boolean aliases;

    /** The decoder tables take as long to build as picocli takes to start: overlap them. */
    @Override
    public void warmUp() {
        DecoderTables.startBuilding(DecoderTables.all());
    }

    @Override
    public Integer call() throws Exception {
        DecoderTables.startBuilding(DecoderTables.all()); // builds the decoder tables while the input is read (if warmUp did not)
        Binary binary = Binary.open(file);
        ListingWriter writer = new ListingWriter(aliases, binary.symbolMap());
        Files.createDirectories(outputDir);
        Set<String> taken = new HashSet<>();
        int written = 0;
        for (Function function : binary.functions()) {
            if (!function.hasCode()) {
                continue;
            }
            Region region = function.region();
            String name = fileName(function, taken);
            AtomicFiles.write(outputDir.resolve(name), out -> writer.write(List.of(region), out));
            written++;
        }
        System.err.println("splice: wrote " + written + " listings to " + outputDir);
        return Main.OK;
    }

    /** A safe, unique file name: NAME.s, or NAME@ADDRESS.s when another function took NAME. */
    static String fileName(Function function, Set<String> taken) {
        String safe = safe(function.name());
        String name = safe + ".s";
        if (!taken.add(name.toLowerCase(Locale.ROOT))) {
            name = safe + "@" + Long.toHexString(function.address()) + ".s";
            taken.add(name.toLowerCase(Locale.ROOT));
        }
        return name;
    }

    static String safe(String name) {
        StringBuilder sb = new StringBuilder(Math.min(name.length(), 200));
        for (int i = 0; i < name.length() && sb.length() < 200; i++) {
            char c = name.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'
                    || (c == '.' && i > 0);
            sb.append(ok ? c : '_');
        }
        if (name.length() > 200) {
            sb.append('~').append(Integer.toHexString(name.hashCode()));
        }
        return sb.length() == 0 ? "_" : sb.toString();
    }
}
