# vsetvli, vsetivli and vsetvl: vl for every SEW and LMUL (fractional ones included),
# AVL = 0, AVL above VLMAX, rs1 = zero forms, and vtype settings that set vill.
.text
    la s0, out
    li a0, 100
    li a1, 3
    li a2, 0
    li a3, 17
    vsetvli t0, a0, e8, m1, tu, mu;   sw t0, 0(s0)
    vsetvli t0, a0, e8, m8, tu, mu;   sw t0, 4(s0)
    vsetvli t0, a0, e16, m2, tu, mu;  sw t0, 8(s0)
    vsetvli t0, a0, e32, m4, tu, mu;  sw t0, 12(s0)
    vsetvli t0, a1, e32, m1, tu, mu;  sw t0, 16(s0)
    vsetvli t0, a2, e16, m1, tu, mu;  sw t0, 20(s0)
    vsetvli t0, a3, e8, mf2, tu, mu;  sw t0, 24(s0)
    vsetvli t0, a3, e8, mf4, tu, mu;  sw t0, 28(s0)
    vsetvli t0, a3, e16, mf2, tu, mu; sw t0, 32(s0)
    vsetvli t0, zero, e32, m8, tu, mu; sw t0, 36(s0)
    csrr t0, vl;    sw t0, 40(s0)
    csrr t0, vtype; sw t0, 44(s0)
    vsetivli t0, 5, e16, m1, tu, mu;  sw t0, 48(s0)
    vsetivli t0, 31, e8, m2, ta, ma;  sw t0, 52(s0)
    csrr t0, vtype; sw t0, 56(s0)
    vsetivli t0, 7, e32, m1, tu, mu
    vsetvli zero, zero, e16, mf2, tu, mu     # same SEW/LMUL ratio: vl kept
    csrr t0, vl;    sw t0, 60(s0)
    csrr t0, vtype; sw t0, 64(s0)
    li t1, 0x0d                               # e16, m... LMUL code 5 = mf8
    vsetvl t0, a0, t1;  sw t0, 68(s0)
    csrr t0, vtype; sw t0, 72(s0)
    li t1, 0x18                               # e64: above ELEN
    vsetvl t0, a0, t1;  sw t0, 76(s0)
    csrr t0, vtype; sw t0, 80(s0)
    li t1, 0x12                               # e32, m4
    vsetvl t0, a3, t1;  sw t0, 84(s0)
    csrr t0, vtype; sw t0, 88(s0)
    csrr t0, vlenb; sw t0, 92(s0)
    li s0, 0
.data
out: .zero 96
