# RVV mask and permutation instructions: mask logic, vcpop, vfirst, vmsbf/vmsif/vmsof,
# viota, vid, vcompress, slides up and down (.vx, .vi, slide1 with x and f), vrgather
# (.vv, .vx, .vi, ei16), and scalar moves.
.text
    la s0, out
    la s1, data
    li a0, 16
    vsetvli zero, a0, e8, m1, tu, mu
    la t0, masks
    vlm.v v0, (t0)
    addi t0, t0, 2
    vlm.v v1, (t0)
    addi t0, t0, 2
    vlm.v v2, (t0)
    vmand.mm v3, v1, v2
    vmnand.mm v4, v1, v2
    vmandn.mm v5, v1, v2
    vmxor.mm v6, v1, v2
    vmorn.mm v7, v1, v2
    vmxnor.mm v8, v1, v2
    vcpop.m t1, v1
    sw t1, 0(s0)
    vcpop.m t1, v1, v0.t
    sw t1, 4(s0)
    vfirst.m t1, v2
    sw t1, 8(s0)
    vmclr.m v9
    vfirst.m t1, v9
    sw t1, 12(s0)
    addi s0, s0, 16
    vmsbf.m v10, v1
    vmsif.m v11, v1, v0.t
    vmsof.m v12, v2
    viota.m v13, v1
    vid.v v14
    vle8.v v15, (s1)
    vcompress.vm v16, v15, v1
    li t1, 3
    vslideup.vx v17, v15, t1
    vslidedown.vi v18, v15, 5, v0.t
    vslide1up.vx v19, v15, t1
    vslide1down.vx v20, v15, t1
    la t0, gidx
    vle8.v v21, (t0)
    vrgather.vv v22, v15, v21
    vrgather.vx v23, v15, t1, v0.t
    vrgather.vi v24, v15, 20
    vmv.x.s t2, v15
    sw t2, 0(s0)
    li t3, -5
    vmv.s.x v25, t3
    addi s0, s0, 4
    li a0, 8
    vsetvli zero, a0, e16, m1, tu, mu
    vle16.v v26, (t0)
    vrgatherei16.vv v27, v15, v26
    vsetvli zero, a0, e32, m2, tu, mu
    addi t0, s1, 16
    vle32.v v28, (t0)
    flw fa0, 0(s1)
    vfslide1down.vf v30, v28, fa0
    vfmv.f.s fa1, v28
    fsw fa1, 0(s0)
    vfmv.s.f v31, fa0
    addi s0, s0, 4
    li t1, 256
    vsetvli zero, t1, e8, m8, tu, mu
    vse8.v v0, (s0)
    addi t2, s0, 128
    vse8.v v8, (t2)
    addi t2, s0, 256
    vse8.v v16, (t2)
    addi t2, s0, 384
    vse8.v v24, (t2)
    li s0, 0
    li s1, 0
.data
data: .byte 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25
      .float 1.0, 2.0, -3.0, 4.5, 1e30, -0.0, 7.0, 8.0, 9.0
masks: .byte 0x5a, 0xc3, 0x96, 0x0f, 0x00, 0x30
gidx: .byte 15, 0, 3, 3, 200, 16, 7, 1, 0, 9, 2, 14, 5, 5, 31, 8
.balign 4
out: .zero 560
