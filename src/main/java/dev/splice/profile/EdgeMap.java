package dev.splice.profile;

import dev.splice.base.BadInputException;
import dev.splice.cfg.FunctionEdges.EdgeKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The counter map an instrumented binary carries ({@code splice instrument}, section
 * {@value #SECTION}): which counter slot counts which edge of which function, in the input's
 * coordinates, and the whole flow network of each function, so that {@code splice profile
 * convert} recovers every edge's count from the counters. The text format (docs/instrument.md):
 *
 * <pre>
 * splice-edge-map 1
 * slots N
 * function NAME ADDRESS NODES
 * edge FROM TO KIND FROM_OFFSET TO_OFFSET SLOT
 * call BLOCK OFFSET CALLEE
 * </pre>
 *
 * <p>Numbers are decimal but ADDRESS (hex with 0x); KIND is an {@link EdgeKind} in lower case;
 * SLOT is -1 for an uncounted edge, -2 ({@link #FROM_CALLS}) for an entry its callers count; CALLEE is a function name, or {@code -} for an indirect call.
 * Names hold no white space (they are symbol names).
 *
 * @param slots the number of counter slots the binary has
 * @param functions the instrumented functions, in address order
 */
public record EdgeMap(int slots, List<FunctionMap> functions) {
    /** The section that holds the map in an instrumented binary (not allocated). */
    public static final String SECTION = ".splice.edge_map";
    private static final String MAGIC = "splice-edge-map 1";
    /**
     * The slot of an entry counted by its callers: the sum of the counts of the blocks of every
     * call site in the map that names the function (instrument proved those are all its entries).
     */
    public static final int FROM_CALLS = -2;

    /**
     * The map; the list is copied.
     *
     * @param slots the number of counter slots
     * @param functions the functions
     */
    public EdgeMap {
        functions = List.copyOf(functions);
    }

    /**
     * One function's flow network.
     *
     * @param name its symbol name (the fdata location name)
     * @param address its input address
     * @param nodes the network's number of nodes
     * @param edges its edges, in network order
     * @param calls its call sites
     */
    public record FunctionMap(String name, long address, int nodes, List<Edge> edges, List<Call> calls) {
        /**
         * The function; the lists are copied.
         *
         * @param name its symbol name
         * @param address its input address
         * @param nodes the number of nodes
         * @param edges the edges
         * @param calls the call sites
         */
        public FunctionMap {
            edges = List.copyOf(edges);
            calls = List.copyOf(calls);
        }
    }

    /**
     * One edge.
     *
     * @param from its source node
     * @param to its target node
     * @param kind what it stands for
     * @param fromOffset the offset of the instruction it leaves from, -1 for an entry
     * @param toOffset the offset it goes to, -1 into the virtual node
     * @param slot its counter slot, -1 when the spanning tree holds it
     */
    public record Edge(int from, int to, EdgeKind kind, int fromOffset, int toOffset, int slot) {}

    /**
     * One call site.
     *
     * @param block the block (node) holding it
     * @param offset its offset in the function
     * @param callee the function it calls, or null for an indirect call
     */
    public record Call(int block, int offset, String callee) {}

    /** {@return the map as text, in the format above} */
    public String toText() {
        StringBuilder out = new StringBuilder(MAGIC).append('\n').append("slots ").append(slots).append('\n');
        for (FunctionMap f : functions) {
            out.append("function ").append(f.name()).append(" 0x").append(Long.toHexString(f.address())).append(' ')
                    .append(f.nodes()).append('\n');
            for (Edge e : f.edges()) {
                out.append("edge ").append(e.from()).append(' ').append(e.to()).append(' ')
                        .append(e.kind().name().toLowerCase(Locale.ROOT)).append(' ').append(e.fromOffset()).append(' ')
                        .append(e.toOffset()).append(' ').append(e.slot()).append('\n');
            }
            for (Call c : f.calls()) {
                out.append("call ").append(c.block()).append(' ').append(c.offset()).append(' ')
                        .append(c.callee() == null ? "-" : c.callee()).append('\n');
            }
        }
        return out.toString();
    }

    /**
     * Reads a map.
     *
     * @param text the map's text
     * @param where names the map in messages (a file and section)
     * @return the map
     * @throws BadInputException when the text is not a map (with the line)
     */
    public static EdgeMap parse(String text, String where) {
        String[] lines = text.split("\n");
        if (lines.length < 2 || !lines[0].equals(MAGIC)) {
            throw new BadInputException(where + ": not a Splice edge map (no '" + MAGIC + "' line)");
        }
        int slots = -1;
        List<FunctionMap> functions = new ArrayList<>();
        String name = null;
        long address = 0;
        int nodes = 0;
        List<Edge> edges = new ArrayList<>();
        List<Call> calls = new ArrayList<>();
        for (int i = 1; i < lines.length; i++) {
            String[] w = lines[i].split(" ");
            try {
                switch (w[0]) {
                    case "slots" -> slots = Integer.parseInt(w[1]);
                    case "function" -> {
                        if (name != null) {
                            functions.add(new FunctionMap(name, address, nodes, edges, calls));
                        }
                        name = w[1];
                        address = Long.parseUnsignedLong(w[2].substring(2), 16);
                        nodes = Integer.parseInt(w[3]);
                        edges = new ArrayList<>();
                        calls = new ArrayList<>();
                    }
                    case "edge" -> edges.add(new Edge(node(w[1], nodes), node(w[2], nodes),
                            EdgeKind.valueOf(w[3].toUpperCase(Locale.ROOT)), Integer.parseInt(w[4]), Integer.parseInt(w[5]),
                            slot(w[6], slots)));
                    case "call" -> calls.add(new Call(node(w[1], nodes), Integer.parseInt(w[2]), w[3].equals("-") ? null : w[3]));
                    default -> throw new IllegalArgumentException("unknown record '" + w[0] + "'");
                }
                if (name == null && !w[0].equals("slots")) {
                    throw new IllegalArgumentException("a record before the first function");
                }
            } catch (RuntimeException e) {
                throw new BadInputException(where + ":" + (i + 1) + ": bad edge-map line '" + lines[i] + "': " + e.getMessage());
            }
        }
        if (name != null) {
            functions.add(new FunctionMap(name, address, nodes, edges, calls));
        }
        if (slots < 0) {
            throw new BadInputException(where + ": the edge map has no 'slots' line");
        }
        return new EdgeMap(slots, functions);
    }

    private static int node(String word, int nodes) {
        int n = Integer.parseInt(word);
        if (n < 0 || n >= nodes) {
            throw new IllegalArgumentException("node " + n + " outside 0.." + (nodes - 1));
        }
        return n;
    }

    private static int slot(String word, int slots) {
        int s = Integer.parseInt(word);
        if (s < FROM_CALLS || s >= slots) {
            throw new IllegalArgumentException("slot " + s + " outside " + FROM_CALLS + ".." + (slots - 1));
        }
        return s;
    }
}
