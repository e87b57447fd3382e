# Cycle probe, end: computes the cycles since cycle-probe-begin.s, stores the difference in the
# 8-byte word at 0(sp) for a debugger or a later fragment to read, restores t0 and t1 and the
# stack pointer. Uses t0 and t1, saved and restored here.
.target rv64gc
sd t1, 16(sp)
sd t0, 24(sp)
rdcycle t0
ld t1, 8(sp)
sub t0, t0, t1
sd t0, 0(sp)
ld t1, 16(sp)
ld t0, 24(sp)
addi sp, sp, 32
