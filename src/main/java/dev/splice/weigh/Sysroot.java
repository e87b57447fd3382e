package dev.splice.weigh;

import dev.splice.base.BadInputException;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Segment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where {@code qemu-riscv64} finds the dynamic loader and the shared libraries of a dynamically
 * linked guest (its {@code -L} prefix), in this order: the {@code --sysroot} option of the command;
 * the environment variable {@value #ENV}; QEMU's own {@code QEMU_LD_PREFIX} (then Splice passes no
 * {@code -L} and QEMU uses it); else {@value #DEFAULT} (Debian's {@code libc6-riscv64-cross}).
 * A static executable needs none: the prefix is passed only for a binary with {@code PT_INTERP},
 * or whenever it was chosen explicitly (option or {@value #ENV}).
 *
 * @param path the prefix, empty when QEMU_LD_PREFIX decides
 * @param explicit true when chosen by the option or {@value #ENV}
 */
public record Sysroot(Optional<Path> path, boolean explicit) {
    /** The environment variable that overrides the default prefix. */
    public static final String ENV = "SPLICE_SYSROOT";
    /** The prefix used when nothing else is chosen: the RISC-V64 glibc of Debian's cross packages. */
    public static final String DEFAULT = "/usr/riscv64-linux-gnu";
    private static final String QEMU_ENV = "QEMU_LD_PREFIX";

    /**
     * The prefix chosen by {@code option} (a command's {@code --sysroot}), else by the environment.
     *
     * @param option the command's choice, if any
     * @return the sysroot
     */
    public static Sysroot choose(Optional<Path> option) {
        return choose(option, System.getenv());
    }

    /**
     * As {@link #choose(Optional)}, with the environment given.
     *
     * @param option the command's choice, if any
     * @param env the environment variables
     * @return the sysroot
     */
    public static Sysroot choose(Optional<Path> option, Map<String, String> env) {
        if (option.isPresent()) {
            return new Sysroot(option, true);
        }
        String fromEnv = env.get(ENV);
        if (fromEnv != null && !fromEnv.isEmpty()) {
            return new Sysroot(Optional.of(Path.of(fromEnv)), true);
        }
        String qemu = env.get(QEMU_ENV);
        if (qemu != null && !qemu.isEmpty()) {
            return new Sysroot(Optional.empty(), false);
        }
        return new Sysroot(Optional.of(Path.of(DEFAULT)), false);
    }

    /**
     * The QEMU options that give {@code binary} this prefix: {@code -L DIR}, or none for a static
     * executable (unless chosen explicitly) and when {@code QEMU_LD_PREFIX} decides.
     *
     * @param binary the guest executable
     * @return the options
     * @throws BadInputException when the binary is dynamically linked and the prefix is no directory
     */
    public List<String> qemuOptions(Path binary) {
        if (path.isEmpty() || !explicit && !isDynamic(binary)) {
            return List.of();
        }
        Path dir = path.get();
        if (!Files.isDirectory(dir)) {
            throw new BadInputException(binary + ": the sysroot " + dir + " for its dynamic loader and libraries is no directory: "
                    + (explicit ? "check --sysroot or " + ENV : "install libc6-riscv64-cross, or give --sysroot DIR or " + ENV + "=DIR")
                    + " (the directory holding lib/ld-linux-riscv64-lp64d.so.1)");
        }
        return List.of("-L", dir.toString());
    }

    /** True for an ELF file with a program interpreter (a dynamically linked executable). */
    private static boolean isDynamic(Path binary) {
        if (!Files.isRegularFile(binary)) {
            return false; // QemuRunner reports the missing file
        }
        return ElfFile.read(binary).segments().stream().anyMatch(s -> s.type() == Segment.PT_INTERP);
    }
}
