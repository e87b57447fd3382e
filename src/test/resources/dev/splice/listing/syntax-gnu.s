# Forms where llvm-mc-22 encodes otherwise and Splice follows GNU as 2.40 (SyntaxPeerTest).
.option norvc
        la a0, 0x1000
        lla a1, -8
        la a2, 0x7ff
        lla a3, 0x12345678
        la a4, -0x80000000
.equ FOO, 3
        li a1, (1 << 20) + FOO
