# RVV reductions whose result does not depend on order (integer, max/min, and the
# ordered vfredosum), widening and narrowing (including the .wv/.wx forms), and the
# fixed-point instructions in every vxrm mode with vxsat.
.text
    la s0, out
    la s1, data
    li a0, 16
    vsetvli zero, a0, e16, m2, tu, mu
    vle16.v v2, (s1)
    addi t0, s1, 32
    vle16.v v4, (t0)
    la t0, maskbits
    vlm.v v0, (t0)
    vredsum.vs v8, v2, v4
    vredmax.vs v9, v2, v4, v0.t
    vredminu.vs v10, v2, v4
    vredxor.vs v11, v2, v4
    vwredsum.vs v12, v2, v4
    vwredsumu.vs v13, v2, v4, v0.t
    vwadd.vv v16, v2, v4
    vwsubu.wv v20, v16, v2
    vwadd.wx v24, v16, a0, v0.t
    vsetvli zero, a0, e8, m1, tu, mu
    vnsra.wi v14, v2, 3
    vnsrl.wx v15, v4, a0
    vnclip.wi v1, v4, 2
    csrr t1, vxsat
    sw t1, 0(s0)
    csrwi vxsat, 0
    addi s0, s0, 4
    vsetvli zero, a0, e16, m2, tu, mu
    li t2, 0
1:
    csrw vxrm, t2
    vsadd.vv v26, v2, v4
    vssub.vx v28, v2, a0
    vaadd.vv v30, v2, v4
    vsmul.vv v6, v2, v4
    vssra.vi v8, v2, 3
    li t1, 128
    vsetvli zero, t1, e8, m8, tu, mu
    vse8.v v24, (s0)
    addi t3, s0, 128
    vse8.v v0, (t3)
    csrr t3, vcsr
    sw t3, 256(s0)
    csrwi vxsat, 0
    addi s0, s0, 260
    vsetvli zero, a0, e16, m2, tu, mu
    addi t2, t2, 1
    li t3, 4
    blt t2, t3, 1b
    li a0, 8
    vsetvli zero, a0, e32, m2, tu, mu
    la t0, floats
    vle32.v v2, (t0)
    vfmv.v.f v4, fa0
    fsrmi 1
    vfredosum.vs v6, v2, v4
    vfredmax.vs v7, v2, v4
    vfredmin.vs v8, v2, v4, v0.t
    vsetivli zero, 1, e32, m1, tu, mu
    vse32.v v6, (s0)
    addi t0, s0, 4
    vse32.v v7, (t0)
    addi t0, s0, 8
    vse32.v v8, (t0)
    frflags t1
    sw t1, 12(s0)
    li s0, 0
    li s1, 0
.data
data: .half 0x7fff, 0x8000, 1, -1, 300, -300, 0x4000, 0x1234, 0xc000, 7, -7, 0, 100, -32767, 55, 3
      .half 0x7fff, 0x7fff, 0x8000, 2, -2, 1000, 0x4000, 0x0101, 0x8000, 9, 9, -9, 100, 1, 56, -3
floats: .float 1e8, 1.0, -1e8, 3.0, 1e-3, 0.5, -0.25, 1e7
maskbits: .byte 0x3b, 0xd1
.balign 4
out: .zero 1300
