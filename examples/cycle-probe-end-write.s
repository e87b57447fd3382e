# Cycle probe, end, reporting: like cycle-probe-end.s, and then writes the 8-byte cycle difference
# (little-endian) to standard error with the Linux `write` system call, so that a script can read
# it (e.g. `od -An -t d8`). Pairs with cycle-probe-begin.s. Every register it uses (t0, t1, a0, a1,
# a2, a7) is saved on the stack and restored; the stack pointer is back where the begin probe found it.
.target rv64gc
sd t1, 16(sp)
sd t0, 24(sp)
rdcycle t0
ld t1, 8(sp)
sub t0, t0, t1
sd t0, 0(sp)
addi sp, sp, -32
sd a0, 0(sp)
sd a1, 8(sp)
sd a2, 16(sp)
sd a7, 24(sp)
li a0, 2             # fd: standard error
addi a1, sp, 32      # buffer: the difference, at 0(sp) of the begin probe's frame
li a2, 8             # length
li a7, 64            # __NR_write
ecall
ld a0, 0(sp)
ld a1, 8(sp)
ld a2, 16(sp)
ld a7, 24(sp)
addi sp, sp, 32
ld t1, 16(sp)
ld t0, 24(sp)
addi sp, sp, 32
