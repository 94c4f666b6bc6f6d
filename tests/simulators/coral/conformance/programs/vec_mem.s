# RVV memory access: unit-stride at every EEW (EMUL = LMUL * EEW / SEW), strided with
# positive, negative and zero strides, indexed ordered and unordered, masked loads and
# stores (mu), mask loads/stores, whole-register moves, segment loads and stores, and
# fault-only-first loads that do not fault.
.text
    la s0, out
    la s1, src
    li a0, 8
    vsetvli zero, a0, e16, m1, tu, mu
    vle8.v v1, (s1)
    vle16.v v2, (s1)
    vle32.v v4, (s1)
    li t0, 6
    vlse16.v v6, (s1), t0
    addi t1, s1, 60
    li t0, -4
    vlse16.v v7, (t1), t0
    vlse32.v v8, (s1), zero
    la t0, idx
    vle16.v v10, (t0)
    vluxei16.v v11, (s1), v10
    vloxei16.v v12, (s1), v10
    la t0, maskbits
    vlm.v v0, (t0)
    vle16.v v13, (s1), v0.t
    vsetvli zero, a0, e32, m2, tu, mu
    vle32ff.v v14, (s1)
    csrr t0, vl
    sw t0, 0(s0)
    addi s0, s0, 4
    vsetvli zero, a0, e16, m1, tu, mu
    vlseg2e16.v v16, (s1)
    vlseg3e8.v v18, (s1)
    vl2re32.v v22, (s1)
    vmv2r.v v24, v22
    vmv1r.v v26, v13
    # stores
    vse16.v v2, (s0)
    addi t0, s0, 16
    li t1, 4
    vsse16.v v6, (t0), t1
    addi t0, s0, 48
    vsuxei16.v v1, (t0), v10
    addi t0, s0, 112
    vsoxei16.v v7, (t0), v10, v0.t
    addi t0, s0, 176
    vsseg2e16.v v16, (t0)
    addi t0, s0, 208
    vse16.v v12, (t0), v0.t
    addi t0, s0, 224
    vsm.v v0, (t0)
    addi t0, s0, 240
    vs1r.v v4, (t0)
    addi s0, s0, 256
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
src: .word 0x03020100, 0x07060504, 0x0b0a0908, 0x0f0e0d0c, 0x13121110, 0x17161514, 0x1b1a1918, 0x1f1e1d1c
     .word 0x23222120, 0x27262524, 0x2b2a2928, 0x2f2e2d2c, 0x33323130, 0x37363534, 0x3b3a3938, 0x3f3e3d3c
idx: .half 0, 2, 62, 10, 4, 4, 30, 16
maskbits: .byte 0x6d
.balign 4
out: .zero 800
