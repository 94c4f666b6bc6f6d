"""Random valid aie programs of scalar, move, load, store and vector bundles (lane ALU,
accumulator lanes, SRS/UPS, the multiply-accumulate family, reductions, shuffles; with
hardware loops and every post-modify mode) and random data-memory images, for differential
testing of the model against the RTL. Each bundle is assembled alone first: one that
breaks a bundle rule is drawn again, so every program is one the assembler accepts."""
from __future__ import annotations

import re

import numpy as np

from kernelcraft.simulators.core.backend import MemoryImage
from kernelcraft.simulators.core.errors import AssemblyError

# The small configuration the RTL tests share (one cold build).
DIFF_CONFIG = {"DM_SIZE": 4096, "DM_BANKS": 4, "IMEM_WORDS": 512}

VEC_PTRS = (0, 1, 2, 3)          # 32-byte aligned, for VLD/VST/ALD/AST
WORD_PTRS = (4, 5)               # 4-byte aligned, for LD/ST/VLDB


def _postmod(rng, unit: int) -> str:
    k = rng.integers(0, 10)
    if k < 4:
        return f", {int(rng.choice([-2, -1, 1, 2])) * unit}"
    if k < 6:
        return f", m{int(rng.integers(0, 4))}"
    if k < 7:
        return f", g{int(rng.integers(0, 2))}"
    return ""


def _load(rng) -> str:
    k = rng.integers(0, 4)
    if k == 0:
        return f"LD r{int(rng.integers(0, 16))}, [p{int(rng.choice(WORD_PTRS))}]{_postmod(rng, 4)}"
    if k == 1:
        return f"VLDB x{int(rng.integers(0, 16))}, [p{int(rng.choice(WORD_PTRS))}]{_postmod(rng, 4)}"
    if k == 2:
        return f"ALD acc{int(rng.integers(0, 8))}, [p{int(rng.choice(VEC_PTRS))}]{_postmod(rng, 32)}"
    return f"VLD x{int(rng.integers(0, 16))}, [p{int(rng.choice(VEC_PTRS))}]{_postmod(rng, 32)}"


def _store(rng) -> str:
    k = rng.integers(0, 3)
    if k == 0:
        return f"ST r{int(rng.integers(0, 16))}, [p{int(rng.choice(WORD_PTRS))}]{_postmod(rng, 4)}"
    if k == 1:
        return f"AST acc{int(rng.integers(0, 8))}, [p{int(rng.choice(VEC_PTRS))}]{_postmod(rng, 32)}"
    return f"VST x{int(rng.integers(0, 16))}, [p{int(rng.choice(VEC_PTRS))}]{_postmod(rng, 32)}"


def _scalar(rng) -> str:
    r = lambda: f"r{int(rng.integers(0, 16))}"
    k = rng.integers(0, 10)
    if k == 9:                 # control: rounding mode, locks (an ACQ may deadlock), HALT
        c = rng.random()
        if c < 0.4:
            return f"SETRM {int(rng.integers(0, 4))}"
        if c < 0.8:
            return f"REL l{int(rng.integers(0, 3))}, {int(rng.integers(0, 24))}"
        if c < 0.97:
            return f"ACQ l{int(rng.integers(0, 3))}, {int(rng.integers(0, 8))}"
        return "HALT"
    if k < 5:
        return f"{['ADD', 'SUB', 'MUL', 'AND', 'OR'][k]} {r()}, {r()}, {r()}"
    if k == 5:
        return f"ADDI {r()}, {r()}, {int(rng.integers(-2048, 2048))}"
    if k == 6:
        return f"{['SLLI', 'SRAI', 'SRLI'][int(rng.integers(0, 3))]} {r()}, {r()}, {int(rng.integers(0, 32))}"
    if k == 7:
        return f"PADDI p{int(rng.integers(6, 8))}, p{int(rng.integers(0, 8))}, {int(rng.integers(-2048, 2048))}"
    return "NOP"


def _move(rng) -> str:
    r = lambda: f"r{int(rng.integers(0, 16))}"
    k = rng.integers(0, 7)
    if k == 0:
        return f"MOVI {r()}, {int(rng.integers(-524288, 524288))}"
    if k == 1:
        return f"MOVHI {r()}, {int(rng.integers(0, 65536))}"
    if k == 2:
        return f"MOV {r()}, {r()}"
    if k == 3:
        return f"VMOV x{int(rng.integers(0, 16))}, x{int(rng.integers(0, 16))}"
    if k == 4:
        return f"VBCST.16 x{int(rng.integers(0, 16))}, {r()}"
    if k == 5:
        return f"ABCST acc{int(rng.integers(0, 3))}, {r()}"
    return f"AMOV acc{int(rng.integers(0, 3))}, acc{int(rng.integers(0, 8))}"


def _vector(rng) -> str:
    x = lambda: f"x{int(rng.integers(0, 16))}"
    w = lambda: f"w{int(rng.integers(0, 32))}"
    y = lambda: f"y{int(rng.integers(0, 8))}"
    # accumulators mostly from a few, so multiplies chain onto each other's results
    acc = lambda: f"acc{int(rng.integers(0, 3) if rng.random() < 0.7 else rng.integers(0, 8))}"
    k = rng.random()
    if k < 0.4:                # multiply-accumulate (aie_mac)
        op = str(rng.choice(["VMUL.I8", "VMUL.I16", "VMUL.BF16", "VMAC.I8", "VMAC.I16",
                             "VMAC.BF16", "VMSC.BF16", "VMMAC.I8", "VMMAC.I16", "VMMAC.BF16"]))
        if op.startswith("VMMAC"):
            return f"{op} {acc()}, {x()}, {y()}"
        return f"{op} {acc()}, {w()}, {w()}" if op.endswith("I8") else f"{op} {acc()}, {x()}, {x()}"
    if k < 0.55:               # conversions
        sh = int(rng.integers(0, 32))
        op = str(rng.choice(["VSRS.I8", "VSRS.I16", "VSRS.BF16", "VUPS.I8", "VUPS.I16", "VUPS.BF16"]))
        if op == "VSRS.I8":
            return f"{op} {w()}, {acc()}, {sh}"
        if op == "VSRS.I16":
            return f"{op} {x()}, {acc()}, {sh}"
        if op == "VUPS.I8":
            return f"{op} {acc()}, {w()}, {sh}"
        if op == "VUPS.I16":
            return f"{op} {acc()}, {x()}, {sh}"
        return f"{op} {x()}, {acc()}" if op == "VSRS.BF16" else f"{op} {acc()}, {x()}"
    if k < 0.65:               # accumulator lanes
        op = str(rng.choice(["AADD.I32", "ASUB.I32", "AADD.F32", "ASUB.F32", "AMUL.F32", "AMAX.F32"]))
        return f"{op} {acc()}, {acc()}, {acc()}"
    if k < 0.72:               # reductions (aie_reduce), onto registers loads also write
        op = str(rng.choice(["AREDADD.F32", "AREDADD.I32", "VREDMAX.BF16"]))
        return f"{op} {x()}, {x()}" if op == "VREDMAX.BF16" else f"{op} {acc()}, {acc()}"
    if k < 0.80:               # shuffles (aie_shuf)
        op = str(rng.choice(["VSHUF", "VALIGN", "VBCL.16"]))
        if op == "VBCL.16":
            return f"{op} {x()}, {x()}, {int(rng.integers(0, 32))}"
        return f"{op} {x()}, {x()}, {x()}, {int(rng.integers(0, 16 if op == 'VSHUF' else 64))}"
    op = rng.choice(["VADD.I8", "VADD.I16", "VSUB.I8", "VSUB.I16", "VMAX.I8", "VMAX.I16",
                     "VMIN.I8", "VMIN.I16", "VAND", "VOR", "VXOR", "VMAX.BF16", "VMIN.BF16"])
    return f"{op} {x()}, {x()}, {x()}"


def _bundle(rng) -> str:
    ops = []
    for make, p in ((_load, 0.5), (_load, 0.2), (_store, 0.35), (_scalar, 0.5), (_vector, 0.35),
                    (_move, 0.4)):
        if rng.random() < p:
            ops.append(make(rng))
    return " || ".join(ops) or "NOP"


def _setup(rng, cfg) -> list[str]:
    """Pointers into data memory, r1..r7, the modifiers and two address generators."""
    size = cfg.DM_SIZE
    lines = []
    for p in VEC_PTRS:
        lines.append(f"MOVPI p{p}, {int(rng.integers(8, size // 32 - 8)) * 32}")
    for p in WORD_PTRS:
        lines.append(f"MOVPI p{p}, {int(rng.integers(64, size // 4 - 64)) * 4}")
    for i in range(1, 8):
        lines.append(f"MOVI r{i}, {int(rng.integers(-3000, 3000))}")
    for i in range(4):
        lines.append(f"MOVI r8, {int(rng.choice([-64, -32, 32, 64]))}")
        lines.append(f"MOVM m{i}, r8")
    for g in range(2):
        for field, v in (("INC", 32), ("N1", int(rng.integers(1, 4))), ("J1", -64),
                         ("N2", int(rng.integers(1, 3))), ("J2", 96)):
            lines.append(f"MOVI r9, {v}")
            lines.append(f"GSET.{field} g{g}, r9")
    return lines


def random_program(seed: int, cfg, bundles: int = 40) -> tuple[str, MemoryImage]:
    from kernelcraft.simulators.aie.assembler import assemble
    rng = np.random.default_rng(seed)
    size = cfg.DM_SIZE
    lines = _setup(rng, cfg)
    depth, made = 0, 0
    while made < bundles:
        roll = rng.random()
        if roll < 0.06 and depth < 2:
            lines.append(f"LOOP {int(rng.integers(1, 4))}")
            depth += 1
            lines.append(_checked(rng, assemble, cfg))
            made += 1
            continue
        if roll < 0.12 and depth:
            lines.append("ENDLOOP")
            depth -= 1
            continue
        if roll < 0.13:
            lines.append(f"MOVI r10, {int(rng.integers(1, 3))}")
            lines.append("LOOPR r10")
            lines.append(_checked(rng, assemble, cfg))
            lines.append("ENDLOOP")
            continue
        lines.append(_checked(rng, assemble, cfg))
        made += 1
    lines += ["ENDLOOP"] * depth
    image = MemoryImage({"dm": {0: rng.integers(0, 256, size, dtype=np.uint8)}})
    return "\n".join(lines) + "\n", image


def random_failing_load_program(seed: int, cfg, before: int = 4) -> tuple[str, MemoryImage]:
    """random_program's setup, `before` random bundles, then a bundle of two loads whose
    first or second (drawn) reads p7, set just before to an address no load may use (odd,
    or past the end), with the other slots drawn as in random_program: which load fails
    decides what the bundle commits (the loads, stores and writers the model's order runs
    before it), which the other programs seldom reach."""
    from kernelcraft.simulators.aie.assembler import assemble
    rng = np.random.default_rng(seed)
    lines = _setup(rng, cfg) + [_checked(rng, assemble, cfg) for _ in range(before)]
    bad = (2 * int(rng.integers(8, cfg.DM_SIZE // 2 - 64)) + 1 if rng.random() < 0.5
           else cfg.DM_SIZE + 32 * int(rng.integers(0, 4)))
    lines.append(f"MOVPI p7, {bad}")
    for _ in range(50):
        loads = [_load(rng), _load(rng)]
        failing = int(rng.integers(0, 2))
        loads[failing] = re.sub(r"\[p\d\]", "[p7]", loads[failing])
        ops = loads + [make(rng) for make, p in ((_store, 0.35), (_scalar, 0.5), (_vector, 0.35),
                                                  (_move, 0.4)) if rng.random() < p]
        try:
            assemble(" || ".join(ops) + "\n", config=cfg)
        except AssemblyError:
            continue
        lines.append(" || ".join(ops))
        break
    image = MemoryImage({"dm": {0: rng.integers(0, 256, cfg.DM_SIZE, dtype=np.uint8)}})
    return "\n".join(lines) + "\n", image


def _checked(rng, assemble, cfg) -> str:
    for _ in range(50):
        text = _bundle(rng)
        try:
            assemble(text + "\n", config=cfg)
            return text
        except AssemblyError:
            continue
    return "NOP"


# --- DMA programs ----------------------------------------------------------------------
# Each channel owns one bank of data memory and one region of external memory, so no
# two transfers that may run at once touch the same bytes (the model moves a transfer's
# data at its completion, the RTL beat by beat: only races tell them apart, and the
# model's race check covers the core alone). Input channels write their banks, output
# channels read theirs; the core touches no DMA bytes.
DMA_CHANNELS = (("DMAIN", 0), ("DMAIN", 1), ("DMAOUT", 0), ("DMAOUT", 1))
EXT_REGION = 8192                # external words per channel


def _descriptor(rng, k: int, bank: int, bw: int, spread: bool = False) -> str:
    """A random descriptor inside `bank` bytes and EXT_REGION words: one run of any
    length, runs of whole beats in up to three dimensions (steps of either sign), or
    short runs a beat gathers (their data-memory side compact enough that every beat's
    words stay within four rows whatever the offset). With `spread`, half are short
    runs far apart in data memory (steps of 40 to 160 bytes), whose beats end early to
    keep within four rows."""
    if spread and rng.random() < 0.5:
        n0, n1 = int(rng.integers(1, 4)), int(rng.integers(2, 7))
        ls1 = 2 * int(rng.integers(20, 81))
        return f"n0={n0}, n1={n1}, s1={int(rng.choice([n0, 17]))}, ls1={ls1}", n0, n1, 1
    roll = rng.random()
    if roll < 0.3:
        n0 = int(rng.integers(1, bank // 2 // 3))
        return f"n0={n0}", n0, 1, 1
    if roll < 0.55:
        n0 = int(rng.integers(1, bw))
        n1, n2 = int(rng.integers(1, 9)), int(rng.integers(1, 3))
        s1 = int(rng.choice([1, n0, n0 + 5, -n0 - 7, 37]))
        ls1 = 2 * n0 + 2 * int(rng.integers(0, 5 // n0 + 1))
        s2 = int(rng.choice([n1 * 64, -n1 * 64 - 3]))
        return (f"n0={n0}, n1={n1}, s1={s1}, n2={n2}, s2={s2}, ls1={ls1}, ls2={n1 * ls1}",
                n0, n1, n2)
    n0 = bw * int(rng.integers(1, 4))
    n1, n2 = int(rng.integers(1, 4)), int(rng.integers(1, 3))
    s1 = int(rng.choice([n0, n0 + 3, -n0 - 5]))
    ls1 = 2 * n0 + 2 * int(rng.integers(0, 8))
    return f"n0={n0}, n1={n1}, s1={s1}, n2={n2}, ls1={ls1}", n0, n1, n2


def random_dma_program(seed: int, cfg, ops: int = 24, acq: bool = False, spread: bool = False,
                       fail: bool = False) -> tuple[str, MemoryImage]:
    """Transfers queued on random channels (runs of queue-full stalls), ACQs waiting for
    their releases (or more than will come: a deadlock), REL by the core, HALT, and core
    arithmetic between them. With `acq`, most descriptors also acquire a lock before
    they start (l2..l4, which the core and other transfers release): transfers waiting in
    their queues, taking locks the core's ACQ also waits for, chains of transfers, and
    deadlocks found only when the DMA runs dry or at the program's end. With `spread`,
    descriptors whose beats end early (short runs far apart). With `fail`, an operation
    that stops the run with an error at a random place (transfers still running,
    queued or holding their locks then)."""
    rng = np.random.default_rng(seed)
    if acq or fail:
        src, image = _acq_program(rng, cfg, ops) if acq else random_dma_program(seed, cfg, ops)
        return (_failing(rng, src) if fail else src), image
    bank = cfg.DM_SIZE // cfg.DM_BANKS
    bw = cfg.DMA_BW // 2
    head, body = [], []
    released = [0, 0, 0, 0]                    # l0..l3: what transfers will release
    for k, (op, ch) in enumerate(DMA_CHANNELS):
        fields, n0, n1, n2 = _descriptor(rng, k, bank, bw, spread)
        rel = int(rng.integers(0, 4))
        head.append(f".bd T{k}, ext={k * EXT_REGION + 4096}, loc={k * bank + 64}, {fields}, "
                    f"rel=l{rel}, rel_n={int(rng.integers(1, 3))}")
    rn = [int(line.split("rel_n=")[1]) for line in head]
    rl = [int(line.split("rel=l")[1].split(",")[0]) for line in head]
    for i in range(ops):
        roll = rng.random()
        if roll < 0.5:
            k = int(rng.integers(0, 4))
            op, ch = DMA_CHANNELS[k]
            off = int(rng.integers(-40, 40))
            body.append(f"MOVI r1, {off}")
            body.append(f"MOVI r2, {2 * int(rng.integers(-8, 8))}")
            body.append(f"{op} {ch}, T{k}, r1, r2")
            released[rl[k]] += rn[k]
        elif roll < 0.75:
            lock = int(rng.integers(0, 4))
            n = int(rng.integers(1, 4))
            if released[lock] >= n or rng.random() < 0.05:
                body.append(f"ACQ l{lock}, {n}")
                released[lock] -= n
        elif roll < 0.8:
            lock = int(rng.integers(0, 4))
            body.append(f"REL l{lock}, 1")
            released[lock] += 1
        elif roll < 0.81:
            body.append("HALT")
        else:
            body.append(f"ADDI r{int(rng.integers(3, 8))}, r{int(rng.integers(3, 8))}, "
                        f"{int(rng.integers(-100, 100))}")
    image = MemoryImage({"dm": {0: rng.integers(0, 256, cfg.DM_SIZE, dtype=np.uint8)},
                         "ext": {0: rng.integers(0, 1 << 16, 4 * EXT_REGION, dtype=np.uint16)}})
    return "\n".join(head + body) + "\n", image


# operations that stop a run: a misaligned load, a transfer off external memory, a lock
# released past its maximum (l5: no transfer uses it)
_FAILING = ("MOVPI p7, 6\nLD r3, [p7]", "MOVI r1, 30000\nMOVHI r1, 2000\nDMAIN 1, T1, r1, r0",
            "REL l5, 40\nREL l5, 40")


def _failing(rng, src: str) -> str:
    """`src` with one of _FAILING inserted among its operations (after the .bd lines)."""
    lines = src.splitlines()
    first = sum(1 for ln in lines if ln.startswith(".bd"))
    at = int(rng.integers(first, len(lines) + 1))
    return "\n".join(lines[:at] + [str(rng.choice(_FAILING))] + lines[at:]) + "\n"


def _acq_program(rng, cfg, ops: int) -> tuple[str, MemoryImage]:
    bank = cfg.DM_SIZE // cfg.DM_BANKS
    bw = cfg.DMA_BW // 2
    avail = [0, 0] + [int(rng.integers(0, 3)) for _ in range(3)]    # l0..l4, as queued
    head, body = [], [f"REL l{lock}, {avail[lock]}" for lock in (2, 3, 4) if avail[lock]]
    takes, gives = [], []
    for k in range(4):
        fields = _descriptor(rng, k, bank, bw)[0]
        take = (int(rng.integers(2, 5)), int(rng.integers(1, 3))) if rng.random() < 0.75 else None
        give = (int(rng.integers(0, 5)), int(rng.integers(1, 3)))
        takes.append(take)
        gives.append(give)
        head.append(f".bd T{k}, ext={k * EXT_REGION + 4096}, loc={k * bank + 64}, {fields}"
                    + (f", acq=l{take[0]}, acq_n={take[1]}" if take else "")
                    + f", rel=l{give[0]}, rel_n={give[1]}")
    for _ in range(ops):
        roll = rng.random()
        if roll < 0.5:
            k = int(rng.integers(0, 4))
            op, ch = DMA_CHANNELS[k]
            body += [f"MOVI r1, {int(rng.integers(-40, 40))}",
                     f"MOVI r2, {2 * int(rng.integers(-8, 8))}", f"{op} {ch}, T{k}, r1, r2"]
            if takes[k]:
                avail[takes[k][0]] -= takes[k][1]
            avail[gives[k][0]] += gives[k][1]
        elif roll < 0.7:
            lock, n = int(rng.integers(0, 5)), int(rng.integers(1, 3))
            if avail[lock] >= n or rng.random() < 0.05:      # (else a likely deadlock)
                body.append(f"ACQ l{lock}, {n}")
                avail[lock] -= n
        elif roll < 0.85:
            lock, n = int(rng.integers(2, 5)), int(rng.integers(1, 3))
            body.append(f"REL l{lock}, {n}")
            avail[lock] += n
        elif roll < 0.86:
            body.append("HALT")
        else:
            body.append(f"ADDI r{int(rng.integers(3, 8))}, r{int(rng.integers(3, 8))}, "
                        f"{int(rng.integers(-100, 100))}")
    # mostly free what transfers still wait for (else the run ends stuck)
    body += [f"REL l{lock}, {-avail[lock]}" for lock in (2, 3, 4)
             if avail[lock] < 0 and rng.random() < 0.85]
    image = MemoryImage({"dm": {0: rng.integers(0, 256, cfg.DM_SIZE, dtype=np.uint8)},
                         "ext": {0: rng.integers(0, 1 << 16, 4 * EXT_REGION, dtype=np.uint16)}})
    return "\n".join(head + body) + "\n", image


# --- DMA beats against the core's accesses ------------------------------------------
# A beat takes port B of its macros, or port A when another beat has B; the core waits
# for a port A both ports of which beats hold. out0 and out1 share bank 0, in0 and in1
# bank 1 (their buffers in the first half, on the same macros row by row, queued a
# cycle apart), the core's accesses are in the second halves (mostly of banks 0 and
# 1): no data races, never three beats on one macro, and the core meets full macros at
# every phase of a bundle, bank-conflicting ones included.
# A worked case (tests/simulators/aie/test_ports.py has the cycles): a first access
# waiting, then a bank-conflicting bundle whose second access is held.
PORTS = """.bd T, ext=0, loc=0, n0=64
DMAOUT 0, T, r0, r0
DMAOUT 1, T, r0, r0
MOVPI p0, 512
MOVPI p1, 576
NOP
VLD x1, [p0]
VLD x3, [p0] || VLD x2, [p1]
VADD.I16 x4, x3, x2
"""
_PORT_LOADS = (("LD r{}", 4, 4, 16), ("VLD x{}", 0, 64, 16), ("ALD acc{}", 1, 128, 8))
_PORT_STORES = (("ST r{}", 5, 4, 16), ("VST x{}", 2, 64, 16), ("AST acc{}", 3, 128, 8))


def random_port_program(seed: int, cfg, steps: int = 40) -> tuple[str, MemoryImage]:
    """Transfers on all four channels while bundles of one to three loads and stores
    (some in one bank) run beside them, and readers of what was loaded right after."""
    rng = np.random.default_rng(seed)
    bank = cfg.DM_SIZE // cfg.DM_BANKS
    lines = []
    for k, (op, ch) in enumerate(DMA_CHANNELS):
        n0 = int(rng.integers(bank // 16, bank // 8 + 1))
        lines.append(f".bd T{k}, ext={k * EXT_REGION + 4096}, loc={(1 - k // 2) * bank + (k % 2) * bank // 4}, "
                     f"n0={n0}")

    def addr(n, b):
        return b * bank + bank // 2 + int(rng.integers(0, (bank // 2 - n) // n + 1)) * n

    for _ in range(steps):
        if rng.random() < 0.7:          # both channels of a bank, a cycle apart
            op = str(rng.choice(["DMAIN", "DMAOUT"]))
            lines += [f"{op} {ch}, T{2 * (op == 'DMAOUT') + ch}, r0, r0" for ch in (0, 1)]
        ops = []
        kinds = list(rng.permutation(len(_PORT_LOADS)))[:int(rng.integers(0, 3))]
        picks = [_PORT_LOADS[i] for i in kinds]
        if rng.random() < 0.6 or not picks:
            picks.append(_PORT_STORES[int(rng.integers(0, 3))])
        same = int(rng.integers(0, 2))
        for text, ptr, n, regs in picks:
            b = same if rng.random() < 0.8 else int(rng.integers(0, cfg.DM_BANKS))
            lines.append(f"MOVPI p{ptr}, {addr(n, b)}")
            ops.append(f"{text.format(int(rng.integers(1, regs)))}, [p{ptr}]")
        lines.append(" || ".join(ops))
        if rng.random() < 0.5:
            lines.append(str(rng.choice(["ADD r7, r1, r2", "VADD.I16 x7, x1, x2",
                                         "AADD.I32 acc7, acc1, acc2"])))
    image = MemoryImage({"dm": {0: rng.integers(0, 256, cfg.DM_SIZE, dtype=np.uint8)},
                         "ext": {0: rng.integers(0, 1 << 16, 4 * EXT_REGION, dtype=np.uint16)}})
    return "\n".join(lines) + "\n", image
