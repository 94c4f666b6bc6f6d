# binary32 arithmetic in all five static rounding modes and through frm (dyn), with the
# flags each group raises read and cleared after it (csrrw old flags into memory).
.text
    la s0, out
    la s1, vals
    flw f1, 0(s1)       # 1.0
    flw f2, 4(s1)       # 3.0
    flw f3, 8(s1)       # 0.1
    flw f4, 12(s1)      # -7.25e-39 (subnormal)
    flw f5, 16(s1)      # 3.4e38
    flw f6, 20(s1)      # 1.17549435e-38 (smallest normal)
    flw f7, 24(s1)      # -2.5
    flw f8, 28(s1)      # 16777216
    li t1, -16777217
    li t2, 0xffffffff
    # --- rne
    fdiv.s f10, f1, f2, rne;  fsw f10, 0(s0)
    fadd.s f10, f3, f2, rne;  fsw f10, 4(s0)
    fsub.s f10, f4, f6, rne;  fsw f10, 8(s0)
    fmul.s f10, f5, f2, rne;  fsw f10, 12(s0)
    fmul.s f10, f6, f3, rne;  fsw f10, 16(s0)
    fmadd.s f10, f3, f2, f7, rne;  fsw f10, 20(s0)
    fnmsub.s f10, f3, f3, f1, rne; fsw f10, 24(s0)
    fsqrt.s f10, f2, rne;     fsw f10, 28(s0)
    fdiv.s f10, f7, f2, rne;  fsw f10, 32(s0)
    fmsub.s f10, f5, f2, f5, rne; fsw f10, 36(s0)
    fnmadd.s f10, f6, f3, f4, rne; fsw f10, 40(s0)
    fcvt.w.s t0, f7, rne;     sw t0, 44(s0)
    fcvt.wu.s t0, f2, rne;    sw t0, 48(s0)
    fcvt.s.w f10, t1, rne;    fsw f10, 52(s0)
    fcvt.s.wu f10, t2, rne;   fsw f10, 56(s0)
    fmul.s f10, f6, f4, rne;  fsw f10, 60(s0)
    fadd.s f10, f8, f1, rne;  fsw f10, 64(s0)
    csrrw t0, fflags, zero;  sw t0, 68(s0)
    addi s0, s0, 72
    # --- rtz
    fdiv.s f10, f1, f2, rtz;  fsw f10, 0(s0)
    fadd.s f10, f3, f2, rtz;  fsw f10, 4(s0)
    fsub.s f10, f4, f6, rtz;  fsw f10, 8(s0)
    fmul.s f10, f5, f2, rtz;  fsw f10, 12(s0)
    fmul.s f10, f6, f3, rtz;  fsw f10, 16(s0)
    fmadd.s f10, f3, f2, f7, rtz;  fsw f10, 20(s0)
    fnmsub.s f10, f3, f3, f1, rtz; fsw f10, 24(s0)
    fsqrt.s f10, f2, rtz;     fsw f10, 28(s0)
    fdiv.s f10, f7, f2, rtz;  fsw f10, 32(s0)
    fmsub.s f10, f5, f2, f5, rtz; fsw f10, 36(s0)
    fnmadd.s f10, f6, f3, f4, rtz; fsw f10, 40(s0)
    fcvt.w.s t0, f7, rtz;     sw t0, 44(s0)
    fcvt.wu.s t0, f2, rtz;    sw t0, 48(s0)
    fcvt.s.w f10, t1, rtz;    fsw f10, 52(s0)
    fcvt.s.wu f10, t2, rtz;   fsw f10, 56(s0)
    fmul.s f10, f6, f4, rtz;  fsw f10, 60(s0)
    fadd.s f10, f8, f1, rtz;  fsw f10, 64(s0)
    csrrw t0, fflags, zero;  sw t0, 68(s0)
    addi s0, s0, 72
    # --- rdn
    fdiv.s f10, f1, f2, rdn;  fsw f10, 0(s0)
    fadd.s f10, f3, f2, rdn;  fsw f10, 4(s0)
    fsub.s f10, f4, f6, rdn;  fsw f10, 8(s0)
    fmul.s f10, f5, f2, rdn;  fsw f10, 12(s0)
    fmul.s f10, f6, f3, rdn;  fsw f10, 16(s0)
    fmadd.s f10, f3, f2, f7, rdn;  fsw f10, 20(s0)
    fnmsub.s f10, f3, f3, f1, rdn; fsw f10, 24(s0)
    fsqrt.s f10, f2, rdn;     fsw f10, 28(s0)
    fdiv.s f10, f7, f2, rdn;  fsw f10, 32(s0)
    fmsub.s f10, f5, f2, f5, rdn; fsw f10, 36(s0)
    fnmadd.s f10, f6, f3, f4, rdn; fsw f10, 40(s0)
    fcvt.w.s t0, f7, rdn;     sw t0, 44(s0)
    fcvt.wu.s t0, f2, rdn;    sw t0, 48(s0)
    fcvt.s.w f10, t1, rdn;    fsw f10, 52(s0)
    fcvt.s.wu f10, t2, rdn;   fsw f10, 56(s0)
    fmul.s f10, f6, f4, rdn;  fsw f10, 60(s0)
    fadd.s f10, f8, f1, rdn;  fsw f10, 64(s0)
    csrrw t0, fflags, zero;  sw t0, 68(s0)
    addi s0, s0, 72
    # --- rup
    fdiv.s f10, f1, f2, rup;  fsw f10, 0(s0)
    fadd.s f10, f3, f2, rup;  fsw f10, 4(s0)
    fsub.s f10, f4, f6, rup;  fsw f10, 8(s0)
    fmul.s f10, f5, f2, rup;  fsw f10, 12(s0)
    fmul.s f10, f6, f3, rup;  fsw f10, 16(s0)
    fmadd.s f10, f3, f2, f7, rup;  fsw f10, 20(s0)
    fnmsub.s f10, f3, f3, f1, rup; fsw f10, 24(s0)
    fsqrt.s f10, f2, rup;     fsw f10, 28(s0)
    fdiv.s f10, f7, f2, rup;  fsw f10, 32(s0)
    fmsub.s f10, f5, f2, f5, rup; fsw f10, 36(s0)
    fnmadd.s f10, f6, f3, f4, rup; fsw f10, 40(s0)
    fcvt.w.s t0, f7, rup;     sw t0, 44(s0)
    fcvt.wu.s t0, f2, rup;    sw t0, 48(s0)
    fcvt.s.w f10, t1, rup;    fsw f10, 52(s0)
    fcvt.s.wu f10, t2, rup;   fsw f10, 56(s0)
    fmul.s f10, f6, f4, rup;  fsw f10, 60(s0)
    fadd.s f10, f8, f1, rup;  fsw f10, 64(s0)
    csrrw t0, fflags, zero;  sw t0, 68(s0)
    addi s0, s0, 72
    # --- rmm
    fdiv.s f10, f1, f2, rmm;  fsw f10, 0(s0)
    fadd.s f10, f3, f2, rmm;  fsw f10, 4(s0)
    fsub.s f10, f4, f6, rmm;  fsw f10, 8(s0)
    fmul.s f10, f5, f2, rmm;  fsw f10, 12(s0)
    fmul.s f10, f6, f3, rmm;  fsw f10, 16(s0)
    fmadd.s f10, f3, f2, f7, rmm;  fsw f10, 20(s0)
    fnmsub.s f10, f3, f3, f1, rmm; fsw f10, 24(s0)
    fsqrt.s f10, f2, rmm;     fsw f10, 28(s0)
    fdiv.s f10, f7, f2, rmm;  fsw f10, 32(s0)
    fmsub.s f10, f5, f2, f5, rmm; fsw f10, 36(s0)
    fnmadd.s f10, f6, f3, f4, rmm; fsw f10, 40(s0)
    fcvt.w.s t0, f7, rmm;     sw t0, 44(s0)
    fcvt.wu.s t0, f2, rmm;    sw t0, 48(s0)
    fcvt.s.w f10, t1, rmm;    fsw f10, 52(s0)
    fcvt.s.wu f10, t2, rmm;   fsw f10, 56(s0)
    fmul.s f10, f6, f4, rmm;  fsw f10, 60(s0)
    fadd.s f10, f8, f1, rmm;  fsw f10, 64(s0)
    csrrw t0, fflags, zero;  sw t0, 68(s0)
    addi s0, s0, 72
    fsrmi 3
    # --- dyn (frm = rup)
    fdiv.s f10, f1, f2, dyn;  fsw f10, 0(s0)
    fadd.s f10, f3, f2, dyn;  fsw f10, 4(s0)
    fsub.s f10, f4, f6, dyn;  fsw f10, 8(s0)
    fmul.s f10, f5, f2, dyn;  fsw f10, 12(s0)
    fmul.s f10, f6, f3, dyn;  fsw f10, 16(s0)
    fmadd.s f10, f3, f2, f7, dyn;  fsw f10, 20(s0)
    fnmsub.s f10, f3, f3, f1, dyn; fsw f10, 24(s0)
    fsqrt.s f10, f2, dyn;     fsw f10, 28(s0)
    fdiv.s f10, f7, f2, dyn;  fsw f10, 32(s0)
    fmsub.s f10, f5, f2, f5, dyn; fsw f10, 36(s0)
    fnmadd.s f10, f6, f3, f4, dyn; fsw f10, 40(s0)
    fcvt.w.s t0, f7, dyn;     sw t0, 44(s0)
    fcvt.wu.s t0, f2, dyn;    sw t0, 48(s0)
    fcvt.s.w f10, t1, dyn;    fsw f10, 52(s0)
    fcvt.s.wu f10, t2, dyn;   fsw f10, 56(s0)
    fmul.s f10, f6, f4, dyn;  fsw f10, 60(s0)
    fadd.s f10, f8, f1, dyn;  fsw f10, 64(s0)
    csrrw t0, fflags, zero;  sw t0, 68(s0)
    addi s0, s0, 72
    fsrmi a0, 4
    sw a0, 0(s0)
    addi s0, s0, 4
    # --- dyn (frm = rmm)
    fdiv.s f10, f1, f2, dyn;  fsw f10, 0(s0)
    fadd.s f10, f3, f2, dyn;  fsw f10, 4(s0)
    fsub.s f10, f4, f6, dyn;  fsw f10, 8(s0)
    fmul.s f10, f5, f2, dyn;  fsw f10, 12(s0)
    fmul.s f10, f6, f3, dyn;  fsw f10, 16(s0)
    fmadd.s f10, f3, f2, f7, dyn;  fsw f10, 20(s0)
    fnmsub.s f10, f3, f3, f1, dyn; fsw f10, 24(s0)
    fsqrt.s f10, f2, dyn;     fsw f10, 28(s0)
    fdiv.s f10, f7, f2, dyn;  fsw f10, 32(s0)
    fmsub.s f10, f5, f2, f5, dyn; fsw f10, 36(s0)
    fnmadd.s f10, f6, f3, f4, dyn; fsw f10, 40(s0)
    fcvt.w.s t0, f7, dyn;     sw t0, 44(s0)
    fcvt.wu.s t0, f2, dyn;    sw t0, 48(s0)
    fcvt.s.w f10, t1, dyn;    fsw f10, 52(s0)
    fcvt.s.wu f10, t2, dyn;   fsw f10, 56(s0)
    fmul.s f10, f6, f4, dyn;  fsw f10, 60(s0)
    fadd.s f10, f8, f1, dyn;  fsw f10, 64(s0)
    csrrw t0, fflags, zero;  sw t0, 68(s0)
    addi s0, s0, 72
    frrm a1
    sw a1, 0(s0)
    li s0, 0
    li s1, 0
.data
vals: .float 1.0, 3.0, 0.1, -7.25e-39, 3.4e38, 1.17549435e-38, -2.5, 16777216.0
out: .zero 560
