"""Contractions: gemm, batch_matmul and linear as register-blocked outer products (MR
rows of the result at once, a strip of columns per vector register group, one scalar
of the left operand times one strip of the right per vfmacc.vf; linear reads W's
columns with strided loads); gemv as blocked dot products (NR rows of A share each
strip of x, vfmacc.vv into accumulators, one unordered reduction per output)."""
from __future__ import annotations

from .template import Template

F_A = ("ft0", "ft1", "ft2", "ft3", "ft4", "ft5", "ft6", "ft7")
X_A = ("a3", "a4", "a5", "a6", "a7", "t5", "s9", "s10")


def _groups(lmul, count, first=8):
    return [f"v{first + i * lmul}" for i in range(count)]


def _outer_product_rows(asm, p, mr, K, N, a_row, b_base, c_row, init=None):
    """C[r..r+mr, :] = A[r..r+mr, :] @ B (+ init) for the rows whose A row starts at
    register `a_row` and C row at `c_row` (B at `b_base`); advances nothing outside.
    init: None (start from 0), ("bias", reg): a vector [N] added to every row, or
    ("rows", reg): a matrix laid out like C (a residual) whose rows start at reg."""
    lmul = p["lmul"]
    accs = _groups(lmul, mr)
    vb = f"v{8 + mr * lmul}" if 8 + (mr + 1) * lmul <= 32 else "v0"      # v0 is free: nothing is masked
    kb = 4 * K
    single = kb * (mr - 1) <= 2047           # one A pointer with immediate offsets
    asm(f"mv s1, {b_base}")
    asm(f"mv s4, {c_row}")
    if init:
        asm(f"mv s2, {init[1]}")
    asm.li("s3", N)
    with asm.strip("s3", "t0", lmul, comment="a strip of columns"):
        for i, acc in enumerate(accs):
            if init is None:
                asm(f"vmv.v.i {acc}, 0")
            elif init[0] == "bias":
                asm(f"vle32.v {acc}, (s2)", "start from the bias")
            else:
                asm.addi("t1", "s2", i * 4 * N)
                asm(f"vle32.v {acc}, (t1)", "start from the residual")
        if single:
            asm(f"mv {X_A[0]}, {a_row}")
        else:
            for i in range(mr):
                asm.addi(X_A[i], a_row, i * kb)
        asm("mv t3, s1")
        with asm.loop("t4", K, "k"):
            asm(f"vle32.v {vb}, (t3)", "B[k, strip]")
            for i in range(mr):
                if single:
                    asm(f"flw {F_A[i]}, {i * kb}({X_A[0]})")
                else:
                    asm(f"flw {F_A[i]}, 0({X_A[i]})")
            for i in range(mr):
                asm(f"vfmacc.vf {accs[i]}, {F_A[i]}, {vb}")
            for i in range(1 if single else mr):
                asm(f"addi {X_A[i]}, {X_A[i]}, 4")
            asm("add t3, t3, s5", "next row of B")
        for i in range(mr):
            asm.addi("t1", "s4", i * 4 * N)
            asm(f"vse32.v {accs[i]}, (t1)")
        asm("slli t1, t0, 2")
        asm("add s1, s1, t1")
        asm("add s4, s4, t1")
        if init:
            asm("add s2, s2, t1")


def _matmul(asm, p, M, K, N, a_base, b_base, c_base, init=None):
    """C = A @ B (+ init, see _outer_product_rows; its register is s8, which a "rows"
    init advances) with A, B, C at the addresses in registers a_base, b_base, c_base."""
    mr = min(p["mr"], M)
    asm.li("s5", 4 * N, "B row pitch")
    asm(f"mv s6, {a_base}")
    asm(f"mv s7, {c_base}")
    full, rest = divmod(M, mr)
    with asm.loop("s11", full, f"blocks of {mr} rows"):
        _outer_product_rows(asm, p, mr, K, N, "s6", b_base, "s7", init)
        asm.addi("s6", "s6", mr * 4 * K)
        asm.addi("s7", "s7", mr * 4 * N)
        if init and init[0] == "rows":
            asm.addi("s8", "s8", mr * 4 * N)
    if rest:
        _outer_product_rows(asm, p, rest, K, N, "s6", b_base, "s7", init)


def transpose(asm, src, rows, cols, dst, lmul=8, pitch=None, scale=None):
    """dst [cols, rows] = src [rows, cols]^T (addresses; src may be a register instead;
    src rows `pitch` elements apart, default cols), times the f register `scale` if
    given: a strip of rows at a time, each column read with one strided load and written
    as a contiguous row."""
    if isinstance(src, str):
        asm(f"mv a0, {src}", "src strip")
    else:
        asm.li("a0", src, "src strip")
    asm.li("a1", dst, "dst strip")
    asm.li("t2", 4 * (pitch or cols), "src row pitch")
    asm.li("t5", 4 * rows, "dst row pitch")
    asm.li("a2", rows)
    with asm.strip("a2", "t0", lmul, comment="a strip of rows"):
        asm("mv a3, a0")
        asm("mv a4, a1")
        with asm.loop("t4", cols, "columns"):
            asm("vlse32.v v8, (a3), t2")
            if scale:
                asm(f"vfmul.vf v8, v8, {scale}")
            asm("vse32.v v8, (a4)")
            asm("addi a3, a3, 4")
            asm("add a4, a4, t5")
        asm("slli t1, t0, 2")
        asm("mul t3, t0, t2")
        asm("add a0, a0, t3")
        asm("add a1, a1, t1")


def project(asm, p, M, K, N, x, w, y, packed, init=None):
    """y [M, N] = x [M, K] @ w^T (+ init) for a weight w [N, K] in PyTorch layout
    (addresses): w is packed once into `packed` as w^T [K, N] so the contraction reads
    unit-stride rows (init: None, ("bias", address) or ("rows", address))."""
    transpose(asm, w, N, K, packed)
    asm.li("a0", x, "x")
    asm.li("a1", packed, "w^T")
    asm.li("a2", y, "y")
    if init:
        asm.li("s8", init[1], init[0])
        init = (init[0], "s8")
    _matmul(asm, p, M, K, N, "a0", "a1", "a2", init)


def gemm(ctx, asm, p):
    d = ctx.dims
    asm.li("a0", ctx.addr("a"), "A")
    asm.li("a1", ctx.addr("b"), "B")
    asm.li("a2", ctx.addr("c"), "C")
    _matmul(asm, p, d["M"], d["K"], d["N"], "a0", "a1", "a2")


def batch_matmul(ctx, asm, p):
    d = ctx.dims
    asm.li("a0", ctx.addr("a"), "A[0]")
    asm.li("a1", ctx.addr("b"), "B[0]")
    asm.li("a2", ctx.addr("c"), "C[0]")
    with asm.loop("s8", d["B"], "batches"):
        _matmul(asm, p, d["M"], d["K"], d["N"], "a0", "a1", "a2")
        asm.addi("a0", "a0", 4 * d["M"] * d["K"])
        asm.addi("a1", "a1", 4 * d["K"] * d["N"])
        asm.addi("a2", "a2", 4 * d["M"] * d["N"])


def _dot_rows(asm, p, nr, K, p_row, q_first, out, out_step, bias):
    """out[j] = dot(P[p_row, :], Q[q_first + j, :]) (+ bias[j]) for j < nr: the row of
    P at register p_row, Q rows (pitch 4K) from register q_first, results stored at
    register `out` + j * out_step; `bias`: register of the bias vector or None."""
    lmul = p["lmul"]
    accs = _groups(lmul, nr)
    vp = f"v{8 + nr * lmul}"
    vq = "v0" if 8 + (nr + 2) * lmul > 32 else f"v{8 + (nr + 1) * lmul}"
    asm(f"vsetvli t2, zero, e32, m{lmul}, ta, ma")
    for acc in accs:
        asm(f"vmv.v.i {acc}, 0")
    asm(f"mv t3, {p_row}")
    for j in range(nr):
        asm.addi(X_A[j], q_first, 4 * K * j)
    asm.li("a2", K)
    with asm.strip("a2", "t0", lmul, "tu, mu", "a strip of the dot products"):
        asm(f"vle32.v {vp}, (t3)")
        for j in range(nr):
            asm(f"vle32.v {vq}, ({X_A[j]})")
            asm(f"vfmacc.vv {accs[j]}, {vp}, {vq}")
        asm("slli t1, t0, 2")
        asm("add t3, t3, t1")
        for j in range(nr):
            asm(f"add {X_A[j]}, {X_A[j]}, t1")
    asm(f"vsetvli t2, zero, e32, m{lmul}, ta, ma")
    for j in range(nr):
        asm("vmv.s.x v1, zero")
        asm(f"vfredusum.vs v1, {accs[j]}, v1")
        asm(f"vfmv.f.s {F_A[j]}, v1")
        if bias is not None:
            asm(f"flw {F_A[7]}, {4 * j}({bias})")
            asm(f"fadd.s {F_A[j]}, {F_A[j]}, {F_A[7]}")
        asm(f"fsw {F_A[j]}, {j * out_step}({out})")


def _dot_product_outputs(asm, p, n_out, K, p_row, q_base, out, bias):
    """n_out outputs of one P row against consecutive Q rows, NR at a time."""
    nr = min(p["nr"], n_out)
    asm(f"mv s6, {q_base}")
    asm(f"mv s7, {out}")
    if bias is not None:
        asm(f"mv s3, {bias}")
    full, rest = divmod(n_out, nr)
    with asm.loop("s11", full, f"blocks of {nr} outputs"):
        _dot_rows(asm, p, nr, K, p_row, "s6", "s7", 4, "s3" if bias is not None else None)
        asm.addi("s6", "s6", nr * 4 * K)
        asm.addi("s7", "s7", nr * 4)
        if bias is not None:
            asm.addi("s3", "s3", nr * 4)
    if rest:
        _dot_rows(asm, p, rest, K, p_row, "s6", "s7", 4, "s3" if bias is not None else None)


def gemv(ctx, asm, p):
    d = ctx.dims
    asm.li("a0", ctx.addr("x"), "x")
    asm.li("a1", ctx.addr("a"), "A")
    asm.li("s2", ctx.addr("y"), "y")
    _dot_product_outputs(asm, p, d["M"], d["K"], "a0", "a1", "s2", None)


def _linear_rows(asm, p, mr, K, N, x_row, y_row):
    """y[r..r+mr, :] = x[r..r+mr, :] @ W^T + b: the accumulators start from the bias
    strip; each k adds x[r+i, k] times the strip W[n.., k] (a strided load, pitch 4K)."""
    lmul = p["lmul"]
    accs = _groups(lmul, mr)
    vw = f"v{8 + mr * lmul}" if 8 + (mr + 1) * lmul <= 32 else "v0"
    kb = 4 * K
    single = kb * (mr - 1) <= 2047
    asm("mv s1, s8")
    asm("mv s2, a1")
    asm(f"mv s4, {y_row}")
    asm.li("s3", N)
    with asm.strip("s3", "t0", lmul, comment="a strip of outputs"):
        for acc in accs:
            asm(f"vle32.v {acc}, (s2)", "start from the bias")
        if single:
            asm(f"mv {X_A[0]}, {x_row}")
        else:
            for i in range(mr):
                asm.addi(X_A[i], x_row, i * kb)
        asm("mv t3, s1")
        with asm.loop("t4", K, "k"):
            asm(f"vlse32.v {vw}, (t3), s5", "W[strip, k]")
            for i in range(mr):
                asm(f"flw {F_A[i]}, {i * kb if single else 0}({X_A[0] if single else X_A[i]})")
            for i in range(mr):
                asm(f"vfmacc.vf {accs[i]}, {F_A[i]}, {vw}")
            for i in range(1 if single else mr):
                asm(f"addi {X_A[i]}, {X_A[i]}, 4")
            asm("addi t3, t3, 4", "next column of W")
        for i in range(mr):
            asm.addi("t1", "s4", i * 4 * N)
            asm(f"vse32.v {accs[i]}, (t1)")
        asm("slli t1, t0, 2")
        asm("add s2, s2, t1")
        asm("add s4, s4, t1")
        asm("mul t2, t0, s5")
        asm("add s1, s1, t2", "vl rows of W further")


def linear(ctx, asm, p):
    d = ctx.dims
    M, K, N = d["M"], d["K"], d["N"]
    mr = min(p["mr"], M)
    asm.li("s6", ctx.addr("x"), "x rows")
    asm.li("s7", ctx.addr("y"), "y rows")
    asm.li("s8", ctx.addr("w"), "W")
    asm.li("a1", ctx.addr("b"), "bias")
    asm.li("s5", 4 * K, "W row pitch: the stride down a column")
    full, rest = divmod(M, mr)
    with asm.loop("s11", full, f"blocks of {mr} rows"):
        _linear_rows(asm, p, mr, K, N, "s6", "s7")
        asm.addi("s6", "s6", mr * 4 * K)
        asm.addi("s7", "s7", mr * 4 * N)
    if rest:
        _linear_rows(asm, p, rest, K, N, "s6", "s7")


def _check_outer(ctx, p):
    if not 1 <= p["mr"] <= 8:
        return "mr must be 1..8"
    if 8 + p["mr"] * p["lmul"] > 32:
        return f"mr = {p['mr']} accumulators of LMUL = {p['lmul']} do not fit v8..v31 (B uses v0)"
    return None


def _check_dot(ctx, p):
    if not 1 <= p["nr"] <= 7:
        return "nr must be 1..7"
    if 8 + (p["nr"] + 1) * p["lmul"] > 32:
        return f"nr = {p['nr']} accumulators plus an operand strip of LMUL = {p['lmul']} do not fit v8..v31"
    return None


OUTER = dict(params={"lmul": 8, "mr": 3}, space={"lmul": [2, 4, 8], "mr": [1, 2, 3, 4, 6]})
DOT = dict(params={"lmul": 8, "nr": 2}, space={"lmul": [2, 4, 8], "nr": [1, 2, 3, 4]})
TEMPLATES = [
    Template("gemm", gemm, **OUTER, doc="MR x strip register blocking, vfmacc.vf per k", check=_check_outer),
    Template("batch_matmul", batch_matmul, **OUTER, doc="gemm per batch", check=_check_outer),
    Template("gemv", gemv, **DOT, doc="NR rows of A per strip of x, vfmacc.vv, one reduction per output",
             check=_check_dot),
    Template("linear", linear, **OUTER, doc="MR rows of x x a strip of outputs from the bias, vfmacc.vf "
             "per k with a strided load of W's column", check=_check_outer),
]
