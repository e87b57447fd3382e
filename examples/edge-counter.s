# Edge counter: counts the fall-through edge of a conditional branch. Insert it at the instruction
# after the branch with the ORIGINAL branch-target policy (--insert-branch-target original, or
# BranchTarget.ORIGINAL for this insertion): branches and jumps to that instruction then skip the
# fragment, and only the fall-through from the branch runs it. (A taken edge is counted the same
# way at a target that nothing else reaches, or as the block count minus the fall-through count.)
addi sp, sp, -16
sd t0, 0(sp)
sd t1, 8(sp)
la t0, {counter}
li t1, 1
amoadd.d zero, t1, (t0)
ld t0, 0(sp)
ld t1, 8(sp)
addi sp, sp, 16
