package dev.splice.listing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.testing.TestPrograms;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random mutations of real listings either assemble or fail with a ListingException that says
 * file:line:column; never another exception.
 */
class MutationPropertyTest {
    private static final Pattern LOCATED = Pattern.compile("^mutated\\.s:(\\d+):(\\d+): \\S.*", Pattern.DOTALL);
    private static final String ALPHABET = "0123456789abcdefxzABC,()-+:.# \t\nrstp_$";
    private static final String[] TOKENS = {"0x", "-", "4096", "0xffffffffffffffff", "1b", "1f", "zero", "x32", "f0",
        "c.", ".L", ":", ",", "(", ")", "rne", "iorw", ".byte", ".insn 4,", ".align", ".option norvc", ".target rv64i",
        "li", "call", "la", "99999999999999999999", "mstatus", "-2048", "2047", "\u00e9"};

    private static List<String> sources;

    private static synchronized List<String> sources() {
        if (sources == null) {
            ListingWriter writer = new ListingWriter();
            sources = new ArrayList<>();
            for (String name : new String[] {"hot_loop", "classify", "fib", "apply_all", "main"}) {
                sources.add(writer.toText(List.of(Listings.function(TestPrograms.rv64("loops"), name))));
            }
        }
        return sources;
    }

    @Provide
    Arbitrary<String> mutated() {
        return Arbitraries.randoms().map(random -> mutate(sources().get(random.nextInt(sources().size())), random));
    }

    static String mutate(String text, Random random) {
        StringBuilder sb = new StringBuilder(text);
        int count = 1 + random.nextInt(6);
        for (int i = 0; i < count; i++) {
            int at = sb.length() == 0 ? 0 : random.nextInt(sb.length());
            switch (random.nextInt(7)) {
                case 0 -> { if (sb.length() > 0) sb.deleteCharAt(at); }
                case 1 -> sb.insert(at, ALPHABET.charAt(random.nextInt(ALPHABET.length())));
                case 2 -> sb.insert(at, TOKENS[random.nextInt(TOKENS.length)]);
                case 3 -> { if (sb.length() > 0) sb.setCharAt(at, ALPHABET.charAt(random.nextInt(ALPHABET.length()))); }
                case 4 -> { // delete a run of characters
                    int end = Math.min(sb.length(), at + random.nextInt(12));
                    sb.delete(at, end);
                }
                default -> { // move or duplicate a whole line
                    List<String> lines = new ArrayList<>(Arrays.asList(sb.toString().split("\n", -1)));
                    int from = random.nextInt(lines.size());
                    String line = random.nextBoolean() ? lines.remove(from) : lines.get(from);
                    lines.add(random.nextInt(lines.size() + 1), line);
                    sb = new StringBuilder(String.join("\n", lines));
                }
            }
        }
        return sb.toString();
    }

    @Property(tries = 1500)
    void mutatedListingsAssembleOrFailWithALocation(@ForAll("mutated") String text) {
        try {
            Assembler.assemble(text, "mutated.s");
        } catch (ListingException e) {
            var m = LOCATED.matcher(e.getMessage());
            assertTrue(m.matches(), e.getMessage());
            int line = Integer.parseInt(m.group(1));
            int lines = text.split("\n", -1).length;
            assertTrue(line >= 1 && line <= lines, e.getMessage());
            assertTrue(Integer.parseInt(m.group(2)) >= 1, e.getMessage());
        }
    }
}
