# Block counter: adds 1 to this insertion's counter ({counter}: __splice_counters + 8 * {id}),
# atomically (amoadd.d: right with several threads too). Insert it at every block start (or any
# point); the counters are written to the counter file when the program ends. t0 and t1 are saved
# on the stack and restored. Assembled once, whatever the number of points.
addi sp, sp, -16
sd t0, 0(sp)
sd t1, 8(sp)
la t0, {counter}
li t1, 1
amoadd.d zero, t1, (t0)
ld t0, 0(sp)
ld t1, 8(sp)
addi sp, sp, 16
