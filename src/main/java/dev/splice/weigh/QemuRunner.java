package dev.splice.weigh;

import dev.splice.base.BadInputException;
import dev.splice.elf.ElfFile;
import dev.splice.elf.ElfHeader;
import dev.splice.weigh.campaign.PluginRecords;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;

/**
 * Runs a RISC-V64 Linux executable under {@code qemu-riscv64} (user mode), optionally with the
 * Splice plugin, and returns the guest's exit status and the plugin's records. QEMU passes the
 * guest's exit status through; a guest killed by a signal makes QEMU die by the same signal,
 * which shows here as 128 + the signal number.
 */
public final class QemuRunner {
    /** The QEMU user-mode emulator Splice runs guests with. */
    public static final String QEMU = "qemu-riscv64";

    /**
     * Where the guest's standard streams go.
     *
     * @param in the guest's standard input
     * @param out the guest's standard output
     * @param err the guest's standard error (QEMU's and the plugin's messages too)
     */
    public record Streams(Redirect in, Redirect out, Redirect err) {
        /**
         * The caller's own streams.
         *
         * @return stdin, stdout and stderr inherited
         */
        public static Streams inherited() {
            return new Streams(Redirect.INHERIT, Redirect.INHERIT, Redirect.INHERIT);
        }
    }

    /**
     * A finished run: the guest's exit status and, when a plugin ran, its records. The records are
     * empty only when the guest died of a signal: QEMU 7.2 then kills itself without running the
     * plugin's exit hook.
     *
     * @param exitCode the guest's exit status (128 + N when signal N killed it)
     * @param records the plugin's records
     */
    public record Result(int exitCode, Optional<PluginRecords> records) {
        /**
         * The signal that killed the guest.
         *
         * @return the signal number, or 0
         */
        public int signal() {
            return exitCode > 128 && exitCode < 128 + 65 ? exitCode - 128 : 0;
        }
    }

    private final QemuPlugin plugin;
    /** QEMU's {@code -cpu} model, when the guest needs one other than the default (vector code). */
    private final Optional<String> cpu;

    /**
     * A runner that loads {@code plugin} when a mode asks for it.
     *
     * @param plugin the Splice QEMU plugin ({@link QemuPlugin#locate()})
     */
    public QemuRunner(QemuPlugin plugin) {
        this(plugin, Optional.empty());
    }

    private QemuRunner(QemuPlugin plugin, Optional<String> cpu) {
        this.plugin = plugin;
        this.cpu = cpu;
    }

    /**
     * The same runner with QEMU's CPU model set ({@code -cpu MODEL}, e.g. {@code
     * rv64,v=true,vlen=128,vext_spec=v1.0} for vector code).
     *
     * @param model the CPU model and properties, as qemu-riscv64's -cpu takes them; empty for QEMU's default
     * @return the runner
     */
    public QemuRunner withCpu(Optional<String> model) {
        return new QemuRunner(plugin, model);
    }

    /**
     * QEMU's options for a CPU model.
     *
     * @param model the model and properties, or empty
     * @return {@code -cpu MODEL}, or nothing
     */
    public static List<String> cpuOptions(Optional<String> model) {
        return model.map(m -> List.of("-cpu", m)).orElse(List.of());
    }

    /**
     * Checks, before QEMU starts, that {@code binary} is something qemu-riscv64 can run: a
     * well-formed RISC-V64 ELF executable or PIE (QEMU itself exits 1 without a word otherwise).
     *
     * @param binary the file to run
     * @throws BadInputException naming the file and what it is instead
     */
    public static void requireExecutable(Path binary) {
        ElfFile elf = ElfFile.read(binary);
        if (!elf.isRiscV()) {
            throw new BadInputException(binary + ": not a RISC-V64 executable (ELF machine "
                    + elf.header().machine() + "); qemu-riscv64 runs RISC-V64 Linux programs only");
        }
        int type = elf.header().type();
        if (type != ElfHeader.ET_EXEC && type != ElfHeader.ET_DYN) {
            throw new BadInputException(binary + ": an ELF file of type " + type + ", not an executable (ET_EXEC or ET_DYN)");
        }
    }

    /**
     * Runs the guest without a plugin.
     *
     * @param binary a RISC-V64 Linux executable
     * @param args its arguments
     * @param streams its standard streams
     * @return the guest's exit status (128 + N when signal N killed it)
     */
    public static int runPlain(Path binary, List<String> args, Streams streams) {
        return runPlain(binary, args, streams, Sysroot.choose(Optional.empty()));
    }

    /**
     * Runs the guest without a plugin, dynamically linked ones with their libraries from {@code sysroot}.
     *
     * @param binary a RISC-V64 Linux executable
     * @param args its arguments
     * @param streams its standard streams
     * @param sysroot where QEMU finds the dynamic loader and libraries
     * @return the guest's exit status (128 + N when signal N killed it)
     */
    public static int runPlain(Path binary, List<String> args, Streams streams, Sysroot sysroot) {
        return runPlain(binary, args, streams, sysroot, Optional.empty());
    }

    /**
     * Runs the guest without a plugin, on the given CPU model.
     *
     * @param binary a RISC-V64 Linux executable
     * @param args its arguments
     * @param streams its standard streams
     * @param sysroot where QEMU finds the dynamic loader and libraries
     * @param cpu QEMU's CPU model ({@code -cpu}), empty for its default
     * @return the guest's exit status (128 + N when signal N killed it)
     */
    public static int runPlain(Path binary, List<String> args, Streams streams, Sysroot sysroot, Optional<String> cpu) {
        List<String> options = new ArrayList<>(cpuOptions(cpu));
        options.addAll(sysroot.qemuOptions(binary));
        return run(command(binary, args, options), streams);
    }

    /**
     * Runs the guest with the plugin in {@code mode}; the records are checked and returned. A run
     * that ends without records is an error, unless the guest died of a signal (then the result
     * has no records).
     *
     * @param binary a RISC-V64 Linux executable
     * @param args its arguments
     * @param mode the plugin's mode
     * @param range the guest code range the plugin watches (default: the executable's code)
     * @param streams the guest's standard streams
     * @return the exit status and the records
     * @throws BadInputException when QEMU ends without records for another reason than a signal, or
     *     the records do not parse
     */
    public Result run(Path binary, List<String> args, PluginRecords.Mode mode, Optional<QemuPlugin.CodeRange> range,
            Streams streams) {
        return run(binary, args, mode, range, streams, Optional.empty());
    }

    /**
     * As {@link #run(Path, List, PluginRecords.Mode, Optional, Streams)}, also copying the raw record
     * file.
     *
     * @param binary a RISC-V64 Linux executable
     * @param args its arguments
     * @param mode the plugin's mode
     * @param range the guest code range the plugin watches (default: the executable's code)
     * @param streams the guest's standard streams
     * @param keep where to copy the record file, if anywhere
     * @return the exit status and the records
     * @throws BadInputException as the other {@code run}
     */
    public Result run(Path binary, List<String> args, PluginRecords.Mode mode, Optional<QemuPlugin.CodeRange> range,
            Streams streams, Optional<Path> keep) {
        return run(binary, args, mode, range, streams, keep, Sysroot.choose(Optional.empty()));
    }

    /**
     * As {@link #run(Path, List, PluginRecords.Mode, Optional, Streams, Optional)}, dynamically
     * linked guests with their libraries from {@code sysroot}.
     *
     * @param binary a RISC-V64 Linux executable
     * @param args its arguments
     * @param mode the plugin's mode
     * @param range the guest code range the plugin watches (default: the executable's code)
     * @param streams the guest's standard streams
     * @param keep where to copy the record file, if anywhere
     * @param sysroot where QEMU finds the dynamic loader and libraries
     * @return the exit status and the records
     * @throws BadInputException as the other {@code run}
     */
    public Result run(Path binary, List<String> args, PluginRecords.Mode mode, Optional<QemuPlugin.CodeRange> range,
            Streams streams, Optional<Path> keep, Sysroot sysroot) {
        Recorded<PluginRecords> run = runRecording(binary, args, mode.argument(), range, streams, sysroot, records -> {
            try {
                PluginRecords parsed = PluginRecords.read(records);
                if (keep.isPresent()) {
                    Files.copy(records, keep.get(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
                return parsed;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        return new Result(run.exitCode(), run.records());
    }

    /**
     * A finished run with the plugin, its records read by the caller's reader.
     *
     * @param exitCode the guest's exit status (128 + N when signal N killed it)
     * @param records what the reader made of the record file; empty only when the guest died of a
     *     signal
     * @param <T> what the reader returns
     */
    public record Recorded<T>(int exitCode, Optional<T> records) {}

    /**
     * Runs the guest with the plugin in any mode (by its {@code mode=} name) and reads the record
     * file with {@code reader} before it is removed. A run that ends without records is an error,
     * unless the guest died of a signal (then there are no records).
     *
     * @param binary a RISC-V64 Linux executable
     * @param args its arguments
     * @param mode the plugin's mode name
     * @param range the guest code range the plugin watches (default: the executable's code)
     * @param streams the guest's standard streams
     * @param sysroot where QEMU finds the dynamic loader and libraries of a dynamically linked guest
     * @param reader reads the record file
     * @param <T> what the reader returns
     * @return the exit status and what the reader returned
     * @throws BadInputException when QEMU ends without records for another reason than a signal
     */
    public <T> Recorded<T> runRecording(Path binary, List<String> args, String mode, Optional<QemuPlugin.CodeRange> range,
            Streams streams, Sysroot sysroot, java.util.function.Function<Path, T> reader) {
        Path dir = createTempDirectory("splice-qemu");
        try {
            Path records = dir.resolve(mode + ".records");
            List<String> qemuOptions = new ArrayList<>(cpuOptions(cpu));
            qemuOptions.addAll(sysroot.qemuOptions(binary));
            qemuOptions.addAll(List.of("-plugin", plugin.argument(mode, records, range)));
            int exit = run(command(binary, args, qemuOptions), streams);
            if (!Files.exists(records)) {
                if (exit > 128 && exit < 128 + 65) {
                    return new Recorded<>(exit, Optional.empty());
                }
                throw new BadInputException(QEMU + " exited with status " + exit + " without the plugin's records for "
                        + binary + " (see the messages from QEMU and the plugin above)");
            }
            return new Recorded<>(exit, Optional.of(reader.apply(records)));
        } finally {
            deleteRecursively(dir);
        }
    }

    /**
     * Runs the guest in count mode and returns its exit status and exact executed-instruction
     * count; no count when the guest died of a signal (QEMU writes no records then); refused when
     * the count cannot be exact (more than one guest thread).
     *
     * @param binary a RISC-V64 Linux executable
     * @param args its arguments
     * @param streams its standard streams
     * @return the exit status and the count
     * @throws BadInputException when the guest runs more than one thread
     */
    public CountedRun count(Path binary, List<String> args, Streams streams) {
        return count(binary, args, streams, Sysroot.choose(Optional.empty()));
    }

    /**
     * As {@link #count(Path, List, Streams)}, dynamically linked guests with their libraries from {@code sysroot}.
     *
     * @param binary a RISC-V64 Linux executable
     * @param args its arguments
     * @param streams its standard streams
     * @param sysroot where QEMU finds the dynamic loader and libraries
     * @return the exit status and the count
     * @throws BadInputException when the guest runs more than one thread
     */
    public CountedRun count(Path binary, List<String> args, Streams streams, Sysroot sysroot) {
        Result result = run(binary, args, PluginRecords.Mode.COUNT, Optional.empty(), streams, Optional.empty(), sysroot);
        if (result.records().isEmpty()) {
            return new CountedRun(result.exitCode(), OptionalLong.empty());
        }
        PluginRecords records = result.records().get();
        if (records.mode() != PluginRecords.Mode.COUNT || records.executedInstructions().isEmpty()) {
            throw new BadInputException("the plugin wrote " + records.mode().argument() + " records, not a count");
        }
        long vcpus = records.footer().vcpus();
        if (vcpus != 1) {
            throw new BadInputException(binary + " ran " + vcpus + " guest threads: the plugin's inline counter is "
                    + "exact only for single-threaded programs, so no count is reported");
        }
        return new CountedRun(result.exitCode(), records.executedInstructions());
    }

    /**
     * A run in count mode.
     *
     * @param exitCode the guest's exit status (128 + N when signal N killed it)
     * @param executedInstructions the exact count, empty when the guest died of a signal
     */
    public record CountedRun(int exitCode, OptionalLong executedInstructions) {
        /**
         * The signal that killed the guest.
         *
         * @return the signal number, or 0
         */
        public int signal() {
            return new Result(exitCode, Optional.empty()).signal();
        }
    }

    private static List<String> command(Path binary, List<String> args, List<String> qemuOptions) {
        if (!Files.isRegularFile(binary)) {
            throw new BadInputException(binary + ": no such file");
        }
        List<String> command = new ArrayList<>();
        command.add(qemuExecutable());
        command.addAll(qemuOptions);
        command.add(binary.toString());
        command.addAll(args);
        return command;
    }

    private static String qemuExecutable() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, QEMU))) {
                return Path.of(dir, QEMU).toString();
            }
        }
        throw new BadInputException(QEMU + " is not installed (Debian package qemu-user)");
    }

    private static int run(List<String> command, Streams streams) {
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectInput(streams.in())
                .redirectOutput(streams.out())
                .redirectError(streams.err());
        Process process;
        try {
            process = pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command.get(0), e);
        }
        try {
            return process.waitFor();
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new BadInputException("interrupted while " + QEMU + " was running");
        }
    }

    /**
     * A new temporary directory for one QEMU run's files ({@link #deleteRecursively} removes it).
     *
     * @param prefix the start of its name
     * @return the directory
     * @throws UncheckedIOException if it cannot be created
     */
    public static Path createTempDirectory(String prefix) {
        try {
            return Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Removes a temporary directory and what it holds; a leftover file is harmless, so errors are ignored.
     *
     * @param dir the directory
     */
    public static void deleteRecursively(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // A leftover temporary file is harmless; the run's result stands.
        }
    }
}
