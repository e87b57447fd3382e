# Function-entry counter: insert at a function's first instruction (e.g. --insert ADDR for each
# function, or bulk --insert-at-entries): counts its calls in {counter}. It calls the runtime's
# __splice_count (a0: the counter's address; the runtime keeps every register but a0), so only
# ra and a0 are saved here: a fragment that calls a helper saves ra and a0, nothing else.
addi sp, sp, -16
sd ra, 8(sp)
sd a0, 0(sp)
la a0, {counter}
call __splice_count
ld a0, 0(sp)
ld ra, 8(sp)
addi sp, sp, 16
