package dev.splice.architecture;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a Java source file says about its dependencies on Splice's packages: its package and every
 * import of, or fully qualified reference to, a {@code dev.splice} name. Comments, string and
 * character literals are not code and are left out (a {@code {@link}} in Javadoc is no dependency).
 */
record JavaSource(String file, String packageName, int packageLine, List<Reference> references) {
    /** One import or fully qualified name in code, with its 1-based line. */
    record Reference(int line, boolean isImport, String name) {
        @Override
        public String toString() {
            return (isImport ? "import " : "reference ") + name;
        }
    }

    private static final Pattern PACKAGE = Pattern.compile("\\bpackage\\s+([\\w.]+)\\s*;");
    private static final Pattern IMPORT = Pattern.compile("\\bimport\\s+(?:static\\s+)?([\\w.]+(?:\\.\\*)?)\\s*;");
    private static final Pattern QUALIFIED = Pattern.compile("(?<![\\w$.])dev\\s*\\.\\s*splice(?:\\s*\\.\\s*[\\w$]+)+");

    /** Reads {@code text}, the content of {@code file} (the name is only for messages). */
    static JavaSource parse(String file, String text) {
        String code = codeOnly(text);
        Matcher p = PACKAGE.matcher(code);
        String packageName = p.find() ? p.group(1) : "";
        int packageLine = packageName.isEmpty() ? 1 : lineOf(code, p.start());
        int afterPackage = packageName.isEmpty() ? 0 : p.end();
        List<Reference> references = new ArrayList<>();
        Matcher i = IMPORT.matcher(code);
        int afterImports = afterPackage;
        while (i.find(afterImports) && code.substring(afterImports, i.start()).isBlank()) {
            if (i.group(1).startsWith(PackageTable.ROOT + ".")) {
                references.add(new Reference(lineOf(code, i.start()), true, i.group(1)));
            }
            afterImports = i.end();
        }
        Matcher q = QUALIFIED.matcher(code);
        q.region(afterImports, code.length());
        while (q.find()) {
            references.add(new Reference(lineOf(code, q.start()), false, q.group().replaceAll("\\s", "")));
        }
        return new JavaSource(file, packageName, packageLine, List.copyOf(references));
    }

    /** The text with comments and literals blanked out; line breaks are kept so that lines still count. */
    static String codeOnly(String text) {
        StringBuilder out = new StringBuilder(text.length());
        int n = text.length();
        int i = 0;
        while (i < n) {
            int end;
            if (text.startsWith("//", i)) {
                end = text.indexOf('\n', i);
                end = end < 0 ? n : end;
            } else if (text.startsWith("/*", i)) {
                end = text.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
            } else if (text.startsWith("\"\"\"", i)) {
                end = text.indexOf("\"\"\"", i + 3);
                end = end < 0 ? n : end + 3;
            } else if (text.charAt(i) == '"' || text.charAt(i) == '\'') {
                end = literalEnd(text, i);
            } else {
                out.append(text.charAt(i++));
                continue;
            }
            for (int k = i; k < end; k++) {
                out.append(text.charAt(k) == '\n' ? '\n' : ' ');
            }
            i = end;
        }
        return out.toString();
    }

    private static int literalEnd(String text, int start) {
        char quote = text.charAt(start);
        int i = start + 1;
        while (i < text.length() && text.charAt(i) != quote && text.charAt(i) != '\n') {
            i += text.charAt(i) == '\\' ? 2 : 1;
        }
        return Math.min(i + 1, text.length());
    }

    private static int lineOf(String text, int index) {
        int line = 1;
        for (int k = 0; k < index; k++) {
            if (text.charAt(k) == '\n') {
                line++;
            }
        }
        return line;
    }
}
