package dev.splice.architecture;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.spi.ToolProvider;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The uses of one Splice class by another in compiled classes, as the JDK's jdeps finds them. They
 * include what a source scan cannot see: types used without being named (a {@code var}, a chained
 * call's return type). A source scan sees what bytecode cannot: constants the compiler inlined.
 */
final class CompiledDependencies {
    /** One class using another, by binary name ({@code dev.splice.elf.ElfFile$Builder}). */
    record Use(String fromClass, String toClass) {}

    private static final Pattern LINE = Pattern.compile("^\\s+(dev\\.splice\\.\\S+)\\s+->\\s+(dev\\.splice\\.\\S+)\\s");

    private CompiledDependencies() {}

    /** Runs jdeps (in this JVM) on a directory of class files. */
    static List<Use> of(Path classes) {
        ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow(() -> new IllegalStateException("no jdeps in this JDK"));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int rc = jdeps.run(new PrintWriter(out), new PrintWriter(err), "-verbose:class", "-filter:none", classes.toString());
        if (rc != 0) {
            throw new IllegalStateException("jdeps failed (" + rc + "): " + err);
        }
        return parse(out.toString());
    }

    /** The Splice-to-Splice lines of jdeps' {@code -verbose:class} output. */
    static List<Use> parse(String jdepsOutput) {
        List<Use> uses = new ArrayList<>();
        for (String line : jdepsOutput.split("\n")) {
            Matcher m = LINE.matcher(line);
            if (m.find()) {
                uses.add(new Use(m.group(1), m.group(2)));
            }
        }
        return uses;
    }
}
