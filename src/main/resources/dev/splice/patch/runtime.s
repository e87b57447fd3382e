# The Splice runtime: helpers that fragments call, assembled by Splice at the start of .splice.text
# (docs/patch.md, "Fragments"). Calling convention: arguments in a0, a1; the result in a0. Every
# helper keeps every other register (ra aside, which the call itself wrote), so that a fragment
# saves only ra and a0 around a call. __splice_exit keeps a0 too. Data lives in .splice.bss:
# __splice_runtime_data (scratch: +0 the once-only flag of __splice_exit, +8 a zero word, +32 digits,
# +64 the file name) and the counters at __splice_counters. Linux system calls, no libc. No data
# in the code: BOLT would take it for instructions.

__splice_count:                     # a0: a counter's address; adds 1 to it, atomically
    addi    sp, sp, -16
    sd      t0, 0(sp)
    li      t0, 1
    amoadd.d zero, t0, (a0)
    ld      t0, 0(sp)
    addi    sp, sp, 16
    ret

__splice_add:                       # a0: a counter's address, a1: a value; adds it, atomically
    amoadd.d zero, a1, (a0)
    ret

__splice_cycles:                    # a0 = the cycle counter (rdcycle)
    rdcycle a0
    ret

__splice_time:                      # a0 = the time counter (rdtime)
    rdtime  a0
    ret

__splice_write:                     # a0: a buffer, a1: its length; writes it to the output file (created
                                    # or truncated); a0 = 0, or a negative errno
    addi    sp, sp, -80
    sd      ra, 0(sp)
    sd      a1, 8(sp)
    sd      a2, 16(sp)
    sd      a3, 24(sp)
    sd      a7, 32(sp)
    sd      t0, 40(sp)
    sd      t1, 48(sp)
    sd      t2, 56(sp)
    sd      t3, 64(sp)
    mv      t0, a0                  # t0: the next byte to write
    mv      t1, a1                  # t1: bytes left
    call    __splice_path
    mv      a1, a0
    li      a0, -100                # AT_FDCWD
    li      a2, 0x241               # O_WRONLY | O_CREAT | O_TRUNC
    li      a3, 0x1a4               # 0644
    li      a7, 56                  # openat
    ecall
    bltz    a0, 3f
    mv      t2, a0                  # t2: the file descriptor
    li      t3, 0                   # t3: the result
1:  beqz    t1, 2f
    mv      a0, t2
    mv      a1, t0
    mv      a2, t1
    li      a7, 64                  # write
    ecall
    blez    a0, 4f
    add     t0, t0, a0
    sub     t1, t1, a0
    j       1b
4:  mv      t3, a0
    bnez    t3, 2f
    li      t3, -5                  # nothing written: EIO
2:  mv      a0, t2
    li      a7, 57                  # close
    ecall
    mv      a0, t3
3:  ld      ra, 0(sp)
    ld      a1, 8(sp)
    ld      a2, 16(sp)
    ld      a3, 24(sp)
    ld      a7, 32(sp)
    ld      t0, 40(sp)
    ld      t1, 48(sp)
    ld      t2, 56(sp)
    ld      t3, 64(sp)
    addi    sp, sp, 80
    ret

__splice_path:                      # a0 = the output file's name: $SPLICE_COUNTER_FILE if set, else the
                                    # name given when instrumenting; each %p becomes the process id
    addi    sp, sp, -64
    sd      a1, 0(sp)
    sd      a2, 8(sp)
    sd      a7, 16(sp)
    sd      t0, 24(sp)
    sd      t1, 32(sp)
    sd      t2, 40(sp)
    sd      t3, 48(sp)
    sd      t4, 56(sp)
    la      t0, __splice_environ    # the program's environ (a zero word when it has none)
    ld      t0, 0(t0)
    beqz    t0, 5f
1:  ld      t1, 0(t0)               # t1: an entry, NAME=value
    beqz    t1, 5f
    la      t2, __splice_param_variable
2:  lbu     t3, 0(t2)
    beqz    t3, 6f                  # the whole "SPLICE_COUNTER_FILE=" matched: t1 is the value
    lbu     t4, 0(t1)
    bne     t3, t4, 3f
    addi    t1, t1, 1
    addi    t2, t2, 1
    j       2b
3:  addi    t0, t0, 8
    j       1b
5:  la      t1, __splice_param_path
6:  la      a2, __splice_runtime_data
    addi    a2, a2, 64              # a2: the name's buffer
    mv      t0, a2                  # t0: where the next byte goes
    addi    t4, a2, 2000
    addi    t4, t4, 1990            # t4: the buffer's limit (digits may follow it)
7:  lbu     t2, 0(t1)
    beqz    t2, 9f
    bgeu    t0, t4, 9f
    li      t3, 37                  # '%'
    bne     t2, t3, 8f
    lbu     t3, 1(t1)
    li      a1, 112                 # 'p'
    bne     t3, a1, 8f
    li      a7, 172                 # getpid
    ecall
    la      a7, __splice_runtime_data
    addi    a7, a7, 63              # a7: the end of the digits' scratch
    mv      t3, a7
    li      a1, 10
10: remu    t2, a0, a1
    addi    t2, t2, 48
    addi    t3, t3, -1
    sb      t2, 0(t3)
    divu    a0, a0, a1
    bnez    a0, 10b
11: lbu     t2, 0(t3)
    sb      t2, 0(t0)
    addi    t0, t0, 1
    addi    t3, t3, 1
    bltu    t3, a7, 11b
    addi    t1, t1, 2
    j       7b
8:  sb      t2, 0(t0)
    addi    t0, t0, 1
    addi    t1, t1, 1
    j       7b
9:  sb      zero, 0(t0)
    mv      a0, a2
    ld      a1, 0(sp)
    ld      a2, 8(sp)
    ld      a7, 16(sp)
    ld      t0, 24(sp)
    ld      t1, 32(sp)
    ld      t2, 40(sp)
    ld      t3, 48(sp)
    ld      t4, 56(sp)
    addi    sp, sp, 64
    ret

__splice_exit:                      # calls the runtime object's exit function, then writes the counters
                                    # to the output file, once per process (the first thread to get
                                    # here); keeps every register
    addi    sp, sp, -32
    sd      ra, 0(sp)
    sd      a0, 8(sp)
    sd      a1, 16(sp)
    sd      t0, 24(sp)
    la      t0, __splice_runtime_data
    li      a0, 1
    amoswap.d a0, a0, (t0)
    bnez    a0, 1f
    call    __splice_call_user_exit
    la      a0, __splice_counters
    la      t0, __splice_param_bytes
    ld      a1, 0(t0)
    beqz    a1, 1f                  # no counters (a runtime object's exit function only): no file
    call    __splice_write
1:  ld      ra, 0(sp)
    ld      a0, 8(sp)
    ld      a1, 16(sp)
    ld      t0, 24(sp)
    addi    sp, sp, 32
    ret

__splice_call_user_exit:            # calls __splice_user_exit (a runtime object's, --runtime, or the ret
                                    # below), a C function, keeping every integer register but ra
    addi    sp, sp, -128
    sd      ra, 0(sp)
    sd      t0, 8(sp)
    sd      t1, 16(sp)
    sd      t2, 24(sp)
    sd      t3, 32(sp)
    sd      t4, 40(sp)
    sd      t5, 48(sp)
    sd      t6, 56(sp)
    sd      a0, 64(sp)
    sd      a1, 72(sp)
    sd      a2, 80(sp)
    sd      a3, 88(sp)
    sd      a4, 96(sp)
    sd      a5, 104(sp)
    sd      a6, 112(sp)
    sd      a7, 120(sp)
    call    __splice_user_exit
    ld      ra, 0(sp)
    ld      t0, 8(sp)
    ld      t1, 16(sp)
    ld      t2, 24(sp)
    ld      t3, 32(sp)
    ld      t4, 40(sp)
    ld      t5, 48(sp)
    ld      t6, 56(sp)
    ld      a0, 64(sp)
    ld      a1, 72(sp)
    ld      a2, 80(sp)
    ld      a3, 88(sp)
    ld      a4, 96(sp)
    ld      a5, 104(sp)
    ld      a6, 112(sp)
    ld      a7, 120(sp)
    addi    sp, sp, 128
    ret

__splice_no_user_exit:              # the exit function without a runtime object
    ret
__splice_runtime_end:

# The parameters are in .splice.rodata (written by Splice): __splice_param_bytes, the counters' size
# in bytes; __splice_param_variable and __splice_param_path, the variable's name with its '=' and the
# default file name, NUL-terminated.
