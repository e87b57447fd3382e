# Forms GNU as 2.40 rejects that llvm-mc-22 accepts, and Splice with it (SyntaxPeerTest).
        c.slli a0, 0
        c.srli a1, 0
        c.srai a2, 0
