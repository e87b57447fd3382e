# Cycle probe, end, accumulating: pairs with cycle-probe-begin.s (which keeps the start reading on
# the stack and moves sp by 32); adds the cycles since then to this insertion's counter ({counter},
# atomically), so that after the run the counter holds the cycles spent between the probes, summed
# over every pass. Restores t0, t1 and the stack pointer. rdcycle works under qemu-riscv64 (it
# counts host ticks there, not guest cycles); on Linux hardware user-mode rdcycle may trap: use
# rdtime (or call __splice_time) instead.
.target rv64gc
sd t1, 16(sp)
sd t0, 24(sp)
rdcycle t0
ld t1, 8(sp)
sub t1, t0, t1
la t0, {counter}
amoadd.d zero, t1, (t0)
ld t1, 16(sp)
ld t0, 24(sp)
addi sp, sp, 32
