# binary32 special values: NaNs (signalling and quiet), infinities, signed zeros,
# subnormals; comparisons and their NV rules, min/max, classification, sign injection,
# conversions out of range, and the flags of each step.
.text
    la s0, out
    la s1, specials
    flw f1, 0(s1)       # +inf
    flw f2, 4(s1)       # -inf
    flw f3, 8(s1)       # qNaN
    flw f4, 12(s1)      # sNaN
    flw f5, 16(s1)      # +0
    flw f6, 20(s1)      # -0
    flw f7, 24(s1)      # 1.0
    flw f8, 28(s1)      # smallest subnormal
    flw f9, 32(s1)      # largest finite
    flw f10, 36(s1)     # -3e9
    fdiv.s f20, f1, f5;  fsw f20, 0(s0);  csrrw t0, fflags, zero; sw t0, 4(s0)
    fdiv.s f20, f2, f6;  fsw f20, 8(s0);  csrrw t0, fflags, zero; sw t0, 12(s0)
    fdiv.s f20, f7, f6;  fsw f20, 16(s0); csrrw t0, fflags, zero; sw t0, 20(s0)
    fdiv.s f20, f5, f5;  fsw f20, 24(s0); csrrw t0, fflags, zero; sw t0, 28(s0)
    fdiv.s f20, f1, f2;  fsw f20, 32(s0); csrrw t0, fflags, zero; sw t0, 36(s0)
    fmul.s f20, f1, f5;  fsw f20, 40(s0); csrrw t0, fflags, zero; sw t0, 44(s0)
    fadd.s f20, f1, f2;  fsw f20, 48(s0); csrrw t0, fflags, zero; sw t0, 52(s0)
    fadd.s f20, f4, f7;  fsw f20, 56(s0); csrrw t0, fflags, zero; sw t0, 60(s0)
    fadd.s f20, f3, f7;  fsw f20, 64(s0); csrrw t0, fflags, zero; sw t0, 68(s0)
    fmadd.s f20, f1, f5, f3; fsw f20, 72(s0); csrrw t0, fflags, zero; sw t0, 76(s0)
    fsqrt.s f20, f6;     fsw f20, 80(s0); csrrw t0, fflags, zero; sw t0, 84(s0)
    fsqrt.s f20, f2;     fsw f20, 88(s0); csrrw t0, fflags, zero; sw t0, 92(s0)
    fmul.s f20, f8, f8;  fsw f20, 96(s0); csrrw t0, fflags, zero; sw t0, 100(s0)
    fadd.s f20, f9, f9;  fsw f20, 104(s0); csrrw t0, fflags, zero; sw t0, 108(s0)
    fadd.s f20, f5, f6;  fsw f20, 112(s0); csrrw t0, fflags, zero; sw t0, 116(s0)
    fadd.s f20, f5, f6, rdn; fsw f20, 120(s0); csrrw t0, fflags, zero; sw t0, 124(s0)
    addi s0, s0, 128
    feq.s t0, f3, f3;   sw t0, 0(s0);  csrrw t0, fflags, zero; sw t0, 4(s0)
    feq.s t0, f4, f7;   sw t0, 8(s0);  csrrw t0, fflags, zero; sw t0, 12(s0)
    flt.s t0, f3, f7;   sw t0, 16(s0); csrrw t0, fflags, zero; sw t0, 20(s0)
    fle.s t0, f5, f6;   sw t0, 24(s0); csrrw t0, fflags, zero; sw t0, 28(s0)
    flt.s t0, f6, f5;   sw t0, 32(s0); csrrw t0, fflags, zero; sw t0, 36(s0)
    fmin.s f20, f5, f6; fsw f20, 40(s0); csrrw t0, fflags, zero; sw t0, 44(s0)
    fmax.s f20, f6, f5; fsw f20, 48(s0); csrrw t0, fflags, zero; sw t0, 52(s0)
    fmin.s f20, f3, f7; fsw f20, 56(s0); csrrw t0, fflags, zero; sw t0, 60(s0)
    fmax.s f20, f4, f7; fsw f20, 64(s0); csrrw t0, fflags, zero; sw t0, 68(s0)
    fmin.s f20, f4, f3; fsw f20, 72(s0); csrrw t0, fflags, zero; sw t0, 76(s0)
    fsgnj.s f20, f7, f6;  fsw f20, 80(s0)
    fsgnjn.s f20, f3, f3; fsw f20, 84(s0)
    fsgnjx.s f20, f2, f6; fsw f20, 88(s0)
    addi s0, s0, 92
    fclass.s t0, f1; sw t0, 0(s0)
    fclass.s t0, f2; sw t0, 4(s0)
    fclass.s t0, f3; sw t0, 8(s0)
    fclass.s t0, f4; sw t0, 12(s0)
    fclass.s t0, f5; sw t0, 16(s0)
    fclass.s t0, f6; sw t0, 20(s0)
    fclass.s t0, f7; sw t0, 24(s0)
    fclass.s t0, f8; sw t0, 28(s0)
    fneg.s f20, f8
    fclass.s t0, f20; sw t0, 32(s0)
    addi s0, s0, 36
    fcvt.w.s t0, f1;   sw t0, 0(s0);  csrrw t0, fflags, zero; sw t0, 4(s0)
    fcvt.w.s t0, f2;   sw t0, 8(s0);  csrrw t0, fflags, zero; sw t0, 12(s0)
    fcvt.w.s t0, f3;   sw t0, 16(s0); csrrw t0, fflags, zero; sw t0, 20(s0)
    fcvt.wu.s t0, f10; sw t0, 24(s0); csrrw t0, fflags, zero; sw t0, 28(s0)
    fcvt.wu.s t0, f6;  sw t0, 32(s0); csrrw t0, fflags, zero; sw t0, 36(s0)
    fcvt.w.s t0, f10;  sw t0, 40(s0); csrrw t0, fflags, zero; sw t0, 44(s0)
    fcvt.wu.s t0, f3;  sw t0, 48(s0); csrrw t0, fflags, zero; sw t0, 52(s0)
    fcvt.w.s t0, f8, rup; sw t0, 56(s0); csrrw t0, fflags, zero; sw t0, 60(s0)
    fmv.x.w t0, f4;    sw t0, 64(s0)
    li t1, 0x7f800001
    fmv.w.x f21, t1
    fmv.x.w t0, f21;   sw t0, 68(s0)
    li s0, 0
    li s1, 0
.data
specials: .word 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0, 0x80000000, 0x3f800000, 1, 0x7f7fffff, 0xcf32d05e
out: .zero 400
