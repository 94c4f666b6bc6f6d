# RVV at SEW = 32 only, tu, mu (the coral RTL runs it whole): masked unit-stride and
# strided loads and stores, slides of every form (offsets 0, inside, at and past VLMAX),
# mask logic (bits 0..vl-1 stored, then the register cleared: the mask tail is
# agnostic), and vmul, vmulh, vmulhu, vmulhsu (.vv, .vx).
.text
    la s0, out
    la s1, data
    li a0, 32
    vsetvli zero, a0, e32, m8, tu, mu
    vle32.v v8, (s1)
    addi t0, s1, 128
    vle32.v v16, (t0)
    li t1, 0x5A3C96E1
    vmv.s.x v0, t1
    # masked loads and stores
    li a0, 13
    vsetvli zero, a0, e32, m4, tu, mu
    vmv.v.v v24, v8
    vle32.v v24, (t0), v0.t
    vse32.v v24, (s0)
    addi s0, s0, 64
    li t2, -8
    addi t3, s1, 200
    vlse32.v v28, (t3), t2, v0.t
    vse32.v v28, (s0)
    addi s0, s0, 64
    vse32.v v16, (s0), v0.t
    addi s0, s0, 64
    li t2, 12
    vsse32.v v8, (s0), t2, v0.t
    addi s0, s0, 160
    # slides at m2 (VLMAX 8), vl 7
    li a0, 7
    vsetvli zero, a0, e32, m2, tu, mu
    li a1, 3
    vmv.v.v v2, v16
    vslidedown.vx v2, v8, a1
    vmv.v.v v4, v16
    vslidedown.vi v4, v8, 6
    vmv.v.v v6, v16
    li a2, 9
    vslidedown.vx v6, v8, a2
    vmv.v.v v10, v16
    vslidedown.vx v10, v8, a1, v0.t
    vmv.v.v v12, v16
    vslideup.vx v12, v8, a1
    vmv.v.v v14, v16
    vslideup.vi v14, v8, 5, v0.t
    vmv.v.v v18, v16
    vslideup.vx v18, v8, a2
    li a3, -123456
    vmv.v.v v20, v16
    vslide1up.vx v20, v8, a3
    vmv.v.v v22, v16
    vslide1down.vx v22, v8, a3, v0.t
    fmv.w.x f1, a3
    vmv.v.v v24, v16
    vfslide1up.vf v24, v8, f1, v0.t
    vmv.v.v v26, v16
    vfslide1down.vf v26, v8, f1
    li a0, 16
    vsetvli zero, a0, e32, m2, tu, mu
    vse32.v v2, (s0)
    addi s0, s0, 64
    vse32.v v4, (s0)
    addi s0, s0, 64
    vse32.v v6, (s0)
    addi s0, s0, 64
    vse32.v v10, (s0)
    addi s0, s0, 64
    vse32.v v12, (s0)
    addi s0, s0, 64
    vse32.v v14, (s0)
    addi s0, s0, 64
    vse32.v v18, (s0)
    addi s0, s0, 64
    vse32.v v20, (s0)
    addi s0, s0, 64
    vse32.v v22, (s0)
    addi s0, s0, 64
    vse32.v v24, (s0)
    addi s0, s0, 64
    vse32.v v26, (s0)
    addi s0, s0, 64
    # integer multiplies, one of them masked, at m1
    li a0, 4
    vsetvli zero, a0, e32, m1, tu, mu
    vmul.vv v2, v8, v16
    vmulh.vv v3, v8, v16
    vmulhu.vv v4, v8, v16
    vmulhsu.vv v5, v8, v16
    vmul.vx v6, v9, a3
    vmulh.vx v7, v9, a3
    vmulhu.vx v10, v9, a3
    vmv.v.v v11, v17
    vmulhsu.vx v11, v9, a3, v0.t
    vse32.v v2, (s0)
    addi s0, s0, 16
    vse32.v v3, (s0)
    addi s0, s0, 16
    vse32.v v4, (s0)
    addi s0, s0, 16
    vse32.v v5, (s0)
    addi s0, s0, 16
    vse32.v v6, (s0)
    addi s0, s0, 16
    vse32.v v7, (s0)
    addi s0, s0, 16
    vse32.v v10, (s0)
    addi s0, s0, 16
    vse32.v v11, (s0)
    addi s0, s0, 16
    # mask logic over 32 bits (m8, vl 32): bits 0..31 stored, then the registers cleared
    li a0, 32
    vsetvli zero, a0, e32, m8, tu, mu
    vmand.mm v1, v8, v16
    vmnand.mm v2, v8, v16
    vmandn.mm v3, v8, v16
    vmor.mm v4, v8, v16
    vmnor.mm v5, v8, v16
    vmorn.mm v6, v8, v16
    vmxor.mm v7, v8, v16
    vmxnor.mm v8, v8, v16
    li a0, 1
    vsetvli zero, a0, e32, m1, tu, mu
    vse32.v v1, (s0)
    addi s0, s0, 4
    vse32.v v2, (s0)
    addi s0, s0, 4
    vse32.v v3, (s0)
    addi s0, s0, 4
    vse32.v v4, (s0)
    addi s0, s0, 4
    vse32.v v5, (s0)
    addi s0, s0, 4
    vse32.v v6, (s0)
    addi s0, s0, 4
    vse32.v v7, (s0)
    addi s0, s0, 4
    vse32.v v8, (s0)
    li a0, 4
    vsetvli zero, a0, e32, m1, tu, mu
    vmv.v.i v1, 0
    vmv.v.i v2, 0
    vmv.v.i v3, 0
    vmv.v.i v4, 0
    vmv.v.i v5, 0
    vmv.v.i v6, 0
    vmv.v.i v7, 0
    vmv.v.i v8, 0
    li s0, 0
    li s1, 0
    li t0, 0
    li t3, 0

.data
.balign 16
data:
    .word 0x2e675fc7, 0x1f70d5dc, 0xa9538322, 0x72e63ac7, 0x55a5b465, 0x3d4fa084, 0x32ac2b62, 0xf3b08f69
    .word 0x7d50e092, 0xa0d0e9b4, 0x7e790e8b, 0x2ed764b2, 0x7ad25f92, 0x4ba41700, 0x75553000, 0xe3089c7a
    .word 0x43b84218, 0x3234c93c, 0x40f91904, 0xe6342c1c, 0xb11f0de6, 0x1e353f29, 0x530e60cb, 0x85a8bb9b
    .word 0xacc10a6c, 0xc32f9525, 0xc9843faa, 0x2ca106ed, 0xddae9b60, 0xf796ef6e, 0xf1abd893, 0xcfa2f9f4
    .word 0x3c0bfc13, 0x2b456d91, 0x3cc60842, 0x3341fde7, 0xbc1d8977, 0x5d93bf78, 0x9356cc2e, 0x81fb5892
    .word 0x33adb83c, 0xcf7dd283, 0xad7785ad, 0xe44a6fc9, 0xdf8d53b0, 0xc18fd63f, 0xd5f61954, 0x7e60df30
    .word 0x3752145c, 0xb75ecfb5, 0x4c87f36a, 0x43d6c44a, 0x01b4a96c, 0x57be0cbf, 0xf9c6245a, 0x67c7eeb2
    .word 0x386eca73, 0xc594557b, 0xba23814c, 0x67eadff1, 0x89b3a309, 0x588df122, 0x97ed2981, 0x92bdb98e
out:
    .zero 1600
