# RVV integer arithmetic at SEW 8, 16 and 32 with LMUL 1 and 2, masked (mu) and
# unmasked, .vv/.vx/.vi forms: add/sub/logic/shifts/min/max/multiply/divide/compare,
# merge, vid and vmv; results stored with every element width.
.text
    la s0, out
    la s1, ints
    li a0, 16
    vsetvli zero, a0, e8, m1, tu, mu
    vle8.v v1, (s1)
    addi t0, s1, 16
    vle8.v v2, (t0)
    addi t0, s1, 32
    vlm.v v0, (t0)
    vadd.vv v3, v1, v2
    vsub.vx v4, v1, a0, v0.t
    vrsub.vi v5, v2, -7
    vand.vv v6, v1, v2, v0.t
    vor.vx v7, v1, a0
    vxor.vi v8, v2, 5, v0.t
    vsll.vv v9, v1, v2
    vsrl.vi v10, v1, 3
    vsra.vx v11, v1, a0
    vmin.vv v12, v1, v2
    vmaxu.vv v13, v1, v2, v0.t
    vmul.vv v14, v1, v2
    vmulh.vv v15, v1, v2
    vmulhu.vv v16, v1, v2
    vmulhsu.vv v17, v1, v2
    vdiv.vv v18, v1, v2
    vremu.vv v19, v1, v2, v0.t
    vmacc.vv v20, v1, v2
    vnmsub.vx v21, a0, v2
    vmseq.vv v22, v1, v2
    vmsltu.vx v23, v1, a0
    vmsgt.vi v24, v2, -3, v0.t
    vmerge.vvm v25, v1, v2, v0
    vid.v v26, v0.t
    vmv.v.x v27, a0
    li t1, 256
    vsetvli zero, t1, e8, m8, tu, mu
    vse8.v v0, (s0)
    addi t2, s0, 128
    vse8.v v8, (t2)
    addi t2, s0, 256
    vse8.v v16, (t2)
    addi t2, s0, 384
    vse8.v v24, (t2)
    addi s0, s0, 512
    # SEW 16, LMUL 2
    li a0, 13
    vsetvli zero, a0, e16, m2, tu, mu
    vle16.v v2, (s1)
    addi t0, s1, 32
    vle16.v v4, (t0)
    li a1, -300
    vadd.vx v6, v2, a1, v0.t
    vdivu.vv v8, v2, v4
    vrem.vx v10, v2, a1
    vmax.vv v12, v2, v4, v0.t
    vsra.vv v14, v2, v4
    vmslt.vv v16, v2, v4
    vmsleu.vx v17, v4, a1
    vwmul.vv v20, v2, v4
    vsetvli zero, a0, e32, m4, tu, mu
    vadd.vi v24, v20, 1, v0.t
    vmul.vx v28, v20, a1
    li t1, 512
    vsetvli zero, t1, e8, m8, tu, mu
    vse8.v v0, (s0)
    addi t2, s0, 128
    vse8.v v8, (t2)
    addi t2, s0, 256
    vse8.v v16, (t2)
    addi t2, s0, 384
    vse8.v v24, (t2)
    addi s0, s0, 512
    # SEW 32 divide corner cases
    li a0, 4
    vsetvli zero, a0, e32, m1, tu, mu
    la t0, divs
    vle32.v v1, (t0)
    addi t0, t0, 16
    vle32.v v2, (t0)
    vdiv.vv v3, v1, v2
    vrem.vv v4, v1, v2
    vdivu.vv v5, v1, v2
    vremu.vv v6, v1, v2
    vse32.v v3, (s0)
    addi s0, s0, 16
    vse32.v v4, (s0)
    addi s0, s0, 16
    vse32.v v5, (s0)
    addi s0, s0, 16
    vse32.v v6, (s0)
    li s0, 0
    li s1, 0
.data
ints: .byte 0x80, 0x7f, 0xff, 0x00, 0x01, 0x40, 0xc0, 0x33, 0x99, 0x05, 0xfe, 0x10, 0x88, 0x77, 0x3c, 0xc3
      .byte 0x01, 0xff, 0x80, 0x07, 0x00, 0x03, 0x02, 0x81, 0x7f, 0x09, 0x11, 0x00, 0xf0, 0x0f, 0x55, 0xaa
      .byte 0x5a, 0xa5, 0xff, 0x00, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x13, 0x57, 0x9b, 0xdf
divs: .word 0x80000000, 7, -7, 0, -1, 0, 2, 0x7fffffff
out: .zero 1100
