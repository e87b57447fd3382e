package dev.splice.cfg;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Dominators of a function's blocks by the iterative algorithm of Cooper, Harvey and Kennedy ("A
 * Simple, Fast Dominance Algorithm"), from a virtual root that enters every entry block, and the
 * loop heads they give.
 */
final class Dominators {
    private Dominators() {}

    /** The blocks (indices, ascending) that a back edge goes to: an edge from a block they dominate. */
    static int[] loopHeads(List<ControlFlowGraph.Block> blocks) {
        int n = blocks.size();
        int root = n;
        List<List<Integer>> successors = new ArrayList<>(n + 1);
        for (ControlFlowGraph.Block b : blocks) {
            successors.add(b.successors());
        }
        List<Integer> entries = new ArrayList<>();
        for (ControlFlowGraph.Block b : blocks) {
            if (b.entryPoint()) {
                entries.add(b.index());
            }
        }
        successors.add(entries);
        // Postorder numbers by an iterative depth-first search from the root; -1: unreachable.
        int[] postorder = new int[n + 1];
        java.util.Arrays.fill(postorder, -1);
        int[] byNumber = new int[n + 1];
        boolean[] seen = new boolean[n + 1];
        int[] stack = new int[n + 1];
        int[] next = new int[n + 1];
        int depth = 0;
        int count = 0;
        stack[depth++] = root;
        seen[root] = true;
        while (depth > 0) {
            int b = stack[depth - 1];
            List<Integer> s = successors.get(b);
            if (next[b] < s.size()) {
                int c = s.get(next[b]++);
                if (!seen[c]) {
                    seen[c] = true;
                    stack[depth++] = c;
                }
            } else {
                depth--;
                postorder[b] = count;
                byNumber[count++] = b;
            }
        }
        List<List<Integer>> predecessors = new ArrayList<>(n + 1);
        for (int i = 0; i <= n; i++) {
            predecessors.add(new ArrayList<>());
        }
        for (int b = 0; b <= n; b++) {
            if (postorder[b] >= 0) {
                for (int c : successors.get(b)) {
                    predecessors.get(c).add(b);
                }
            }
        }
        int[] idom = new int[n + 1];
        java.util.Arrays.fill(idom, -1);
        idom[root] = root;
        boolean changed = true;
        while (changed) {
            changed = false;
            for (int k = count - 2; k >= 0; k--) { // reverse postorder, the root (last) excluded
                int b = byNumber[k];
                int dom = -1;
                for (int p : predecessors.get(b)) {
                    if (idom[p] >= 0) {
                        dom = dom < 0 ? p : intersect(p, dom, idom, postorder);
                    }
                }
                if (idom[b] != dom) {
                    idom[b] = dom;
                    changed = true;
                }
            }
        }
        TreeSet<Integer> heads = new TreeSet<>();
        for (int b = 0; b < n; b++) {
            if (postorder[b] < 0) {
                continue;
            }
            for (int h : successors.get(b)) {
                if (dominates(h, b, idom, root)) {
                    heads.add(h);
                }
            }
        }
        return heads.stream().mapToInt(Integer::intValue).toArray();
    }

    private static int intersect(int a, int b, int[] idom, int[] postorder) {
        while (a != b) {
            while (postorder[a] < postorder[b]) {
                a = idom[a];
            }
            while (postorder[b] < postorder[a]) {
                b = idom[b];
            }
        }
        return a;
    }

    private static boolean dominates(int head, int b, int[] idom, int root) {
        for (int x = b; ; x = idom[x]) {
            if (x == head) {
                return true;
            }
            if (x == root) {
                return false;
            }
        }
    }
}
