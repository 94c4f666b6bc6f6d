# RV32I and M: arithmetic, logic, shifts, compares, and M's corner cases
# (division by zero, the one signed overflow, high products of every sign).
.text
    la s0, out
    li a0, 0x7fffffff
    li a1, -1
    li a2, 0x80000000
    li a3, 12345
    li a4, -678
    add  t0, a0, a1;  sw t0, 0(s0)
    add  t0, a0, a0;  sw t0, 4(s0)
    sub  t0, a2, a1;  sw t0, 8(s0)
    sub  t0, a4, a3;  sw t0, 12(s0)
    xor  t0, a3, a4;  sw t0, 16(s0)
    or   t0, a3, a4;  sw t0, 20(s0)
    and  t0, a3, a4;  sw t0, 24(s0)
    sll  t0, a3, a4;  sw t0, 28(s0)
    srl  t0, a4, a3;  sw t0, 32(s0)
    sra  t0, a4, a3;  sw t0, 36(s0)
    slt  t0, a4, a3;  sw t0, 40(s0)
    sltu t0, a4, a3;  sw t0, 44(s0)
    slti t0, a4, -679; sw t0, 48(s0)
    sltiu t0, a3, -1; sw t0, 52(s0)
    xori t0, a4, -1;  sw t0, 56(s0)
    ori  t0, a3, 0x7ff; sw t0, 60(s0)
    andi t0, a4, -2048; sw t0, 64(s0)
    slli t0, a3, 31;  sw t0, 68(s0)
    srli t0, a4, 1;   sw t0, 72(s0)
    srai t0, a4, 31;  sw t0, 76(s0)
    lui  t0, 0xfffff; sw t0, 80(s0)
    addi s0, s0, 84
    mul    t0, a0, a0;  sw t0, 0(s0)
    mulh   t0, a0, a0;  sw t0, 4(s0)
    mulhu  t0, a1, a1;  sw t0, 8(s0)
    mulhsu t0, a1, a1;  sw t0, 12(s0)
    mulh   t0, a2, a2;  sw t0, 16(s0)
    mulhsu t0, a2, a0;  sw t0, 20(s0)
    mulh   t0, a4, a3;  sw t0, 24(s0)
    div    t0, a3, a4;  sw t0, 28(s0)
    rem    t0, a3, a4;  sw t0, 32(s0)
    divu   t0, a3, a4;  sw t0, 36(s0)
    remu   t0, a4, a3;  sw t0, 40(s0)
    div    t0, a3, zero; sw t0, 44(s0)
    divu   t0, a3, zero; sw t0, 48(s0)
    rem    t0, a4, zero; sw t0, 52(s0)
    remu   t0, a4, zero; sw t0, 56(s0)
    div    t0, a2, a1;  sw t0, 60(s0)
    rem    t0, a2, a1;  sw t0, 64(s0)
    div    t0, a4, a4;  sw t0, 68(s0)
    rem    t0, a1, a3;  sw t0, 72(s0)
    addi s0, s0, 76
    # loads and stores of every width and sign
    la s1, bytes
    lb  t0, 0(s1);  sw t0, 0(s0)
    lbu t0, 1(s1);  sw t0, 4(s0)
    lh  t0, 2(s1);  sw t0, 8(s0)
    lhu t0, 2(s1);  sw t0, 12(s0)
    lw  t0, 4(s1);  sw t0, 16(s0)
    sb  a4, 20(s0)
    sh  a4, 22(s0)
    li s0, 0
    li s1, 0
.data
bytes: .byte 0x80, 0xff, 0x34, 0x92, 0x78, 0x56, 0x34, 0x12
filled: .fill 3, 2, 0xabcd
.fill 1, 8, -2
.fill 5
.balign 4
out: .zero 200
