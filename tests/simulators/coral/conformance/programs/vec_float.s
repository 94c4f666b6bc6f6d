# RVV binary32 arithmetic under every frm, masked and unmasked: add/sub/mul/div/sqrt,
# fused multiply-adds, min/max with NaNs and signed zeros, sign injection, compares and
# their flags, conversions (rounding and rtz forms), classify, reciprocal and
# reciprocal-square-root estimates; fflags after each group.
.text
    la s0, out
    la s1, floats
    li a0, 8
    vsetvli zero, a0, e32, m2, tu, mu
    vle32.v v2, (s1)
    addi t0, s1, 32
    vle32.v v4, (t0)
    addi t0, s1, 64
    vle32.v v6, (t0)
    la t0, maskbits
    vlm.v v0, (t0)
    flw fa0, 96(s1)
    li t2, 0
1:
    fsrm t2
    vfadd.vv v8, v2, v4
    vfsub.vf v10, v2, fa0, v0.t
    vfmul.vv v12, v2, v6
    vfdiv.vv v14, v4, v2
    vfrdiv.vf v16, v6, fa0
    vfsqrt.v v18, v4, v0.t
    vfmacc.vv v20, v2, v4
    vfnmsac.vf v22, fa0, v6
    vfmadd.vv v24, v4, v6, v0.t
    vfcvt.x.f.v v26, v6
    vfcvt.f.xu.v v28, v2
    vfcvt.rtz.xu.f.v v30, v4
    li t1, 256
    vsetvli zero, t1, e8, m8, tu, mu
    vse8.v v8, (s0)
    addi t3, s0, 128
    vse8.v v16, (t3)
    addi t3, s0, 256
    vse8.v v24, (t3)
    csrrw t3, fflags, zero
    sw t3, 384(s0)
    addi s0, s0, 388
    vsetvli zero, a0, e32, m2, tu, mu
    addi t2, t2, 1
    li t3, 5
    blt t2, t3, 1b
    fsrmi 0
    vfmin.vv v8, v2, v6
    vfmax.vf v10, v6, fa0, v0.t
    vfsgnj.vv v12, v2, v6
    vfsgnjn.vf v14, v4, fa0
    vfsgnjx.vv v16, v6, v2
    vmfeq.vv v18, v2, v6
    vmflt.vv v19, v2, v6, v0.t
    vmfge.vf v20, v4, fa0
    vfclass.v v22, v6
    vfrec7.v v24, v4
    vfrsqrt7.v v26, v2
    vfcvt.f.x.v v28, v6
    vfmerge.vfm v30, v2, fa0, v0
    li t1, 256
    vsetvli zero, t1, e8, m8, tu, mu
    vse8.v v8, (s0)
    addi t3, s0, 128
    vse8.v v16, (t3)
    addi t3, s0, 256
    vse8.v v24, (t3)
    csrrw t3, fflags, zero
    sw t3, 384(s0)
    li s0, 0
    li s1, 0
.data
floats: .float 1.5, -2.25, 0.1, 3.0e38, -0.0, 1e-40, 7.0, -1e-3
        .float 3.0, 0.0, -0.1, 3.0e38, -0.0, 2e-39, -7.0, 100.0
        .word 0x7fc00000, 0x7f800001, 0xff800000, 0x7f800000, 0x4f000000, 0xcf000001, 0x3f7fffff, 0x80000001
        .float -3.5
maskbits: .byte 0xa5, 0x3c
.balign 4
out: .zero 2400
