import dev.splice.elf.ElfFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Times Splice's ELF reader in one warmed-up JVM against llvm-readelf-22 (a process per run) on
 * the same file: headers, sections, segments, .symtab, .dynsym, notes and every RELA section.
 * Run by bench/elf.sh: java -cp target/splice-cli.jar bench/ElfRead.java FILE [RUNS]
 */
public class ElfRead {
    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        byte[] bytes = Files.readAllBytes(file);
        long sink = 0;
        for (int i = 0; i < 200; i++) {
            sink += parseAll(bytes);
        }
        List<Double> splice = new ArrayList<>();
        for (int i = 0; i < runs * 10; i++) {
            long t0 = System.nanoTime();
            sink += parseAll(bytes);
            splice.add((System.nanoTime() - t0) / 1e6);
        }
        List<Double> readelf = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            long t0 = System.nanoTime();
            Process p = new ProcessBuilder("llvm-readelf-22", "--file-header", "--sections", "--segments", "--symbols",
                    "--dyn-syms", "--notes", "--relocations", file.toString())
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectErrorStream(true).start();
            if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("llvm-readelf-22 failed on " + file);
            }
            readelf.add((System.nanoTime() - t0) / 1e6);
        }
        ElfFile elf = ElfFile.parse(bytes, file.toString());
        long relocations = elf.relocations().stream().mapToLong(r -> r.relocations().size()).sum();
        double s = median(splice);
        double r = median(readelf);
        System.out.printf("%s: %.1f MB, %d sections, %d symbols, %d relocations (checksum %d)%n", file,
                bytes.length / 1e6, elf.sections().size(), elf.symbols().size() + elf.dynamicSymbols().size(),
                relocations, sink & 0xff);
        System.out.printf("  splice reader (parse everything, warm JVM): median %.2f ms%n", s);
        System.out.printf("  llvm-readelf-22 (process, output discarded): median %.2f ms%n", r);
        System.out.printf("  ratio llvm-readelf / splice: %.1fx%n", r / s);
    }

    /** Parses the file and forces every lazily parsed table. */
    private static long parseAll(byte[] bytes) {
        ElfFile elf = ElfFile.parse(bytes, "bench");
        long n = elf.sections().size() + elf.segments().size() + elf.symbols().size() + elf.dynamicSymbols().size()
                + elf.notes().size() + elf.functions().size();
        for (var r : elf.relocations()) {
            n += r.relocations().size();
        }
        return n;
    }

    private static double median(List<Double> xs) {
        List<Double> sorted = new ArrayList<>(xs);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }
}
