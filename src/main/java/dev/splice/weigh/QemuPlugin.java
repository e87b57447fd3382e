package dev.splice.weigh;

import dev.splice.base.BadInputException;
import dev.splice.weigh.campaign.PluginRecords;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where the Splice QEMU plugin ({@code libsplice-plugin.so}) is and how to pass it to QEMU.
 *
 * <p>The plugin is found, in this order: the system property {@code splice.plugin}, the
 * environment variable {@code SPLICE_PLUGIN}, then {@code build/qemu-plugin/libsplice-plugin.so}
 * under the repository root, which is the parent of the directory holding the Splice jar
 * ({@code target/splice.jar}) or classes ({@code target/classes}).
 */
public final class QemuPlugin {
    /** The plugin's path relative to the repository root, where the Makefile builds it. */
    static final Path RELATIVE_PATH = Path.of("build", "qemu-plugin", "libsplice-plugin.so");

    /**
     * Guest addresses [minPc, maxPc) the validation and timing modes watch.
     *
     * @param minPc the first address
     * @param maxPc the end (exclusive), above {@code minPc} (unsigned)
     */
    public record CodeRange(long minPc, long maxPc) {
        /**
         * Refuses an empty range.
         *
         * @param minPc the first address
         * @param maxPc the end (exclusive)
         * @throws IllegalArgumentException when the range is empty
         */
        public CodeRange {
            if (Long.compareUnsigned(minPc, maxPc) >= 0) {
                throw new IllegalArgumentException("empty code range");
            }
        }
    }

    private final Path library;

    private QemuPlugin(Path library) {
        this.library = library;
    }

    /** A plugin at an explicit path (which must exist). */
    static QemuPlugin at(Path library) {
        if (!Files.isRegularFile(library)) {
            throw new BadInputException("the Splice QEMU plugin " + library + " does not exist");
        }
        return new QemuPlugin(library.toAbsolutePath().normalize());
    }

    /**
     * Finds the plugin as described in the class comment.
     *
     * @return the plugin
     * @throws BadInputException naming where it looked when it is not there
     */
    public static QemuPlugin locate() {
        String property = System.getProperty("splice.plugin");
        if (property != null && !property.isEmpty()) {
            return at(Path.of(property));
        }
        String env = System.getenv("SPLICE_PLUGIN");
        if (env != null && !env.isEmpty()) {
            return at(Path.of(env));
        }
        Optional<Path> root = repositoryRoot();
        if (root.isEmpty()) {
            throw new BadInputException("cannot tell where Splice is installed to find its QEMU plugin; "
                    + "set SPLICE_PLUGIN to the path of libsplice-plugin.so");
        }
        Path candidate = root.get().resolve(RELATIVE_PATH);
        if (!Files.isRegularFile(candidate)) {
            throw new BadInputException("the Splice QEMU plugin is missing: " + candidate
                    + " does not exist; build it with 'make plugin' in " + root.get()
                    + " (or set SPLICE_PLUGIN to its path)");
        }
        return new QemuPlugin(candidate);
    }

    /**
     * The plugin's shared library.
     *
     * @return its absolute path
     */
    public Path library() {
        return library;
    }

    /**
     * The value of QEMU's {@code -plugin} option for a mode writing its records to {@code out}.
     * The code range is left to QEMU (the guest executable's code) unless given.
     *
     * @param mode the plugin's mode
     * @param out where the plugin writes its records
     * @param codeRange the guest code range to watch, if not the executable's
     * @return the option's value
     * @throws BadInputException when a path contains a comma (QEMU cannot pass it)
     */
    public String argument(PluginRecords.Mode mode, Path out, Optional<CodeRange> codeRange) {
        return argument(mode.argument(), out, codeRange);
    }

    /**
     * The value of QEMU's {@code -plugin} option for a mode named {@code mode} (also modes whose
     * records {@link PluginRecords} does not read, such as {@code trace}).
     *
     * @param mode the plugin's {@code mode=} name
     * @param out where the plugin writes its records
     * @param codeRange the guest code range to watch, if not the executable's
     * @return the option's value
     * @throws BadInputException when a path contains a comma (QEMU cannot pass it)
     */
    public String argument(String mode, Path out, Optional<CodeRange> codeRange) {
        List<String> parts = new ArrayList<>();
        parts.add(checkedForQemu(library.toString()));
        parts.add("mode=" + mode);
        parts.add("out=" + checkedForQemu(out.toAbsolutePath().toString()));
        codeRange.ifPresent(r -> {
            parts.add("min_pc=0x" + Long.toHexString(r.minPc()));
            parts.add("max_pc=0x" + Long.toHexString(r.maxPc()));
        });
        if (mode.equals(PluginRecords.Mode.CATALOG.argument())) {
            workingSets().ifPresent(w -> parts.add("working_sets=" + w));
        }
        return String.join(",", parts);
    }

    /**
     * The working sets of the table's pointer-chase contexts, ascending, for the catalog's cache
     * model: the levels it adds beyond the host's last known one, so that a load served there is
     * priced by the chase whose ring it fits (docs/weigh-model.md).
     */
    private static Optional<String> workingSets() {
        List<Long> sizes = ContextTable.load().contexts().stream()
                .filter(c -> c.pattern() == Context.Pattern.POINTER_CHASE && !c.systemOnly())
                .map(Context::workingSetBytes).filter(java.util.OptionalLong::isPresent)
                .map(java.util.OptionalLong::getAsLong).distinct().sorted().toList();
        return sizes.isEmpty() ? Optional.empty()
                : Optional.of(sizes.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(":")));
    }

    /** QEMU splits plugin options at commas and has no escape for them. */
    private static String checkedForQemu(String path) {
        if (path.indexOf(',') >= 0) {
            throw new BadInputException(path + ": QEMU cannot pass a path containing ',' to a plugin");
        }
        return path;
    }

    /** The repository root: two levels above the jar or class directory Splice runs from. */
    private static Optional<Path> repositoryRoot() {
        CodeSource source = QemuPlugin.class.getProtectionDomain().getCodeSource();
        if (source == null || source.getLocation() == null) {
            return Optional.empty();
        }
        try {
            Path codeLocation = Path.of(source.getLocation().toURI()).toAbsolutePath().normalize();
            Path target = codeLocation.getParent();
            return target == null || target.getParent() == null ? Optional.empty() : Optional.of(target.getParent());
        } catch (URISyntaxException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
