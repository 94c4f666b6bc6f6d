"""What only aie has, loaded from its TOML files and validated: the slot and register
file of every operation, the bundle rules, DMA descriptor fields, shuffle modes and the
function unit's tables. A bad edit to the data fails here, naming file:line and the
record (ISADataError), like the generic loader.
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from kernelcraft.isa import expr
from kernelcraft.isa.loader import ISA, ISADataError, InstrDef, get_isa

ROOT = Path(__file__).resolve().parent
MEMORY_KINDS = ("ptr",)          # operand kinds written as [pN]
POSTMOD_FORM = "postmod"


@dataclass(frozen=True)
class Slot:
    name: str
    cls: str
    doc: str


@dataclass(frozen=True)
class RegFile:
    name: str
    units: str            # the file the hazard and port rules count
    alias: str = ""       # "", "half" (w: halves of x) or "pair" (y: pairs of x)
    zero: int | None = None   # register that always reads 0
    doc: str = ""


@dataclass(frozen=True)
class Rule:
    name: str
    doc: str
    count: str = ""       # "reads" | "writes" | "" (the one-writer rule)
    files: tuple[str, ...] = ()
    limit: int = 0


@dataclass(frozen=True)
class StateReg:
    name: str
    doc: str
    initial: int
    names: dict


@dataclass(frozen=True)
class OpInfo:
    """An operation's aie-only facts, next to its generic record."""

    defn: InstrDef
    slot: str                      # slot class
    syntax: str                    # operands as written, e.g. "{d}, [{p}][, {pm}]"
    reads: tuple[str, ...]         # operand names (registers) and state names read
    writes: tuple[str, ...]        # operand names and state names written
    accumulates: str = ""          # operand whose accumulator is the multiply-accumulate input
    bytes: int = 0                 # memory access size (0: none)
    align: int = 1
    store: bool = False
    post: str = ""                 # the post-modify operand

    @property
    def mnemonic(self) -> str:
        return self.defn.mnemonic

    def written_syntax(self) -> str:
        text = re.sub(r"\{(\w+)\}", lambda m: m.group(1), self.syntax)
        return f"{self.mnemonic} {text}".strip()


@dataclass(frozen=True)
class DmaField:
    name: str
    kind: str             # "int" | "lock"
    doc: str
    min: int | None = None
    max: int | None = None
    even: bool = False
    default: str | None = None


@dataclass(frozen=True)
class ShuffleMode:
    name: str
    value: int
    bits: int
    src: str
    doc: str
    index: np.ndarray = field(compare=False, repr=False)   # output lane -> pair lane


@dataclass
class AieSpec:
    isa: ISA
    ops: dict[str, OpInfo]
    slots: list[Slot]
    header_fields: dict[str, tuple[int, int]]
    max_ops: int
    files: dict[str, RegFile]
    state: dict[str, StateReg]
    rules: list[Rule]
    dma_fields: list[DmaField]
    dma_channels: dict[str, int]
    dma_doc: str
    descriptors: int
    shuffles: dict[int, ShuffleMode]
    tables: dict[str, tuple[np.ndarray, np.ndarray, str]]
    kind_attrs: dict[str, dict]

    def file_of(self, kind_name: str) -> RegFile | None:
        """The register file an operand kind names (None for immediates and locks)."""
        if kind_name in self.files:
            return self.files[kind_name]
        if kind_name in MEMORY_KINDS:
            return self.files["p"]
        return None

    def slot_classes(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for s in self.slots:
            out[s.cls] = out.get(s.cls, 0) + 1
        return out

    def constants(self) -> dict[str, int]:
        """Names the assembler accepts in expressions besides parameters: shuffle modes
        and the values of named state (rounding modes)."""
        names = {m.name: m.value for m in self.shuffles.values()}
        for st in self.state.values():
            names.update(st.names)
        return names


# --- loading -------------------------------------------------------------------------

def _lines(text: str, table: str) -> list[int]:
    return [i + 1 for i, line in enumerate(text.splitlines()) if line.strip() == f"[[{table}]]"]


def _read(name: str) -> tuple[dict, str]:
    path = ROOT / name
    text = path.read_text()
    return tomllib.loads(text), text


def _where(name: str, lines: list[int], i: int) -> str:
    return f"isa/aie/{name}:{lines[i] if i < len(lines) else '?'}"


def _ops(isa: ISA, slot_classes: set[str], files: dict[str, RegFile], state: dict) -> dict[str, OpInfo]:
    fmt, _ = _read("formats.toml")
    ops = {}
    for group in fmt["instruction_files"]:
        data, text = _read(f"{group}.toml")
        lines = _lines(text, "instruction")
        for i, rec in enumerate(data.get("instruction", [])):
            mn = rec["mnemonic"]
            ctx = f"{_where(f'{group}.toml', lines, i)}: {mn}"
            d = isa.instructions[mn]
            if d.unit not in slot_classes:
                raise ISADataError(f"{ctx}: unit {d.unit!r} is not a slot class "
                                   f"({', '.join(sorted(slot_classes))})")
            names = {op.name: op for op in d.operands}
            for key in ("syntax", "reads", "writes"):
                if key not in rec:
                    raise ISADataError(f"{ctx}: missing '{key}'")
            used = re.findall(r"\{(\w+)\}", rec["syntax"])
            if sorted(used) != sorted(names):
                raise ISADataError(f"{ctx}: syntax {rec['syntax']!r} names {used}, operands are "
                                   f"{sorted(names)}")
            for key in ("reads", "writes"):
                for n in rec[key]:
                    if n in state:
                        continue
                    if n not in names:
                        raise ISADataError(f"{ctx}: {key} names {n!r}, which is neither an operand "
                                           f"nor machine state ({', '.join(state)})")
                    kname = names[n].kind.name
                    if kname not in files and kname not in MEMORY_KINDS:
                        raise ISADataError(f"{ctx}: {key} names {n!r} of kind {kname}, which is not "
                                           "a register")
            acc = rec.get("accumulates", "")
            if acc and (acc not in rec["reads"] or acc not in rec["writes"]):
                raise ISADataError(f"{ctx}: accumulates {acc!r} must be read and written")
            mem = [op for op in d.operands if op.kind.name in MEMORY_KINDS]
            nbytes, align, post = rec.get("bytes", 0), rec.get("align", 1), rec.get("post", "")
            if mem and not nbytes:
                raise ISADataError(f"{ctx}: a memory operation needs 'bytes' and 'align'")
            if post and (post not in names or names[post].kind.name != "postmod"):
                raise ISADataError(f"{ctx}: post {post!r} is not a postmod operand")
            if nbytes and (align < 1 or align & (align - 1)):
                raise ISADataError(f"{ctx}: align {align} must be a power of two")
            ops[mn] = OpInfo(d, d.unit, rec["syntax"], tuple(rec["reads"]), tuple(rec["writes"]),
                             acc, nbytes, align, d.unit == "store", post)
    missing = set(isa.instructions) - set(ops)
    if missing:
        raise ISADataError(f"isa/aie: records without aie data: {sorted(missing)}")
    return ops


def _bundle() -> tuple:
    data, text = _read("bundle.toml")
    slots = [Slot(s["name"], s["class"], s.get("doc", "")) for s in data["slot"]]
    files = {n: RegFile(n, f["units"], f.get("alias", ""), f.get("zero"), f.get("doc", ""))
             for n, f in data["files"].items()}
    for f in files.values():
        if f.units not in files or files[f.units].units != f.units:
            raise ISADataError(f"isa/aie/bundle.toml: file {f.name}: units {f.units!r} is not a base file")
        if f.alias not in ("", "half", "pair"):
            raise ISADataError(f"isa/aie/bundle.toml: file {f.name}: alias {f.alias!r} unknown")
    state = {n: StateReg(n, s.get("doc", ""), s.get("initial", 0), dict(s.get("names", {})))
             for n, s in data.get("state", {}).items()}
    lines = _lines(text, "rule")
    rules = []
    for i, r in enumerate(data.get("rule", [])):
        rule = Rule(r["name"], r.get("doc", ""), r.get("count", ""), tuple(r.get("files", ())),
                    r.get("limit", 0))
        bad = [f for f in rule.files if f not in files or files[f].units != f]
        if bad or rule.count not in ("", "reads", "writes") or (rule.count and rule.limit < 1):
            raise ISADataError(f"{_where('bundle.toml', lines, i)}: rule {rule.name}: needs count "
                               f"reads|writes, base files and a positive limit")
        rules.append(rule)
    header = data["header"]
    return slots, dict((k, tuple(v)) for k, v in header["fields"].items()), header["max_ops"], \
        files, state, rules


def _dma() -> tuple:
    data, text = _read("dma.toml")
    lines = _lines(text, "field")
    fields, seen = [], set()
    for i, f in enumerate(data["field"]):
        ctx = f"{_where('dma.toml', lines, i)}: field {f.get('name', '?')}"
        if f["kind"] not in ("int", "lock"):
            raise ISADataError(f"{ctx}: kind must be int or lock")
        default = f.get("default")
        if default is not None and f["kind"] == "int":
            for name in re.findall(r"[A-Za-z_]\w*", default):
                if name not in seen:
                    raise ISADataError(f"{ctx}: default {default!r} uses {name!r}, not an earlier field")
        fields.append(DmaField(f["name"], f["kind"], f.get("doc", ""), f.get("min"), f.get("max"),
                               f.get("even", False), default))
        seen.add(f["name"])
    ch = data["channels"]
    return fields, {"in": ch["in"], "out": ch["out"]}, ch.get("doc", ""), data["descriptors"]


def _shuffles() -> dict[int, ShuffleMode]:
    data, text = _read("shuffles.toml")
    lines = _lines(text, "mode")
    modes = {}
    for i, m in enumerate(data["mode"]):
        ctx = f"{_where('shuffles.toml', lines, i)}: mode {m.get('name', '?')}"
        bits = m["bits"]
        if bits not in (8, 16, 32):
            raise ISADataError(f"{ctx}: bits must be 8, 16 or 32")
        n = 512 // bits
        idx = []
        for lane in range(n):
            try:
                v = expr.evaluate(m["src"], lambda name, lane=lane: lane if name == "i" else None)
            except expr.ExprError as e:
                raise ISADataError(f"{ctx}: src {m['src']!r}: {e.message}") from None
            if not 0 <= v < 2 * n:
                raise ISADataError(f"{ctx}: src gives {v} for lane {lane}, outside the pair's 0..{2 * n - 1}")
            idx.append(v)
        if m["value"] in modes:
            raise ISADataError(f"{ctx}: value {m['value']} used twice")
        modes[m["value"]] = ShuffleMode(m["name"], m["value"], bits, m["src"], m.get("doc", ""),
                                        np.array(idx, dtype=np.intp))
    return modes


def _tables() -> dict:
    data, _ = _read("functions.toml")
    out = {}
    for fn, t in data["table"].items():
        arrs = []
        for key in ("off", "slope"):
            vals = [int(h, 16) for h in t[key]]
            if len(vals) != t["segments"]:
                raise ISADataError(f"isa/aie/functions.toml: table {fn}: {key} has {len(vals)} "
                                   f"entries, segments = {t['segments']}")
            arrs.append(np.array(vals, dtype=np.uint32).view(np.float32))
        out[fn] = (arrs[0], arrs[1], t.get("doc", ""))
    return out


def _kind_attrs() -> dict[str, dict]:
    data, _ = _read("formats.toml")
    known = ("doc", "prefix", "count", "min", "max", "signed", "reserved")
    return {n: {k: v for k, v in kd.items() if k not in known} for n, kd in data["kinds"].items()}


@lru_cache(maxsize=None)
def get_spec() -> AieSpec:
    isa = get_isa("aie")
    slots, header, max_ops, files, state, rules = _bundle()
    if max_ops != len(slots):
        raise ISADataError(f"isa/aie/bundle.toml: max_ops = {max_ops} but there are {len(slots)} slots")
    ops = _ops(isa, {s.cls for s in slots}, files, state)
    dma_fields, channels, dma_doc, descriptors = _dma()
    return AieSpec(isa=isa, ops=ops, slots=slots, header_fields=header, max_ops=max_ops,
                   files=files, state=state, rules=rules, dma_fields=dma_fields,
                   dma_channels=channels, dma_doc=dma_doc, descriptors=descriptors,
                   shuffles=_shuffles(), tables=_tables(), kind_attrs=_kind_attrs())
