package dev.splice.architecture;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The allowed dependencies between Splice's packages: the table in docs/architecture.md. A
 * subpackage belongs to its top package ({@code dev.splice.elf.reloc} is {@code elf},
 * {@code dev.splice.weigh.model} is {@code weigh}). The root package {@code dev.splice} is the
 * library's entry surface and may use every package but {@code cli}; {@code cli} may use everything.
 */
final class PackageTable {
    /** The root package, named as it is in the table and in messages. */
    static final String ROOT = "dev.splice";
    private static final String PREFIX = ROOT + ".";

    private static final Map<String, Set<String>> MAY_USE = Map.of(
            "base", Set.of(),
            "isa", Set.of("base"),
            "elf", Set.of("base"),
            "listing", Set.of("isa", "base"),
            "cfg", Set.of("isa", "elf", "base"),
            "bat", Set.of("elf", "base"),
            "profile", Set.of("bat", "cfg", "elf", "base"),
            "patch", Set.of("isa", "elf", "listing", "cfg", "bat", "base"),
            "weigh", Set.of("isa", "elf", "listing", "base"));
    private static final String CLI = "cli";

    private PackageTable() {}

    /** A reference one package may not make: where, what, and the rule it breaks. */
    record Violation(String file, int line, String reference, String rule) {
        @Override
        public String toString() {
            return file + (line > 0 ? ":" + line : "") + ": " + reference + " breaks the rule: " + rule;
        }
    }

    /** The violations in one source file; empty when it keeps the table. */
    static List<Violation> check(JavaSource source) {
        String from = topPackage(source.packageName());
        List<Violation> violations = new ArrayList<>();
        if (!known(from)) {
            violations.add(new Violation(source.file(), source.packageLine(), "package " + source.packageName(),
                    "every top package has a row in the table; " + from + " has none"));
            return violations;
        }
        for (JavaSource.Reference r : source.references()) {
            if (!allows(from, topPackage(packageOf(r.name())))) {
                violations.add(new Violation(source.file(), r.line(), r.toString(), rule(from)));
            }
        }
        return violations;
    }

    /**
     * The violation, if any, of one compiled class using another (names as jdeps prints them,
     * {@code dev.splice.elf.ElfFile$Builder}); line 0, since bytecode has no import lines.
     */
    static List<Violation> check(CompiledDependencies.Use use) {
        String from = topPackage(packageOf(use.fromClass()));
        String to = topPackage(packageOf(use.toClass()));
        if (!known(from) || allows(from, to)) {
            return List.of();
        }
        return List.of(new Violation(use.fromClass() + ".class", 0, "use of " + use.toClass(), rule(from)));
    }

    /** The top package of a package: {@code elf} for dev.splice.elf.unwind, {@link #ROOT} for dev.splice. */
    static String topPackage(String packageName) {
        if (!packageName.startsWith(PREFIX)) {
            return packageName;
        }
        String rest = packageName.substring(PREFIX.length());
        int dot = rest.indexOf('.');
        return dot < 0 ? rest : rest.substring(0, dot);
    }

    /**
     * The package part of a qualified name, by Java's naming convention: the segments before the
     * first one that starts with an upper-case letter ({@code dev.splice.Binary} is in the root
     * package, {@code dev.splice.elf.ElfFile.read} in {@code dev.splice.elf}).
     */
    static String packageOf(String qualifiedName) {
        String[] segments = qualifiedName.split("\\.");
        StringBuilder p = new StringBuilder(segments[0]);
        for (int i = 1; i < segments.length && !Character.isUpperCase(segments[i].charAt(0))
                && !segments[i].equals("*"); i++) {
            p.append('.').append(segments[i]);
        }
        return p.toString();
    }

    static boolean allows(String from, String to) {
        if (from.equals(to) || from.equals(CLI)) {
            return true;
        }
        if (from.equals(ROOT)) {
            return !to.equals(CLI);
        }
        return MAY_USE.getOrDefault(from, Set.of()).contains(to);
    }

    private static boolean known(String top) {
        return top.equals(ROOT) || top.equals(CLI) || MAY_USE.containsKey(top);
    }

    private static String rule(String from) {
        if (from.equals(ROOT)) {
            return ROOT + " (the entry surface) may use every package but cli";
        }
        Set<String> allowed = new TreeSet<>(MAY_USE.get(from));
        return from + " may use " + (allowed.isEmpty() ? "no other package" : String.join(", ", allowed));
    }
}
