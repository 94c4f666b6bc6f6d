"""A self-looping block of short-vector arithmetic as straight-line Python.

selfloop.py runs such a block's timed variant in a `while` loop, which still calls
one smallvec.py closure and one VectorTiming.dispatch per vector instruction, each
re-reading registers through memoryviews. This variant (for e32, LMUL 1, 2 or 4,
vl <= 16) holds elements 0..vl-1 of every vector register (group) the block names
as Python floats in locals (mask registers as one int), and unrolls each
instruction's element loop into statements; tails are written on exit (a slide
down that reads one is refused); a single register (a mask, a
reduction's operand or result) inside a group the loop also uses is refused.
Registers go back to the state on every exit. Timing
does not depend on data: the loop leaves it out, and the iterations it ran are timed
afterwards at once (loops.replay, which adds a repeating steady state in one step).

It is an optimisation of the same semantics, under the same conditions as
smallvec.py (whose module docstring has the floating-point argument):
- each vector instruction's closure has last run with the current vtype and vl
  (smallvec.wrap's `last`), which proves its operand checks pass and gives its
  cycles;
- frm = RNE, no register the loop reads holds a NaN, and every result stays on the
  simple path (finite below 2^127, not tiny unless an exact zero; fma results not
  zero): so no NaN ever enters a local and NX is the only flag (a local, accrued
  on exit);
- an element leaving the simple path abandons the iteration before anything of it
  is kept: vector results go to fresh names and become the registers only at the
  iteration's end, vector stores are made then, and the scalar registers the
  iteration wrote (its code runs in program order, as addresses need) are restored
  from their values at its start; so the loop stops at the iteration's start, and
  the caller (selfloop.SelfLoop.timed) steps that iteration and resumes the variant;
- scalar instructions only those without memory access, CSR, error or wait; vector
  instructions only those below, none reading a register the scalar code writes;
  a masked one whose inactive elements would become all ones (a NaN) stops the
  loop when its mask has an inactive element.
Anything else is refused when the loop is generated (`Refuse`), and the block keeps
selfloop.py's loop.

Above vl = 16 (e32 m8 holds 32 elements at VLEN = 128) a statement per element costs
more than it saves; there the element-wise arithmetic, unmasked and without memory
access, runs as vecloop.c's records (`c_source`): one C call per iteration with the
same operations, checks and abandonment, on the register file in place (the groups it
writes are put back when an iteration is abandoned); the scalar code stays statements.
"""
from __future__ import annotations

from array import array
from math import copysign
from pathlib import Path

from kernelcraft.simulators.core.native import Native

from . import fpregs
from .fp32 import TINY
from .loops import replay, timing_program
from .selfloop import WRITE, _localise, bind_globals
from .semantics import VECTOR
from .smallvec import ARITH as VARITH, FMA as VFMA, MAX_VL, lanes
from .state import FFLAGS, FRM
from .timing import LOAD, STORE

BIG = 2.0 ** 127
COMPARES = {"vmfeq": "==", "vmfne": "!=", "vmflt": "<", "vmfle": "<=", "vmfgt": ">", "vmfge": ">="}
ARITH = {name: VARITH[name][0] for name in ("vfadd", "vfsub", "vfrsub", "vfmul")}
# (FRM(pc) in a dyn rounding mode raises only for frm >= 5; the loop runs at frm = 0)
# vecloop.c: the element loops of vl above MAX_VL (where Python statements per element
# cost more than they save); its op codes and operand-negation flags
NATIVE = Native(Path(__file__).with_name("vecloop.c"), "_coral_vecloop", "coral vector loops above vl 16")
C_OPS = {"mul": 0, "add": 1, "fma": 2, "min": 3, "max": 4, "mov": 5, "neg_a": 16, "neg_b": 32}
SAFE_SCALAR = ("CSR", "JUMP", "VSET", "VQ", "SYNC", "DRAIN", "S.", "raise", "STORE", "BAD")


class Refuse(Exception):
    """The block has something this variant does not run."""


def _range(x: str, zero: bool) -> str:
    ok = f"{TINY!r} <= {x} < {BIG!r} or -{BIG!r} < {x} <= -{TINY!r}"
    return f"if not ({ok}{f' or {x} == 0.0' if zero else ''}): break"


def _sum(out: str, p: str, q: str) -> list[str]:
    """out = p + q rounded to binary32 (both binary32 values, q maybe negated)."""
    return ["x_ = " + f"{p} + {q}", _range("x_", True), "_F[0] = x_", f"{out} = _F[0]",
            "if not nx_:", "    bb_ = x_ - " + p,
            f"    if {out} != x_ or ({p} - (x_ - bb_)) + ({q} - bb_): nx_ = 1"]


def _product(out: str, a: str, b: str) -> list[str]:
    return [f"x_ = {a} * {b}", _range("x_", True), "_F[0] = x_", f"{out} = _F[0]",
            f"if {out} != x_: nx_ = 1"]


def _fma(out: str, p: str, z: str) -> list[str]:
    """out = p + z rounded once, p an exact product (smallvec._fma's simple path)."""
    return [f"p_ = {p}", f"z_ = {z}", "x_ = p_ + z_", _range("x_", False), "_F[0] = x_", f"{out} = _F[0]",
            "bb_ = x_ - p_", "if (p_ - (x_ - bb_)) + (z_ - bb_):",
            f"    o_ = x_ + (x_ - {out})", "    _F[0] = o_",
            f"    if {out} != x_ and _F[0] == o_: break", "    nx_ = 1",
            f"elif {out} != x_: nx_ = 1"]


class Gen:
    """The loop function's text for one block at one (vtype, vl)."""

    def __init__(self, s, vl: int):
        self.s, self.vl = s, vl              # the elements the loop holds of a register group
        self.per = s.VLENB >> 2              # elements of one register
        self.kind: dict[int, str] = {}        # register -> "vec" | "mask" | "red" (element 0 written by reductions)
        self.cur: dict = {}                   # (register, element) or register -> current local name
        self.written: dict[int, str] = {}
        self.fregs: set[int] = set()          # f registers vector instructions read
        self.read: set = set()                # registers read before written in an iteration
        self.read0: set = set()               # registers reductions read element 0 of
        self.stores: list[str] = []           # vector stores, made when the iteration is kept
        self.lines: list[str] = []

    def _kind(self, r: int, kind: str) -> None:
        if self.kind.setdefault(r, kind) != kind:
            raise Refuse(f"v{r} used as {self.kind[r]} and {kind}")

    def elem(self, r: int, e: int) -> str:
        if self.kind.get(r) != "red":
            self._kind(r, "vec")
        elif e:
            raise Refuse("reads a reduction's tail")
        return self._base((r, e), f"v{r}_{e}", r)

    def _base(self, key, name: str, r: int) -> str:
        if key in self.cur:
            return self.cur[key]
        self.read.add(r)
        return name

    def mask(self, r: int) -> str:
        self._kind(r, "mask")
        return self._base(r, f"m{r}", r)

    def scalar(self, ops, form: str) -> list[str]:
        if form == "vv":
            return [self.elem(ops["vs1"], e) for e in range(self.vl)]
        self.fregs.add(ops["rs1"])
        return [f"fv{ops['rs1']}"] * self.vl

    def put(self, k: int, vd: int, vals: list, vm: int) -> None:
        """Results (lists of lines computing each element into its name) into fresh names."""
        self._kind(vd, "vec")
        m = None if vm else self.mask(0)
        ones = not vm and self.s.vma and self.s.agnostic_ones     # inactive elements become all ones (a NaN)
        new = {}
        for e, code in enumerate(vals):
            name = f"v{vd}_{e}_{k}"
            lines = code(name)
            if m is None:
                self.lines += lines
            else:
                keep = "break" if ones else f"{name} = {self.elem(vd, e)}"
                self.lines += [f"if {m} & {1 << e}:"] + ["    " + ln for ln in lines] + [f"else: {keep}"]
            new[(vd, e)] = name
        self.cur.update(new)
        self.written[vd] = "vec"

    # --- instructions --------------------------------------------------------------------
    def arith(self, k, name, form, ops):
        a = [self.elem(ops["vs2"], e) for e in range(self.vl)]
        b = self.scalar(ops, form)
        vals = []
        for x, y in zip(a, b):
            if name == "vfmul":
                vals.append(lambda o, x=x, y=y: _product(o, x, y))
            else:
                p, q = {"vfadd": (x, y), "vfsub": (x, f"-{y}"), "vfrsub": (y, f"-{x}")}[name]
                vals.append(lambda o, p=p, q=q: _sum(o, p, q))
        self.put(k, ops["vd"], vals, ops["vm"])

    def minmax(self, k, name, form, ops):
        a = [self.elem(ops["vs2"], e) for e in range(self.vl)]
        b = self.scalar(ops, form)
        op = ">" if name == "vfmax" else "<"
        # equal operands: the negative zero for the minimum, the positive for the maximum
        self.put(k, ops["vd"], [lambda o, x=x, y=y: [
            f"{o} = {x} if {x} {op} {y} or ({x} == {y} and COPYSIGN(1.0, {x}) {op} 0) else {y}"]
            for x, y in zip(a, b)], ops["vm"])

    def fma(self, k, name, form, ops):
        uses_vd, neg_p, neg_c = VFMA[name]
        d = [self.elem(ops["vd"], e) for e in range(self.vl)]
        v = [self.elem(ops["vs2"], e) for e in range(self.vl)]
        m = self.scalar(ops, form)
        other, addend = (d, v) if uses_vd else (v, d)
        self.put(k, ops["vd"], [lambda o, x=x, y=y, z=z: _fma(
            o, f"{'-' if neg_p else ''}{x} * {y}", f"{'-' if neg_c else ''}{z}")
            for x, y, z in zip(m, other, addend)], ops["vm"])

    def compare(self, k, name, form, ops):
        a = [self.elem(ops["vs2"], e) for e in range(self.vl)]
        b = self.scalar(ops, form)
        op = COMPARES[name]
        bits = " | ".join(f"(({x} {op} {y}) << {e})" for e, (x, y) in enumerate(zip(a, b)))
        vd, n = ops["vd"], self.vl        # vl = epr bits; bits vl.. are the tail
        low, full = (1 << n) - 1, (1 << (8 * self.s.VLENB)) - 1
        old = lambda: self.mask(vd)      # noqa: E731 (read only where kept)
        self._kind(vd, "mask")
        high = f"{full ^ low}" if self.s.agnostic_ones else f"({old()} & {full ^ low})"
        name_ = f"m{vd}_{k}"
        if ops["vm"]:
            self.lines.append(f"{name_} = {bits} | {high}")
        else:
            act = f"({self.mask(0)} & {low})"
            inactive = f"({low} ^ {act})" if self.s.vma and self.s.agnostic_ones else f"({old()} & ({low} ^ {act}))"
            self.lines.append(f"{name_} = (({bits}) & {act}) | {inactive} | {high}")
        self.cur[vd] = name_
        self.written[vd] = "mask"

    def slide(self, k, name, ops):
        src = [self.elem(ops["vs2"], e) for e in range(self.vl)]
        if name == "vslidedown.vi":
            off = ops["imm"]
            if any(self.vl <= e + off < self.s.vlmax for e in range(self.vl)):
                raise Refuse("slides the tail down")
            vals = [src[e + off] if e + off < self.vl else "0.0" for e in range(self.vl)]
        else:
            self.fregs.add(ops["rs1"])
            value = f"fv{ops['rs1']}"
            vals = [value] + src[:-1] if "up" in name else src[1:] + [value]
        self.put(k, ops["vd"], [lambda o, v=v: [f"{o} = {v}"] for v in vals], ops["vm"])

    def move(self, k, name, ops):
        if name == "vmv.v.v":
            vals = [self.elem(ops["vs1"], e) for e in range(self.vl)]
        else:
            self.fregs.add(ops["rs1"])
            vals = [f"fv{ops['rs1']}"] * self.vl
        self.put(k, ops["vd"], [lambda o, v=v: [f"{o} = {v}"] for v in vals], 1)

    def fredusum(self, k, ops):
        if not ops["vm"]:
            raise Refuse("masked reduction")
        nl = self.s.VLEN // 32                 # lanes: element i goes to lane i % nl (vl a multiple of nl)
        v = [self.elem(ops["vs2"], e) for e in range(self.vl)]
        vs1 = ops["vs1"]
        if self.kind.get(vs1) == "mask":
            raise Refuse(f"v{vs1} used as a mask and a vector")
        first = self._base((vs1, 0), f"v{vs1}_0", vs1)
        self.read0.add(vs1)
        # lane 0 starts from vs1[0], lane j > 0 from element j; lanes without elements (vl < nl) are skipped
        acc = [first] + v[1:nl] + [None] * (nl - min(nl, self.vl))
        for i in [0] + list(range(nl, self.vl)):
            name = f"a{i % nl}_{k}_e{i}"
            self.lines += _sum(name, acc[i % nl], v[i])
            acc[i % nl] = name
        n, level = nl, 0
        while n > 1:
            n //= 2
            level += 1
            for j in range(n):
                if acc[j + n] is None:
                    continue
                if acc[j] is None:
                    acc[j] = acc[j + n]
                    continue
                name = f"a{j}_{k}_{level}"
                self.lines += _sum(name, acc[j], acc[j + n])
                acc[j] = name
        vd = ops["vd"]
        if self.kind.setdefault(vd, "red") != "red":
            raise Refuse(f"v{vd} written by a reduction and used as a vector")
        self.lines.append(f"v{vd}_0_{k} = {acc[0]}")
        self.cur[(vd, 0)] = f"v{vd}_0_{k}"
        self.written[vd] = "red"

    def memory(self, k: int, store: bool, ops: dict) -> None:
        """A unit-stride e32 load or store: its address checked where it stands (one
        that fails leaves the iteration, and stepping raises the error); a load's
        elements must be numbers, a store is made at the iteration's end, so no load
        may follow a store in the block."""
        e, rs1 = self.vl, ops["rs1"]
        last = self.s.dsize - 4 * e
        self.lines += [f"a_ = x[{rs1}]" if rs1 else "a_ = 0", "o_ = a_ - DB",
                       f"if o_ < 0 or o_ > {last} or a_ & 3: break"]
        if store:
            vals = [self.elem(ops["vs3"], j) for j in range(e)]
            self.lines.append(f"j{k}_ = o_ >> 2")
            self.stores.append(f"FM[j{k}_:j{k}_ + {e}] = array(TF, ({', '.join(vals)},))")
            return
        if self.stores:
            raise Refuse("a load after a store")
        names = [f"v{ops['vd']}_{j}_{k}" for j in range(e)]
        self.lines += ["j_ = o_ >> 2", f"{', '.join(names)}, = FM[j_:j_ + {e}]",
                       f"if {' or '.join(f'{n} != {n}' for n in names)}: break"]
        self.put(k, ops["vd"], [lambda o: [] for _ in range(e)], 1)

    def instruction(self, k: int, mn: str, ops: dict) -> None:
        base, _, form = mn.partition(".")
        if base in ARITH and form in ("vv", "vf"):
            self.arith(k, base, form, ops)
        elif base in ("vfmin", "vfmax") and form in ("vv", "vf"):
            self.minmax(k, base, form, ops)
        elif base in VFMA and form in ("vv", "vf"):
            self.fma(k, base, form, ops)
        elif base in COMPARES and form in ("vv", "vf"):
            self.compare(k, base, form, ops)
        elif mn in ("vslidedown.vi", "vfslide1up.vf", "vfslide1down.vf"):
            self.slide(k, mn, ops)
        elif mn in ("vmv.v.v", "vfmv.v.f"):
            self.move(k, mn, ops)
        elif mn == "vfredusum.vs":
            self.fredusum(k, ops)
        elif mn in ("vle32.v", "vse32.v") and ops["vm"]:
            self.memory(k, mn == "vse32.v", ops)
        else:
            raise Refuse(mn)

    # --- entry, commit, exit -------------------------------------------------------------
    def overlapping(self, nregs: int) -> bool:
        """Whether two of the loop's registers share storage: a group of `nregs` and a
        single register (a mask, a reduction's operand or result) inside it."""
        spans = sorted((r, r + (nregs if self.kind.get(r) == "vec" else 1))
                       for r in set(self.kind) | self.read | self.read0 | set(self.written))
        return any(b > c for (_, b), (c, _) in zip(spans, spans[1:]))

    def entry(self) -> list[str]:
        e, p, out, nan = self.vl, self.per, [], []
        for r in sorted(self.read):
            kind = self.kind.get(r, "red")
            if kind == "vec":
                names = [f"v{r}_{j}" for j in range(e)]
                out.append(f"{', '.join(names)}, = F[{r * p}:{r * p + e}]")
                nan += [f"{n} != {n}" for n in names]
            elif kind == "red":
                out.append(f"v{r}_0 = F[{r * p}]")
                nan.append(f"v{r}_0 != v{r}_0")
            else:
                out.append(f"m{r} = FROM(B[{r * self.s.VLENB}:{(r + 1) * self.s.VLENB}], 'little')")
        for k in sorted(self.fregs):
            out.append(f"fv{k} = BF(f[{k}])")
            nan.append(f"fv{k} != fv{k}")
        if nan:
            out.append(f"if {' or '.join(nan)}: return None")
        return out

    def commit(self) -> list[str]:
        pairs = []
        for r, kind in sorted(self.written.items()):
            if kind == "mask":
                pairs.append((f"m{r}", self.cur[r]))
            else:
                pairs += [(f"v{r}_{j}", self.cur[(r, j)]) for j in range(self.vl if kind == "vec" else 1)]
        pairs = [(a, b) for a, b in pairs if a != b]
        if not pairs:
            return []
        return [f"{', '.join(a for a, _ in pairs)} = {', '.join(b for _, b in pairs)}"]

    def exit(self) -> list[str]:
        """Write-back of the registers the loop writes: only after a whole iteration,
        when every one of them has a value (a register it only writes is not loaded)."""
        e, p, out = self.vl, self.per, []
        tail = self.s.vta and self.s.agnostic_ones and p > 1     # a reduction's: the rest of its register
        group = self.s.lmul_num * p                               # a group's elements, its tail from vl
        for r, kind in sorted(self.written.items()):
            if kind == "vec":
                out.append(f"F[{r * p}:{r * p + e}] = array('f', ({', '.join(f'v{r}_{j}' for j in range(e))},))")
                if self.s.vta and self.s.agnostic_ones and e < group:
                    out.append(f"U[{r * p + e}:{r * p + group}] = ONES[:{group - e}]")
            elif kind == "red":
                out.append(f"F[{r * p}] = v{r}_0")
                if tail:
                    out.append(f"U[{r * p + 1}:{r * p + p}] = ONES[:{p - 1}]")
            else:
                n = self.s.VLENB
                out.append(f"B[{r * n}:{(r + 1) * n}] = m{r}.to_bytes({n}, 'little')")
        return ["if i:"] + ["    " + line for line in out] if out else []


class CGen:
    """The block's vector instructions as vecloop.c's records, for vl above MAX_VL:
    element-wise arithmetic (the same operations as Gen's, unmasked) on whole groups,
    no memory access, no mask or reduction."""

    def __init__(self, s, vl: int):
        self.s, self.vl, self.per = s, vl, s.VLENB >> 2
        self.records: list[int] = []
        self.written: set[int] = set()
        self.read: set[int] = set()           # registers read before written in an iteration
        self.fregs: list[int] = []            # f registers read, in slot order
        self.lines: list[str] = []            # the scalar code, in program order

    def vec(self, r: int) -> int:
        if r not in self.written:
            self.read.add(r)
        return r * self.per

    def scalar(self, ops, form: str) -> int:
        if form == "vv":
            return self.vec(ops["vs1"])
        if ops["rs1"] not in self.fregs:
            self.fregs.append(ops["rs1"])
        return -1 - self.fregs.index(ops["rs1"])

    def instruction(self, k: int, mn: str, ops: dict) -> None:
        base, _, form = mn.partition(".")
        if not ops.get("vm", 1):
            raise Refuse(f"masked {mn}")
        if base in ARITH and form in ("vv", "vf"):
            a, b = self.vec(ops["vs2"]), self.scalar(ops, form)
            code, (a, b) = {"vfmul": (C_OPS["mul"], (a, b)), "vfadd": (C_OPS["add"], (a, b)),
                            "vfsub": (C_OPS["add"] | C_OPS["neg_b"], (a, b)),
                            "vfrsub": (C_OPS["add"] | C_OPS["neg_b"], (b, a))}[base]
            rec = (code, a, b, 0)
        elif base in ("vfmin", "vfmax") and form in ("vv", "vf"):
            rec = (C_OPS[base[2:]], self.vec(ops["vs2"]), self.scalar(ops, form), 0)
        elif base in VFMA and form in ("vv", "vf"):
            uses_vd, neg_p, neg_c = VFMA[base]
            d, v, m = self.vec(ops["vd"]), self.vec(ops["vs2"]), self.scalar(ops, form)
            other, addend = (d, v) if uses_vd else (v, d)
            rec = (C_OPS["fma"] | (C_OPS["neg_a"] if neg_p else 0) | (C_OPS["neg_b"] if neg_c else 0), m, other, addend)
        elif mn == "vmv.v.v":
            rec = (C_OPS["mov"], self.vec(ops["vs1"]), 0, 0)
        elif mn == "vfmv.v.f":
            rec = (C_OPS["mov"], self.scalar(ops, "vf"), 0, 0)
        else:
            raise Refuse(mn)
        self.written.add(ops["vd"])
        self.records += [rec[0], ops["vd"] * self.per, *rec[1:]]

    def spans(self, regs) -> bytes:
        return array("i", [v for r in sorted(regs) for v in (r * self.per, self.vl)]).tobytes()


def _blocks(comp, blk, gen):
    """Each instruction of the block's body into `gen` (vector ones through
    gen.instruction, scalar code as lines); (the vector closures, their pcs), or None
    while a closure has not yet run at the current vtype and vl."""
    s = comp.s
    closures, vpcs = [], set()
    for k, pc in enumerate(range(blk.start, blk.start + blk.size - 1)):
        ins = comp.program.instrs[pc]
        d = comp.isa.instructions.get(ins.mnemonic)
        if d is None:
            raise Refuse("illegal")
        ops = {op.name: ins.ops.get(op.name, op.kind.default) for op in d.operands}
        if d.mnemonic in VECTOR:
            run = comp.ns.get(f"V{pc}")
            if getattr(run, "last", None) is None:
                raise Refuse(f"{d.mnemonic} has no short-vector form")
            if run.last[0] != s.vtype or run.last[1] != s.vl:
                return None
            gen.instruction(k, d.mnemonic, ops)
            closures.append(run)
            vpcs.add(pc)
        else:
            code, _ = comp.code_of(pc, k)
            text = "\n".join(code.lines)
            if code.timed or code.mem or code.sync or code.flow or any(w in text for w in SAFE_SCALAR):
                raise Refuse(d.mnemonic)
            gen.lines += code.lines           # in program order: vector addresses read x registers
    return closures, vpcs


def _cycles(comp, blk, vpcs) -> dict:
    cycles = {}
    for step in blk.tsteps:
        if step[0] == "vq" and step[2] in (0, LOAD, STORE) and step[1] in vpcs:
            cycles[step[1]] = comp.ns[f"V{step[1]}"].last[2]
        elif step[0] != "add":
            raise Refuse(f"timing step {step}")
    return cycles


def _scalars(gen, extra: list[str], cond: str):
    """The scalar code with x/f registers as locals: (body, condition, loads, write-back,
    the scalar registers an iteration writes)."""
    local = _localise(gen.lines + extra, cond)
    if local is None:
        raise Refuse("scalar code names the register lists")
    written = sorted({m.groups() for line in gen.lines if (m := WRITE.match(line))})
    written = [f"{r}{k}" for r, k in written if (r, k) != ("x", "0")]
    for r in gen.fregs:                       # f registers read as floats must not change in the loop
        if f"f{r}" in written:
            raise Refuse(f"f{r} changes in the loop")
    return (*local, written)


def _loop(entry: list[str], body: list[str], cond: str, exit_: list[str], written: list[str]) -> str:
    """The loop function `vec(n)` -> (iterations, fell through, stopped early): `body`
    per iteration while `cond` holds, `exit_` on every way out; an iteration left early
    (a `break` in the body) leaves the scalar registers it wrote as at its start."""
    snap = [f"sv_ = ({', '.join(written)},)"] if written else []
    restore = [f"{', '.join(written)}, = sv_"] if written else []
    ind = lambda lines, n: "\n".join(" " * n + ln for ln in lines)       # noqa: E731
    return f"""def vec(n):
{ind(entry, 4)}
    for i in range(1, n + 1):
{ind(snap + body, 8)}
        if not ({cond}):
{ind(exit_, 12)}
            return i, True, False
    else:
{ind(exit_, 8)}
        return n, False, False
    i -= 1
{ind(restore + exit_, 4)}
    return i, False, True
"""


def c_source(comp, blk, cond: str):
    """source()'s result for vl above MAX_VL: the loop function runs the scalar code as
    statements and the vector instructions as one vecloop.c Body.step() per iteration;
    plus the Body, to bind as `CB`."""
    s = comp.s
    mod = NATIVE.module()
    if mod is None:
        raise Refuse("vecloop.c is not available")
    gen = CGen(s, s.vl)
    got = _blocks(comp, blk, gen)
    if got is None:
        return None
    closures, vpcs = got
    if not gen.records:
        raise Refuse("no vector instruction")
    body, cond_l, loads, back, written = _scalars(gen, [], cond)
    cycles = _cycles(comp, blk, vpcs)
    L = lanes(s)
    cb = mod.Body(L.F, array("i", gen.records).tobytes(), gen.spans(gen.written), s.vl)
    reads = gen.spans(gen.read)
    group = s.lmul_num * gen.per
    tails = [f"U[{r * gen.per + s.vl}:{r * gen.per + group}] = ONES[:{group - s.vl}]" for r in sorted(gen.written)
             ] if s.vta and s.agnostic_ones and s.vl < group else []
    exit_ = (["if i:"] + ["    " + t for t in tails] if tails else []) + [back, "fc[FFLAGS] |= CB.nx"]
    fv = "".join(f"BF(f[{k}]), " for k in gen.fregs)
    entry = loads + [f"if not CB.enter(({fv}), {reads!r}):", "    return None", "step = CB.step"]
    text = _loop(entry, body + ["if step():", "    break"], cond_l, exit_, written)
    return text, closures, timing_program(blk.tsteps, cycles, s), cb


def source(comp, blk, cond: str) -> tuple[str, list] | None:
    """(the loop function `vec(n)`, the closures whose `last` it relies on, the
    block's timing program for loops.replay); None while a closure has not yet run at
    the current vtype and vl; Refuse if the block has something this variant does
    not run."""
    s = comp.s
    if s.sew != 32 or s.vtype & 7 > 3 or not 0 < s.vl <= MAX_VL or blk.tsteps is None:
        raise Refuse(f"not e32, LMUL >= 1, 0 < vl <= {MAX_VL}")
    gen = Gen(s, s.vl)
    got = _blocks(comp, blk, gen)
    if got is None:
        return None
    closures, vpcs = got
    if gen.overlapping(s.lmul_num):
        raise Refuse("registers overlap")
    # x[k] / f[k] of the scalar code and of vector addresses as locals
    body, cond_l, loads, back, written = _scalars(gen, gen.commit() + gen.stores, cond)
    cycles = _cycles(comp, blk, vpcs)
    exit_ = gen.exit() + [back, "fc[FFLAGS] |= nx_"]
    text = _loop(gen.entry() + loads + ["nx_ = 0"], body, cond_l, exit_, written)
    return text, closures, timing_program(blk.tsteps, cycles, s)


class VecLoop:
    """The vector variant of one self-looping block, generated per (vtype, vl) on first
    use and rebuilt if a closure it relies on has since run at another vtype or vl."""

    __slots__ = ("comp", "blk", "cond", "fns", "warmed")

    def __init__(self, comp, blk, cond):
        self.comp, self.blk, self.cond, self.fns, self.warmed = comp, blk, cond, {}, set()

    def cold(self) -> bool:
        """True once per (vtype, vl) while no variant exists for it: step one iteration first."""
        s = self.comp.s
        key = (s.vtype, s.vl)
        if self.fns.get(key) is not None or key in self.warmed:
            return False
        self.warmed.add(key)
        return True

    def run(self, T: int, n: int):
        """(iterations, next index, T, stopped early) or None if it does not apply now."""
        s = self.comp.s
        if s.fc[FRM]:
            return None
        key = (s.vtype, s.vl)
        entry = self.fns.get(key)
        if entry is None:
            entry = self._make()
            if entry is None:
                return None
            self.fns[key] = entry
        if entry is False:
            return None
        fn, closures, prog = entry
        for c in closures:
            if c.last[0] != s.vtype or c.last[1] != s.vl:
                return None
        out = fn(n)
        if out is None:
            return None
        i, fell, stopped = out
        blk = self.blk
        taken, fall = blk.tails
        T = replay(self.comp.timing, T, prog, i, taken, fall if fell else taken)
        return i, blk.start + blk.size if fell else blk.start, T, stopped

    def _make(self):
        comp = self.comp
        try:
            out = (source if comp.s.vl <= MAX_VL else c_source)(comp, self.blk, self.cond)
        except Refuse:
            return False
        if out is None:                 # not yet warm: try again next time
            return None
        text, closures, prog, *cb = out
        s = comp.s
        L = lanes(s)
        if cb:                          # the function takes this Body as its default argument CB
            comp.ns["CB"] = cb[0]
        comp.ns.update({"F": L.F, "U": L.U[32], "B": L.B, "ONES": L.tails[32], "FROM": int.from_bytes, "TF": "f",
                        "FM": s.m8[:s.dsize & ~3].cast("f"), "array": array, "FFLAGS": FFLAGS,
                        "_F": array("f", [0.0]), "BF": fpregs.BF, "COPYSIGN": copysign})
        return comp._define(bind_globals(text, comp.ns), "vec"), closures, prog
