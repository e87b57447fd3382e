# Syntax forms that GNU as 2.40 and llvm-mc-22 both accept and encode alike (SyntaxPeerTest).
.option norvc
        addw a2, a3, 4
        add a2, a3, -5
        and a2, a3, 4
        or a2, a3, 4
        xor a2, a3, 4
        sll a2, a3, 4
        srl a2, a3, 4
        sra a2, a3, 4
        slt a2, a3, 4
        sltu a2, a3, 4
        sllw a2, a3, 4
        srlw a2, a3, 4
        sraw a2, a3, 4
        csrw mstatus, 7
        csrs mstatus, 7
        csrc mstatus, 7
        csrrw a0, mstatus, 7
        csrrs a0, mstatus, 7
        csrrc a0, mstatus, 7
        jalr s6, s7
        jalr s6, s7, 4
        jalr a0
        jalr ra, 0(a0)
        lr.w a0, 0(a0)
        lr.d a0, 0(a1)
        sc.w a0, a1, 0(a2)
        amoadd.w a0, a1, 0(a2)
        amoswap.d.aqrl a0, a1, 0(a2)
        cbo.clean 0(a0)
        cbo.flush (a1)
        cbo.inval 0(a2)
        sfence.vma
        sfence.vma a0
        sfence.vma a0, a1
        move a0, a1
        sgt a0, a1, a2
        sgtu a0, a1, a2
        sbreak
        scall
        fgt.s a0, fa1, fa2
        fge.s a0, fa1, fa2
        fgt.d a0, fa1, fa2
        fge.d a0, fa1, fa2
        frsr a0
        fssr a1
        fssr a0, a1
        fmv.x.s a0, fa0
        fmv.s.x fa0, a0
        zext.w a0, a1
        sext.b a0, a1
        sext.h a0, a1
        zext.h a0, a1
        unimp
        pause
        fsrm a0, a1
        fsflags a0, a1
        fscsr a0, a1
        fsrmi a0, 3
        fsflagsi a0, 3
        fsrmi 3
        fsflagsi 3
.equ FOO, 3
.set BAR, FOO*2
        addi a0, a0, (0xff-99)
        addi a0, a0, 4 + 2 & 1
        addi a0, a0, ~5
        addi a0, a0, !5
        addi a0, a0, !0
        addi a0, a0, 1 << 3 + 1
        addi a0, a0, -7 / 2
        addi a0, a0, -7 % 2
        addi a0, a0, 12 ^ 5 * 2
        addi a0, a0, 6 | 9 - 1
        addi a0, a0, BAR - FOO
        addi a0, a0, 7 >> 1
        addi a0, a0, -(3)
        lui a0, %hi(0x12345fff)
        addi a0, a0, %lo(0x12345fff)
        sw a0, %lo(0x12345fff)(a1)
        lui a0, %hi(0x7ff)
        lw a0, (8*2)(sp)
        lw a0, FOO*4(sp)
1:      auipc a0, %pcrel_hi(target)
        addi a0, a0, %pcrel_lo(1b)
2:      auipc a1, %pcrel_hi(target+8)
        sd a0, %pcrel_lo(2b)(a1)
        beq a0, a1, .+8
        bne a0, a1, .-4
        j .+16
        jal .-8
.set FOO, 5
        addi a0, a0, FOO
        .word 1+2, ~0, target - 1b
        .dword 3 << 40, -FOO
        .half 0x7fff & ~0xf
.option push
.option arch, +zbb
        ror a0, a1, 3
        rorw a0, a1, 3
        sext.b a0, a1
        zext.h a0, a1
.option arch, +zba
        zext.w a0, a1
.option pop
        sext.h a0, a1
.option push
.option rvc
        c.slli64 a0
        c.srli64 a0
        c.srai64 s1
.option pop
target: nop
