"""Operands of coral instructions: matching written operands to a syntax template,
registers, enumerated names, immediates with relocation operators (%hi, %lo,
%pcrel_hi, %pcrel_lo), branch targets, expressions and numeric labels, and the hints
that go with every error. Part of `_Assembler` (assembler.py)."""
from __future__ import annotations

import bisect
import re

from kernelcraft.isa.loader import InstrDef, Kind, Operand, PseudoDef
from kernelcraft.simulators.core import asmtext
from kernelcraft.simulators.core.asmtext import ExprError, Line, Piece, clip, suggest

from .encoding import field_ok
from .source import LOCAL_PREFIX, LOCAL_REF, local_name
from .tables import Slot, kind_range

RELOCS = ("hi", "lo", "pcrel_hi", "pcrel_lo")
_RELOC = re.compile(r"\s*%(\w+)\s*\(")
_DIV = re.compile(r"(?<!/)/(?!/)")


def _a(word: str) -> str:
    return ("an " if word[:1].lower() in "aefhilmnorsx" else "a ") + word


def kind_words(kind: Kind) -> str:
    if kind.is_register:
        return f"{kind.prefix} register ({kind.prefix}0..{kind.prefix}{kind.count - 1} or ABI name)" \
            if kind.aliases else f"{kind.prefix} register ({kind.prefix}0..{kind.prefix}{kind.count - 1})"
    if kind.pcrel:
        return "a label or address"
    if kind.names and not kind.numbers:
        return f"one of {kind_range(kind)}"
    return f"{kind.name} {kind_range(kind)}"


def syntax_hint(d: InstrDef | PseudoDef) -> str:
    ops = ", ".join(f"{op.name}: {kind_words(op.kind)}" for op in d.operands)
    out = f"syntax: {d.syntax}" + (f"  ({ops})" if ops else "")
    example = getattr(d, "example", "")
    first = next((ln.split("#")[0].strip() for ln in example.splitlines()
                  if ln.split("#")[0].strip().startswith(d.mnemonic + " ")), "")
    return out + (f"; e.g. {first}" if first else "")


def sext12(v: int) -> int:
    return ((v & 0xFFF) ^ 0x800) - 0x800


def hi20(v: int) -> int:
    return ((v + 0x800) >> 12) & 0xFFFFF



class OperandMixin:
    def candidates(self, mn: str) -> list:
        out = [self.t.defs[mn]] if mn in self.t.defs else []
        return out + list(self.t.pseudos.get(mn, ()))

    def slots_of(self, d) -> tuple[Slot, ...]:
        return self.t.slots[d.mnemonic] if isinstance(d, InstrDef) else self.t.pseudo_slots[id(d)]

    def assign(self, d, pieces: list[Piece]) -> list[tuple[Slot, Piece | None]] | None:
        """Pair the written operands with the template's slots, or None if the count or
        shapes cannot match (a memory operand needs parentheses, a literal its text)."""
        slots = self.slots_of(d)
        ops = {op.name: op for op in d.operands}
        required = sum(1 for s in slots if s.group < 0)
        out, i, n = [], 0, len(pieces)
        taken: dict[int, bool] = {}
        for k, s in enumerate(slots):
            if s.group >= 0:
                if s.group not in taken:
                    left_required = sum(1 for s2 in slots[k:] if s2.group < 0)
                    take = i < n and n - i > left_required
                    if take and self.enum_slot(s, ops) and pieces[i].text.lower() not in \
                            ops[s.names[0]].kind.name_values:
                        # a word no later optional slot knows either: take it here, so the
                        # operand check names what it should have been
                        later = [s2 for s2 in slots[k + 1:] if s2.group >= 0 and self.enum_slot(s2, ops)]
                        take = not any(pieces[i].text.lower() in ops[s2.names[0]].kind.name_values
                                       for s2 in later)
                    taken[s.group] = take
                if not taken[s.group]:
                    out.append((s, None))
                    continue
            if i >= n:
                return None
            p = pieces[i]
            i += 1
            if s.kind == "mem" and not self.mem_shaped(p.text):
                return None
            if s.kind == "lit" and p.text.lower() != s.text.lower():
                return None
            if s.kind == "op" and self.mem_shaped(p.text):
                return None
            out.append((s, p))
        if i != n or required > n:
            return None
        return out

    def mem_shaped(self, text: str) -> bool:
        """`offset(reg)` or `(reg)`: ends with a register name in parentheses."""
        if not text.endswith(")") or "(" not in text:
            return False
        return text[text.rindex("(") + 1:-1].strip().lower() in self.t.registers

    @staticmethod
    def enum_slot(s: Slot, ops: dict) -> bool:
        kind = ops[s.names[0]].kind if s.kind == "op" else None
        return bool(kind and kind.names and not kind.is_register and not kind.numbers)

    def choose(self, mn: str, pieces: list[Piece]):
        cands = self.candidates(mn)
        for d in cands:
            if self.assign(d, pieces) is not None:
                return d
        return cands[0]            # reports the errors against the instruction itself

    def choose_case(self, p: PseudoDef, pieces: list[Piece]) -> int:
        pairs = self.assign(p, pieces)
        if pairs is None:
            return len(p.cases) - 1
        texts = {s.names[0]: pc.text for s, pc in pairs if pc is not None and s.kind == "op"}
        for k, case in enumerate(p.cases):
            if not case.when or self.condition(case.when, texts, p):
                return k
        return len(p.cases) - 1

    def condition(self, when: str, texts: dict[str, str], p: PseudoDef) -> bool:
        m = re.fullmatch(r"(\w+)\((\w+)(?:,\s*(\w+))?\)", when.strip())
        if not m or m.group(2) not in texts:
            raise AssertionError(f"pseudo {p.mnemonic}: unknown condition {when!r} ({p.source})")
        value = self.try_value(texts[m.group(2)])
        if value is None:
            return False
        value = ((value & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000
        if m.group(1) == "fits":
            return field_ok(self.t.kinds[m.group(3)], value)
        if m.group(1) == "low12_zero":
            return value & 0xFFF == 0
        raise AssertionError(f"pseudo {p.mnemonic}: unknown condition {when!r} ({p.source})")

    def try_value(self, text: str) -> int | None:
        """The value of `text` if it can be known now (no error reported)."""
        m = _RELOC.match(text)
        try:
            if m and m.group(1) in ("hi", "lo") and text.rstrip().endswith(")"):
                v = asmtext.evaluate(text[m.end():text.rstrip().rindex(")")], self.lookup)
                return hi20(v) if m.group(1) == "hi" else sext12(v)
            return asmtext.evaluate(text, self.lookup)
        except ExprError:
            return None

    def lookup(self, name: str) -> int | None:
        if name == ".":
            return self.here
        v = self.constants.get(name)
        if v is not None:
            return v
        if self.pass2:
            v = self.addresses.get(name)
            if v is None:
                v = self.linker.get(name)
            if v is not None:
                return v
        return self.params.get(name)

    def unknown(self, name: str) -> tuple[str, str]:
        if name.lower() in self.t.registers:
            return (f"register {name} cannot be used inside an expression",
                    "expressions are evaluated by the assembler; registers hold run-time values")
        if name.startswith(LOCAL_PREFIX):
            number = name[len(LOCAL_PREFIX):].split("$")[0]
            return (f"numeric label reference has no matching label '{number}:'",
                    f"{number}b refers to the nearest '{number}:' before, {number}f to the nearest after")
        later = self.later_constants.get(name)
        if later is not None:
            return (f"constant '{name}' has no value here (defined at line {later})",
                    "a size or alignment must be known when it is reached: define the constant first")
        if not self.pass2 and name in self.labels:
            return (f"label '{name}' cannot be used here: sizes, alignments and constants must be known in "
                    "the first pass", "use a number or a constant defined with .equ")
        known = [*self.constants, *self.addresses, *self.params]
        near = suggest(name, [k for k in known if not k.startswith(LOCAL_PREFIX)])
        hint = f"did you mean {' or '.join(near)}? " if near else ""
        hint += "names are labels, constants (.equ / .set / name = value) and hardware parameters"
        return f"unknown name '{clip(name)}'", hint

    def local_refs(self, text: str, seq: int) -> str:
        if not LOCAL_REF.search(text):
            return text

        def sub(m):
            defs = self.locals.get(m.group(1), [])
            if m.group(2) == "b":
                k = bisect.bisect_right(defs, seq) - 1
            else:
                k = bisect.bisect_right(defs, seq)
            if 0 <= k < len(defs):
                return local_name(m.group(1), k)
            return local_name(m.group(1), "none")
        return LOCAL_REF.sub(sub, text)

    def expression(self, line: Line, piece: Piece, seq: int | None = None) -> int | None:
        text = self.local_refs(piece.text, self.seq if seq is None else seq)
        if "/" in text:                 # GNU's integer division is '/'
            text = _DIV.sub("//", text)
        try:
            return asmtext.evaluate(text, self.lookup, self.unknown)
        except ExprError as e:
            self.error(line, piece.column + min(e.offset, len(piece.text)), e.message, e.hint)
            return None

    def reloc_value(self, line: Line, piece: Piece, pc: int) -> int | None:
        """An immediate that may be a relocation operator: %hi(x), %lo(x), %pcrel_hi(x),
        %pcrel_lo(label-of-auipc)."""
        m = _RELOC.match(piece.text)
        if not m:
            return self.expression(line, piece)
        name = m.group(1)
        depth, close = 1, -1
        for k in range(m.end(), len(piece.text)):
            ch = piece.text[k]
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0:
                close = k
                break
        if close < 0:
            self.error(line, piece.column + len(piece.text), f"missing ')' after %{name}(",
                       "write %lo(symbol)")
            return None
        if piece.text[close + 1:].strip():
            self.error(line, piece.column + close + 1, f"unexpected text after %{name}(...)",
                       f"put the whole expression inside: %{name}(symbol + 4)")
            return None
        if name not in RELOCS:
            self.error(line, piece.column + 1, f"unknown relocation operator %{clip(name)}",
                       f"coral knows {', '.join('%' + r for r in RELOCS)}")
            return None
        inner = Piece(piece.text[m.end():close], piece.column + m.end())
        v = self.expression(line, inner)
        if v is None:
            return None
        if name == "hi":
            return hi20(v)
        if name == "lo":
            return sext12(v)
        if name == "pcrel_hi":
            return hi20(v - pc)
        if self.ctx is not None:                      # inside la/call/...: this expansion's auipc
            return sext12(v - self.expansion_pc)
        target = self.pcrel_hi.get(v)
        if target is None:
            self.error(line, inner.column, f"%pcrel_lo({clip(inner.text)}) does not name an auipc with "
                       "%pcrel_hi before it", "label the auipc (`1: auipc a0, %pcrel_hi(sym)`) and write "
                       "%pcrel_lo(1b); or use la / lw rd, sym")
            return None
        return sext12(target - v)

    def operands(self, line: Line, d, pieces: list[Piece], eol: int, pc: int, written: str) -> dict | None:
        """Operand values of `d` (an instruction or pseudo) from the written pieces, or
        None after reporting every problem found."""
        self.last_pcrel_hi = None
        pairs = self.assign(d, pieces)
        if pairs is None:
            self.shape_error(line, d, pieces, eol, written)
            return None
        ops, ok = {}, True
        for s, piece in pairs:
            if piece is None:
                for name in s.names:
                    if name:
                        op = next(o for o in d.operands if o.name == name)
                        ops[name] = op.kind.default
                continue
            if s.kind == "lit":
                continue
            if s.kind == "mem":
                off_name, base_name = s.names
                off_text, base_text, base_col = self.split_mem(piece)
                base = next(o for o in d.operands if o.name == base_name)
                v = self.operand(line, d, base, Piece(base_text, base_col), pc, written)
                ok &= v is not None
                ops[base_name] = v
                if off_name:
                    off = next(o for o in d.operands if o.name == off_name)
                    if off_text.strip():
                        lead = len(off_text) - len(off_text.lstrip())
                        v = self.operand(line, d, off, Piece(off_text.strip(), piece.column + lead), pc, written)
                        ok &= v is not None
                    else:
                        v = 0
                    ops[off_name] = v
                elif off_text.strip():
                    self.error(line, piece.column, f"{written} takes no offset here: write ({base_text})",
                               syntax_hint(d))
                    ok = False
                continue
            op = next(o for o in d.operands if o.name == s.names[0])
            if piece.inferred:
                self.error(line, piece.column, f"missing comma before '{clip(piece.text)}'", syntax_hint(d))
                ok = False
            v = self.operand(line, d, op, piece, pc, written)
            ok &= v is not None
            ops[op.name] = v
        return ops if ok else None

    def split_mem(self, piece: Piece) -> tuple[str, str, int]:
        text = piece.text
        depth, open_at = 0, -1
        for k in range(len(text) - 1, -1, -1):
            depth += text[k] == ")"
            depth -= text[k] == "("
            if depth == 0:
                open_at = k
                break
        inner = text[open_at + 1:-1]
        lead = len(inner) - len(inner.lstrip())
        return text[:open_at], inner.strip(), piece.column + open_at + 1 + lead

    def shape_error(self, line: Line, d, pieces: list[Piece], eol: int, written: str) -> None:
        slots = self.slots_of(d)
        ops = {op.name: op for op in d.operands}
        need = sum(1 for s in slots if s.group < 0)
        most = len(slots)
        hint = self.hint_for(written)
        n = len(pieces)
        if not need <= n <= most:
            where = pieces[most].column if n > most else eol
            count = f"{need}" if need == most else f"{need} to {most}"
            self.error(line, where, f"{written} takes {count} operand{'s' if most != 1 else ''}, got {n}", hint)
            return
        for k, s in enumerate(slots[:n]):
            p = pieces[k]
            if s.kind == "mem" and not self.mem_shaped(p.text):
                base = s.names[1]
                self.error(line, p.column, f"expected a memory operand offset({base}) for {written}, got "
                           f"'{clip(p.text)}'", f"write e.g. 0({ops[base].kind.aliases[10] if ops[base].kind.aliases else 'a0'})"
                           f" -- the base register in parentheses. " + hint)
                return
            if s.kind == "lit" and p.text.lower() != s.text.lower():
                self.error(line, p.column, f"expected '{s.text}' here, got '{clip(p.text)}'", hint)
                return
            if s.kind == "op" and self.mem_shaped(p.text):
                self.error(line, p.column, f"'{clip(p.text)}' is a memory operand; {written} expects "
                           f"{_a(ops[s.names[0]].kind.prefix + ' register')} here", hint)
                return
        self.error(line, pieces[0].column if pieces else eol,
                   f"these operands do not match any form of {written}", hint)

    def hint_for(self, written: str) -> str:
        cands = self.candidates(written.lower())
        if not cands:
            return ""
        if len(cands) == 1:
            return syntax_hint(cands[0])
        return "forms: " + "; ".join(f"`{c.syntax}`" for c in cands)

    def operand(self, line: Line, d, op: Operand, p: Piece, pc: int, written: str) -> int | None:
        kind, text = op.kind, p.text
        reg = self.t.registers.get(text.lower())
        where = f"{op.name} of {written}"
        if kind.is_register:
            if reg is not None:
                if reg[0] is kind:
                    return reg[1]
                self.error(line, p.column, f"{text} is {_a(reg[0].prefix + ' register')}; {where} must be "
                           f"{_a(kind.prefix + ' register')}", lambda: f"{op.name}: {kind.doc}. " + self.hint_for(written))
                return None
            self.bad_register(line, d, op, p, written)
            return None
        if reg is not None:
            if kind.name == "addr" and any(isinstance(c, InstrDef) for c in self.candidates(written)):
                self.error(line, p.column, f"{written} needs a memory operand offset({text}) or a label, "
                           f"got the register {text}", lambda: self.hint_for(written))
                return None
            self.error(line, p.column, f"register {text} where {where} expects {kind_words(kind)}",
                       lambda: self.hint_for(written))
            return None
        if kind.names and not kind.numbers:
            v = kind.name_values.get(text.lower())
            if v is None:
                near = suggest(text, [n for n, _ in kind.names])
                self.error(line, p.column, f"'{clip(text)}' is not a valid {op.name} for {written}: expected "
                           f"{kind_range(kind)}", (f"did you mean {near[0]}? " if near else "") + kind.doc)
            return v
        if kind.numbers:
            v = kind.name_values.get(text.lower())
            if v is not None:
                return v
        if kind.pcrel:
            target = self.expression(line, p)
            if target is None:
                return None
            off = target - pc
            if off % kind.align:
                self.error(line, p.column, f"target 0x{target & 0xFFFFFFFF:x} of {written} is not a multiple of "
                           f"{kind.align} bytes from it", "jump to an instruction label")
                return None
            if not kind.min <= off <= kind.max:
                far = "use `j` / `jal` (+-1 MiB) or `call` / `tail` (any distance)" if kind.max < 5000 else \
                    "use `call` / `tail` (auipc + jalr) for any distance"
                self.error(line, p.column, f"target is {off} bytes away; {written} reaches {kind.min}..{kind.max}",
                           f"{far}; for a far conditional branch invert it around a jump: "
                           "`bne a0, a1, 1f; j target; 1:`")
                return None
            return off
        v = self.reloc_value(line, p, pc)
        if v is None:
            return None
        if d.mnemonic == "auipc" and isinstance(d, InstrDef) and p.text.lstrip().startswith("%pcrel_hi"):
            inner = p.text[p.text.index("(") + 1:p.text.rindex(")")]
            self.last_pcrel_hi = self.try_value(self.local_refs(inner, self.seq))
        if not (kind.min <= v <= kind.max) or v % kind.align:
            self.error(line, p.column, f"{where} out of range: {v} is not {kind_range(kind)} ({kind.name})",
                       lambda: self.range_hint(d, op, v))
            return None
        return v

    def bad_register(self, line: Line, d, op: Operand, p: Piece, written: str) -> None:
        kind, text = op.kind, p.text
        m = re.fullmatch(r"([a-z]+)(\d+)", text.lower())
        if m and any(k.prefix == m.group(1) for k in self.t.isa.register_kinds()):
            other = next(k for k in self.t.isa.register_kinds() if k.prefix == m.group(1))
            self.error(line, p.column, f"{text} does not exist: registers are {other.prefix}0..{other.prefix}{other.count - 1}",
                       lambda: self.hint_for(written))
            return
        value = self.try_value(text) if asmtext.NAME_RE.fullmatch(text) is None else None
        if value is not None:
            self.error(line, p.column, f"expected {_a(kind.prefix + ' register')} for {op.name} of {written}, "
                       f"got the number '{clip(text)}'",
                       lambda: f"load the value into a register first (li t0, {value}). " + self.hint_for(written))
            return
        near = suggest(text, list(self.t.registers))
        self.error(line, p.column, f"expected {kind_words(kind)} for {op.name} of {written}, got '{clip(text)}'",
                   (f"did you mean {near[0]}? " if near else "") + self.hint_for(written))

    def range_hint(self, d, op: Operand, value: int) -> str:
        kind = op.kind
        hint = f"{op.name}: {kind.doc}."
        if kind.name == "simm12" and -(1 << 31) <= value < (1 << 32):
            return hint + (f" For a larger value load it first: `li t0, {value}` then use the register form "
                           "(add, or an address in a register); for a label use `la` or %hi/%lo.")
        if kind.name == "uimm20" and -(1 << 31) <= value < (1 << 32):
            return hint + f" lui takes the upper 20 bits: write `lui rd, %hi({value})` or use `li rd, {value}`."
        return hint + " " + self.hint_for(d.mnemonic)

    def mnemonic_hint(self, word: str, rest: str) -> str:
        low = word.lower()
        near = suggest(low, self.t.mnemonics, n=3)
        if not near and "." not in low:
            near = [m for m in self.t.mnemonics if m.startswith(low + ".")][:3]
        if near:
            hint = "did you mean " + " or ".join(f"`{self.syntax_of(n)}`" for n in near) + "?"
        else:
            hint = "coral runs RV32IMF and the RVV 1.0 subset Zve32f (see the manual's instruction index)."
        if not rest.strip():
            hint += f" If '{clip(word)}' is meant as a label, end it with a colon: {clip(word)}:"
        return hint

    def syntax_of(self, mn: str) -> str:
        return self.candidates(mn)[0].syntax
