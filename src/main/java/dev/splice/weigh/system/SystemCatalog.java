package dev.splice.weigh.system;

import dev.splice.base.BadInputException;
import dev.splice.elf.ElfFile;
import dev.splice.elf.ElfHeader;
import dev.splice.elf.Segment;
import dev.splice.weigh.ProgramCatalog;
import dev.splice.weigh.QemuPlugin;
import dev.splice.weigh.QemuRunner;
import dev.splice.weigh.campaign.Catalog;
import dev.splice.weigh.campaign.PluginRecords;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * {@code splice weigh catalog --mode system}: a bare-metal RISC-V64 image run on {@code
 * qemu-system-riscv64 -machine virt -bios none} with the plugin in catalog mode, limited to the
 * image's code (not QEMU's reset code), catalogued by semantic key with the CSR's privilege
 * ({@link ProgramCatalog#systemClasses}).
 */
public final class SystemCatalog {
    /** How long the image may run. */
    public static final Duration TIMEOUT = Duration.ofMinutes(30);

    /**
     * A catalog and what the image wrote to the UART.
     *
     * @param catalog the catalog, its origin naming the image, the QEMU options and the exit status
     * @param output the UART output
     */
    public record Run(Catalog catalog, byte[] output) {}

    private SystemCatalog() {}

    /**
     * Runs the image and catalogs it.
     *
     * @param plugin the Splice QEMU plugin
     * @param image a static RISC-V64 ELF executable linked at virt's DRAM (0x80000000)
     * @param qemuOptions more options for QEMU
     * @return the catalog and the UART output
     * @throws BadInputException when the image is not such an executable or QEMU writes no catalog
     */
    public static Run of(QemuPlugin plugin, Path image, List<String> qemuOptions) {
        QemuPlugin.CodeRange range = codeRange(image);
        Path dir = QemuRunner.createTempDirectory("splice-system-catalog-");
        try {
            Path records = dir.resolve("catalog.records");
            SystemQemu.Result r = SystemQemu.runImage(image, qemuOptions,
                    Optional.of(plugin.argument(PluginRecords.Mode.CATALOG, records, Optional.of(range))), TIMEOUT);
            if (!Files.exists(records)) {
                throw new BadInputException(SystemQemu.QEMU + " exited with status " + r.exitStatus()
                        + " without the plugin's catalog for " + image + ": " + r.diagnostics().strip());
            }
            PluginRecords p = PluginRecords.read(records);
            if (p.footer().vcpus() != 1) {
                throw new BadInputException(image + " ran on " + p.footer().vcpus()
                        + " harts: the plugin's inline counters are exact only for one");
            }
            Catalog catalog = new Catalog(new Catalog.Origin(image.toString(), qemuOptions, r.exitStatus(),
                    p.footer().translations()), ProgramCatalog.systemClasses(p.catalog()), p.blocks());
            return new Run(catalog, r.output());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            QemuRunner.deleteRecursively(dir);
        }
    }

    /** The image's code: from its lowest executable segment's start to its highest one's end. */
    static QemuPlugin.CodeRange codeRange(Path image) {
        ElfFile elf = ElfFile.read(image);
        if (!elf.isRiscV() || elf.header().type() != ElfHeader.ET_EXEC) {
            throw new BadInputException(image + ": system mode catalogs static RISC-V64 executables (ET_EXEC) only");
        }
        long start = -1;
        long end = 0;
        for (Segment s : elf.segments()) {
            if (s.isLoad() && s.isExecutable() && s.memorySize() > 0) {
                start = start < 0 ? s.virtualAddress() : Math.min(start, s.virtualAddress());
                end = Math.max(end, s.virtualAddress() + s.memorySize());
            }
        }
        if (start < 0) {
            throw new BadInputException(image + ": no executable segment");
        }
        return new QemuPlugin.CodeRange(start, end);
    }
}
