# Cycle probe, begin: saves t0 on the stack, reads the cycle counter into t0 and keeps the reading
# in the 16-byte stack slot below the saved t0. Registers are restored; sp is moved by 32 bytes
# until cycle-probe-end.s runs, so insert the pair around straight-line code or a whole loop of
# the same function (both probes on every path).
.target rv64gc
addi sp, sp, -32
sd t0, 24(sp)
rdcycle t0
sd t0, 8(sp)
ld t0, 24(sp)
