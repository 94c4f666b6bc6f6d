"""Signature programs: one body of RISC-V assembly, wrapped the same way for every
target, ending with a dump of the architectural state into a signature region.

The signature is the bytes from `begin_signature` to `end_signature`: the body's own
.data (what it stored), then x0..x31, f0..f31, fcsr, vl, vtype, vcsr and the 32 vector
registers. Spike (the independent reference) writes it with `+signature`; our model
(and later the RTL) reads it from memory. Only what RISC-V defines is compared:

- bodies leave no code address in a register (code sits at 0 on coral and at
  0x80000000 on Spike; data sits at 0x10000 on both, so data addresses agree);
- t6 (x31) belongs to the harness (the dump's base pointer);
- agnostic elements are the implementation's choice (coral writes all ones, Spike keeps
  them, both allowed): the model runs here with `CoralModel(agnostic_ones=False)`, so
  only what RISC-V defines is compared; bodies also use tu, mu where they can;
- vfredusum's order is implementation-defined: bodies do not use it.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
PROGRAMS = HERE / "programs"
EXPECTED = HERE / "expected.json"
DATA_BASE = 0x10000
SPIKE_TEXT = 0x80000000
SPIKE_ISA = "rv32imf_zicsr_zve32f_zvl128b"

_ZERO_X = "".join(f"li x{i}, 0\n" for i in range(1, 32))
_ZERO_F = "".join(f"fmv.w.x f{i}, zero\n" for i in range(32))
PROLOGUE = (_ZERO_X + _ZERO_F + "fscsr zero\ncsrwi vxrm, 0\ncsrwi vxsat, 0\n"
            "li t0, 128\nvsetvli zero, t0, e8, m8, tu, mu\nvmv.v.i v0, 0\nvmv.v.i v8, 0\nvmv.v.i v16, 0\n"
            "vmv.v.i v24, 0\nli t0, 0\nvsetivli zero, 0, e32, m1, tu, mu\n")
# Spike starts with FP and vector state off (mstatus.FS, .VS = 0); coral has no mstatus.
SPIKE_ENABLE = "li t0, 0x2200\ncsrs mstatus, t0\n"

_DUMP_X = "".join(f"sw x{i}, {4 * i}(t6)\n" for i in range(31)) + "sw t6, 124(t6)\n"
_DUMP_F = "".join(f"fsw f{i}, {128 + 4 * i}(t6)\n" for i in range(32))
EPILOGUE = ("la t6, sig_state\n" + _DUMP_X + _DUMP_F +
            "frcsr t5\nsw t5, 256(t6)\ncsrr t5, vl\nsw t5, 260(t6)\ncsrr t5, vtype\nsw t5, 264(t6)\n"
            "csrr t5, vcsr\nsw t5, 268(t6)\naddi t6, t6, 272\n"
            "li t5, 128\nvsetvli zero, t5, e8, m8, tu, mu\n"
            "vse8.v v0, (t6)\naddi t6, t6, 128\nvse8.v v8, (t6)\naddi t6, t6, 128\n"
            "vse8.v v16, (t6)\naddi t6, t6, 128\nvse8.v v24, (t6)\n")
STATE_BYTES = 272 + 512
# Targets without V (the coral RTL so far) zero and dump x, f and fcsr only: the same
# data layout, so the body's data, x, f and fcsr compare with Spike's (SCALAR_FIELDS).
SCALAR_FIELDS = ("data", *(f"x{i}" for i in range(32)), *(f"f{i}" for i in range(32)), "fcsr")
# The coral RTL's vector unit works at SEW = 32: the same zeroing and dump at e32 (vl 32
# at m8 covers a group's 128 bytes as e8's vl 128 does), for bodies that use e32 only.
PROLOGUE_E32 = PROLOGUE.replace("li t0, 128\nvsetvli zero, t0, e8,", "li t0, 32\nvsetvli zero, t0, e32,")
EPILOGUE_E32 = EPILOGUE.replace("li t5, 128\nvsetvli zero, t5, e8,", "li t5, 32\nvsetvli zero, t5, e32,").replace(
    "vse8.v", "vse32.v")
END = {"model": "ebreak\n", "scalar": "ebreak\n", "e32": "ebreak\n",
       "spike": "li t5, 1\nla t6, tohost\nsw t5, 0(t6)\nsw zero, 4(t6)\n1: j 1b\n"}


def wrap(body: str, target: str) -> str:
    """The whole program for `target` ("model", "spike", "scalar": no vector state, or
    "e32": vector state set up and dumped at SEW = 32)."""
    enable = SPIKE_ENABLE if target == "spike" else ""
    prologue, epilogue = ((_ZERO_X + _ZERO_F + "fscsr zero\n",
                           "la t6, sig_state\n" + _DUMP_X + _DUMP_F + "frcsr t5\nsw t5, 256(t6)\n")
                          if target == "scalar" else (PROLOGUE_E32, EPILOGUE_E32) if target == "e32"
                          else (PROLOGUE, EPILOGUE))
    return (".data\n.balign 16\n.globl begin_signature\nbegin_signature:\n"
            ".text\n.globl _start\n_start:\n" + enable + prologue + "# --- body ---\n" + body.rstrip() +
            "\n# --- end of body ---\n.text\n" + epilogue + END[target] +
            f".data\n.balign 16\nsig_state: .zero {STATE_BYTES}\n.globl end_signature\nend_signature:\n"
            ".bss\n.balign 64\n.globl tohost\ntohost: .zero 8\n.globl fromhost\nfromhost: .zero 8\n")


def signature_fields(sig: bytes) -> dict:
    """Name the state at the signature's end; what precedes it is the body's data."""
    if len(sig) < STATE_BYTES:
        raise ValueError(f"signature of {len(sig)} bytes is shorter than the state dump ({STATE_BYTES})")
    data, st = sig[:-STATE_BYTES], sig[-STATE_BYTES:]
    w = np.frombuffer(st[:272], dtype="<u4")
    vec = np.frombuffer(st[272:], dtype=np.uint8).reshape(32, 16)
    out = {"data": data.hex()}
    out.update({f"x{i}": int(w[i]) for i in range(32)})
    out.update({f"f{i}": int(w[32 + i]) for i in range(32)})
    out.update({"fcsr": int(w[64]), "vl": int(w[65]), "vtype": int(w[66]), "vcsr": int(w[67])})
    out.update({f"v{i}": vec[i].tobytes().hex() for i in range(32)})
    return out


def differences(ours: dict, theirs: dict, limit: int = 8) -> list[str]:
    out = []
    for k, v in theirs.items():
        if ours.get(k) != v:
            if k == "data":
                a, b = bytes.fromhex(ours.get(k, "")), bytes.fromhex(v)
                at = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
                out.append(f"data byte {at} (address {DATA_BASE + at:#x}): ours {a[at:at + 4].hex()}, "
                           f"reference {b[at:at + 4].hex()}")
            else:
                fmt = (lambda x: x) if k.startswith("v") and k not in ("vl", "vtype", "vcsr") else hex
                out.append(f"{k}: ours {fmt(ours.get(k))}, reference {fmt(v)}")
        if len(out) >= limit:
            break
    return out


def run_model(source: str, name: str = "program.s") -> dict:
    """Assemble and run on the coral functional model; the signature's fields."""
    from kernelcraft.isa.coral import default_config
    from kernelcraft.simulators.core.backend import MemoryImage
    from kernelcraft.simulators.core.budget import Budget
    from kernelcraft.simulators.coral.assembler import assemble
    from kernelcraft.simulators.coral.machine import CoralModel

    cfg = default_config(ITCM_SIZE=1 << 16, DTCM_BASE=DATA_BASE)
    program = assemble(source, name, cfg)
    result = CoralModel(agnostic_ones=False).run(program, MemoryImage(), cfg, Budget(max_instructions=1_000_000))
    return signature_of(program, result, name)


def signature_of(program, result, name: str = "program.s") -> dict:
    """The signature's fields from a run (any backend) of a wrapped program."""
    if result.error is not None:
        raise RuntimeError(f"{name}: {result.error}")
    lo, hi = program.labels["begin_signature"], program.labels["end_signature"]
    mem = result.memories["dtcm"]
    return signature_fields(bytes(mem[lo - DATA_BASE:hi - DATA_BASE]))


def bodies() -> dict[str, str]:
    """Hand-written bodies (programs/*.s) and the random ones (randprog.py), by name."""
    from randprog import SEEDS, random_body
    out = {p.stem: p.read_text() for p in sorted(PROGRAMS.glob("*.s"))}
    out.update({f"random_{s}": random_body(s) for s in SEEDS})
    return out


def load_expected() -> dict:
    return json.loads(EXPECTED.read_text())
