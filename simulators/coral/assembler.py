"""coral assembler: GNU RISC-V assembly (RV32IMF + Zve32f) to a Program, driven by
`isa/coral/` (instructions, operand kinds, syntax templates, pseudo-instructions).

Two passes. Pass 1 splits statements, assigns every label an offset in its section
(.text in ITCM at 0; .data, .rodata, .bss in that order at the start of DTCM) and
fixes the size of every statement (a pseudo-instruction's case is chosen here, as GNU
as does: a value not yet known takes the longest case). Pass 2 evaluates operands and
encodes. Every error of a file is collected with line, column and hint, and raised
together as one AssemblyError. Directives: see DIRECTIVES and the manual.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from isa.loader import HardwareConfig, InstrDef, Kind, Operand, PseudoDef
from simulators.core import asmtext
from simulators.core.asmtext import Diagnostics, ExprError, Line, Piece, clip, suggest
from simulators.core.errors import AssemblyError
from simulators.core.program import Instr, Program

from .encoding import encode_ops, field_ok
from .source import LOCAL_PREFIX, LOCAL_REF, Stmt, float_bits, local_name, parse_string, split_statements, take_labels
from .tables import ACCEL, Slot, Tables, default_config, kind_range, memory_base, tables

MAX_DIAGNOSTICS = 50
NOP = 0x00000013
SECTIONS = {".text": "text", ".data": "data", ".sdata": "data", ".rodata": "rodata",
            ".srodata": "rodata", ".bss": "bss", ".sbss": "bss"}
DATA_ORDER = ("data", "rodata", "bss")
DATA_SIZES = {".byte": 1, ".half": 2, ".short": 2, ".2byte": 2, ".word": 4, ".long": 4,
              ".4byte": 4, ".float": 4}
IGNORED = (".globl", ".global", ".local", ".type", ".size", ".file", ".ident", ".attribute",
           ".weak", ".hidden", ".cfi_startproc", ".cfi_endproc", ".addrsig")
DIRECTIVES = (".text", ".data", ".rodata", ".bss", ".section", ".equ", ".set", ".byte", ".half",
              ".short", ".2byte", ".word", ".long", ".4byte", ".float", ".zero", ".space", ".skip",
              ".string", ".asciz", ".ascii", ".align", ".p2align", ".balign", ".option") + IGNORED
RELOCS = ("hi", "lo", "pcrel_hi", "pcrel_lo")
OMITTED = "\x00omitted"

_WORD = re.compile(r"\s*([A-Za-z_.][\w.]*)")
_ASSIGN = re.compile(r"\s*([A-Za-z_.$][\w.$]*)\s*=(?!=)\s*(.*)")
_RELOC = re.compile(r"\s*%(\w+)\s*\(")


def _a(word: str) -> str:
    return ("an " if word[:1].lower() in "aefhilmnorsx" else "a ") + word


def kind_words(kind: Kind) -> str:
    if kind.is_register:
        return f"{kind.prefix} register ({kind.prefix}0..{kind.prefix}{kind.count - 1} or ABI name)" \
            if kind.aliases else f"{kind.prefix} register ({kind.prefix}0..{kind.prefix}{kind.count - 1})"
    if kind.pcrel:
        return "a label or address"
    if kind.names and kind.name != "csr":
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


@dataclass(slots=True)
class _Item:
    stmt: Stmt
    pos: int                     # index in the raw line where the statement body starts
    section: str
    offset: int = 0
    size: int = 0
    kind: str = ""               # "instr" | "directive" | "assign" | "bad"
    name: str = ""               # mnemonic / directive as written
    target: object = None        # InstrDef or PseudoDef
    case: int = 0
    pieces: list = field(default_factory=list)
    args_at: int = 0             # column of the first operand
    seq: int = 0                 # statement number, for numeric labels


class _Assembler:
    def __init__(self, source_name: str, config: HardwareConfig):
        self.t: Tables = tables()
        self.cfg = config
        self.diags = Diagnostics(source_name, MAX_DIAGNOSTICS)
        self.params = dict(config.values)
        self.dtcm_base = memory_base(config, "dtcm")
        self.labels: dict[str, tuple[str, int]] = {}     # name -> (section, offset)
        self.label_lines: dict[str, int] = {}
        self.addresses: dict[str, int] = {}
        self.constants: dict[str, int] = {}
        self.constant_lines: dict[str, int] = {}
        self.later_constants: dict[str, int] = {}
        self.locals: dict[str, list[int]] = {}            # numeric label -> statement seqs
        self.loc = {s: 0 for s in ("text", "data", "rodata", "bss")}
        self.align = {s: 1 for s in ("text", "data", "rodata", "bss")}
        self.align["text"] = 4
        self.items: list[_Item] = []
        self.pass2 = False
        self.here = 0
        self.seq = 0
        self.ctx: tuple[Line, int, str] | None = None      # expansion being assembled
        self.pcrel_hi: dict[int, int] = {}                 # auipc address -> %pcrel_hi target
        self.last_pcrel_hi: int | None = None
        self.expansion_pc = 0
        self.instrs: list[Instr] = []
        self.words: list[int] = []
        self.bytes = {s: bytearray() for s in DATA_ORDER}

    # --- diagnostics ------------------------------------------------------------------
    def error(self, line: Line, column: int, message: str, hint="") -> None:
        if self.ctx is not None:
            line, column, text = self.ctx
            message = f"{message} (in its expansion `{text}`)"
        self.diags.error(line, column, message, hint)

    # --- pass 1 -------------------------------------------------------------------------
    def scan(self, source: str) -> None:
        section = "text"
        for number, raw in enumerate(source.split("\n"), 1):
            line, ranges, problems = split_statements(number, raw)
            for col, msg in problems:
                self.diags.error(line, col, msg, "comments start with '#'; strings are \"...\"")
            for start, end in ranges:
                self.seq += 1
                labels, pos = take_labels(line.raw, start, end)
                for name, col in labels:
                    self.define_label(line, name, col, section)
                if not line.raw[pos:end].strip():
                    continue
                item = _Item(Stmt(line, start, end), pos, section, seq=self.seq)
                section = self.classify(item)
                self.items.append(item)

    def define_label(self, line: Line, name: str, col: int, section: str) -> None:
        if name.isdigit():
            self.locals.setdefault(name, []).append(self.seq)
            name = local_name(name, len(self.locals[name]) - 1)
        else:
            bad = self.name_problem(name)
            if bad:
                self.diags.error(line, col, f"bad label: {bad}",
                                 "labels start with a letter, '_' or '.', and are not register names")
                return
            if name in self.labels or name in self.constants:
                first = self.label_lines.get(name) or self.constant_lines.get(name)
                self.diags.error(line, col, f"'{name}' is already defined at line {first}",
                                 "each label may be defined once; numeric labels (1:, 2:) may repeat")
                return
        self.labels[name] = (section, self.loc[section])
        self.label_lines[name] = line.number

    def name_problem(self, name: str) -> str:
        bad = asmtext.check_name(name)
        if bad:
            return bad
        if name.lower() in self.t.registers:
            return f"'{name}' is a register name"
        if name in self.params:
            return f"'{name}' is a hardware parameter"
        return ""

    def classify(self, item: _Item) -> str:
        """Fill in kind, size and (pass 1) effects of a statement; returns the section
        that follows it."""
        line, raw, end = item.stmt.line, item.stmt.line.raw, item.stmt.end
        body = raw[item.pos:end]
        section = item.section
        m = _WORD.match(body)
        if body.lstrip().startswith(".") and m:
            name = m.group(1).lower()
            item.kind, item.name = "directive", name
            item.args_at = item.pos + m.end() + 1
            return self.directive_pass1(item, name, raw[item.pos + m.end():end])
        a = _ASSIGN.match(body)
        if a and (not m or a.group(1) == m.group(1)) and a.group(1).lower() not in self.t.mnemonics:
            item.kind, item.name = "assign", a.group(1)
            self.later_constants.setdefault(a.group(1), line.number)
            self.define_constant(item, a.group(1), item.pos + a.start(1) + 1,
                                 Piece(a.group(2).strip(), item.pos + a.start(2) + 1))
            return section
        if not m:
            col = asmtext.first_column(raw, item.pos)
            word = raw[col - 1:end].split()[0]
            self.diags.error(line, col, f"expected an instruction, label or directive, got '{clip(word)}'",
                             "a statement is `label:`, `mnemonic operands` or `.directive args`")
            item.kind = "bad"
            return section
        item.kind, item.name = "instr", m.group(1)
        item.args_at = item.pos + m.end() + 1
        rest = raw[item.pos + m.end():end]
        col = item.pos + m.start(1) + 1
        if rest[:1] and not rest[:1].isspace():
            self.diags.error(line, item.pos + m.end() + 1,
                             f"expected a blank after '{clip(m.group(1))}', got '{rest[0]}'",
                             lambda: self.mnemonic_hint(m.group(1), ""))
            item.kind = "bad"
            item.size = 4 if section == "text" else 0
            self.loc[section] += item.size
            return section
        pieces, problems = asmtext.split_operands(rest, item.pos + m.end() + 1)
        for pc, msg in problems:
            self.diags.error(line, pc, msg, lambda: self.hint_for(m.group(1)))
        item.pieces = pieces
        mn = m.group(1).lower()
        if mn not in self.t.mnemonics:
            self.diags.error(line, col, f"unknown instruction '{clip(m.group(1))}'",
                             lambda: self.mnemonic_hint(m.group(1), rest))
            item.kind = "bad"
        elif section != "text":
            self.diags.error(line, col, f"instruction {mn} in the {section} section",
                             "instructions belong in .text: put `.text` before them")
            item.kind = "bad"
        elif problems:
            item.kind = "bad"
        else:
            item.target = self.choose(mn, pieces)
            if isinstance(item.target, PseudoDef):
                item.case = self.choose_case(item.target, pieces)
                item.size = 4 * len(item.target.cases[item.case].expansion)
            else:
                item.size = 4
        if item.kind == "bad":
            item.size = 4 if section == "text" else 0
        item.offset = self.loc[section]
        self.loc[section] += item.size
        return section

    # --- choosing between an instruction and pseudo-instructions of one name -----------
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
                    if take and s.kind == "op" and ops[s.names[0]].kind.names \
                            and not ops[s.names[0]].kind.is_register and ops[s.names[0]].kind.name != "csr":
                        take = pieces[i].text.lower() in ops[s.names[0]].kind.name_values
                    taken[s.group] = take
                if not taken[s.group]:
                    out.append((s, None))
                    continue
            if i >= n:
                return None
            p = pieces[i]
            i += 1
            if s.kind == "mem" and not (p.text.endswith(")") and "(" in p.text):
                return None
            if s.kind == "lit" and p.text.lower() != s.text.lower():
                return None
            if s.kind == "op" and p.text.endswith(")") and "(" in p.text and not p.text.startswith("%") \
                    and ops[s.names[0]].kind.is_register:
                return None
            out.append((s, p))
        if i != n or required > n:
            return None
        return out

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

    # --- names and expressions --------------------------------------------------------
    def lookup(self, name: str) -> int | None:
        if name == ".":
            return self.here
        v = self.constants.get(name)
        if v is not None:
            return v
        if self.pass2:
            v = self.addresses.get(name)
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
        if not self.locals or not LOCAL_REF.search(text):
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

    # --- directives -------------------------------------------------------------------
    def directive_pass1(self, item: _Item, name: str, args: str) -> str:
        line, section = item.stmt.line, item.section
        at = item.args_at
        if name in SECTIONS or name == ".section":
            target = name
            if name == ".section":
                words = args.split(",")[0].strip()
                target = words
                if target not in SECTIONS:
                    self.diags.error(line, at + 1, f"unknown section '{clip(target)}'",
                                     "sections: .text (ITCM), .data, .rodata, .bss (DTCM)")
                    return section
            return SECTIONS[target]
        if name not in DIRECTIVES:
            near = suggest(name, DIRECTIVES)
            self.diags.error(line, item.pos + 1, f"unknown directive '{clip(name)}'",
                             (f"did you mean {near[0]}? " if near else "") +
                             "see the manual's 'Assembler syntax' for the directives coral supports")
            item.kind = "bad"
            return section
        pieces, problems = asmtext.split_operands(args, at) if name not in (".string", ".asciz", ".ascii") \
            else (self.string_pieces(args, at), [])
        for pc, msg in problems:
            self.diags.error(line, pc, msg, f"{name} takes comma-separated values")
        item.pieces = pieces
        item.offset = self.loc[section]
        if name in (".equ", ".set"):
            if len(pieces) != 2:
                self.diags.error(line, item.pos + 1, f"{name} takes a name and a value",
                                 f"write `{name} NAME, expression`")
            else:
                self.later_constants.setdefault(pieces[0].text, line.number)
                self.define_constant(item, pieces[0].text, pieces[0].column, pieces[1])
            return section
        if name in IGNORED:
            return section
        if name == ".option":
            opt = args.strip().lower()
            if opt == "rvc":
                self.diags.error(line, at + 1, "compressed instructions are not supported",
                                 "coral has no C extension: remove `.option rvc`")
            elif opt not in ("norvc", "push", "pop", "relax", "norelax", "pic", "nopic"):
                self.diags.error(line, at + 1, f"unknown .option '{clip(opt)}'",
                                 "accepted: norvc, push, pop, relax, norelax, pic, nopic")
            return section
        size = self.data_size(item, name, pieces, section)
        item.size = size
        self.loc[section] += size
        return section

    def string_pieces(self, args: str, at: int) -> list[Piece]:
        out, i, n = [], 0, len(args)
        while i < n:
            while i < n and args[i] in " \t,":
                i += 1
            if i >= n:
                break
            j = i
            if args[i] == '"':
                j = i + 1
                while j < n and args[j] != '"':
                    j += 2 if args[j] == "\\" else 1
                j += 1
            else:
                while j < n and args[j] != ",":
                    j += 1
            out.append(Piece(args[i:j].strip(), at + i))
            i = j
        return out

    def data_size(self, item: _Item, name: str, pieces: list[Piece], section: str) -> int:
        line = item.stmt.line
        if section == "text" and name not in (".word", ".4byte", ".long", ".align", ".p2align", ".balign"):
            self.diags.error(line, item.pos + 1, f"{name} in .text",
                             "only instructions, .word and alignment belong in .text: put data in .data "
                             "or .rodata")
            item.kind = "bad"
            return 0
        if section == "bss" and name not in (".zero", ".space", ".skip", ".align", ".p2align", ".balign"):
            self.diags.error(line, item.pos + 1, f"{name} in .bss",
                             ".bss holds only zero-filled space (.zero N): put initialised data in .data")
            item.kind = "bad"
            return 0
        if name in DATA_SIZES:
            if not pieces:
                self.diags.error(line, item.pos + 1, f"{name} needs at least one value", f"e.g. `{name} 1, 2, 3`")
            return DATA_SIZES[name] * len(pieces)
        if name in (".string", ".asciz", ".ascii"):
            total = 0
            for p in pieces:
                data, problem = parse_string(p.text)
                if data is None:
                    self.diags.error(line, p.column, problem, f'e.g. {name} "text"')
                    continue
                total += len(data) + (name != ".ascii")
            return total
        if name in (".zero", ".space", ".skip"):
            if len(pieces) not in (1, 2) or (name == ".zero" and len(pieces) != 1):
                self.diags.error(line, item.pos + 1, f"{name} takes a size" + (", fill" if name != ".zero" else ""),
                                 f"e.g. `{name} 64`")
                return 0
            n = self.expression(line, pieces[0])
            if n is None:
                return 0
            if n < 0 or n > 1 << 26:
                self.diags.error(line, pieces[0].column, f"{name} size {n} is not in 0..{1 << 26}", "")
                return 0
            return n
        # alignment
        if not 1 <= len(pieces) <= 2:
            self.diags.error(line, item.pos + 1, f"{name} takes an alignment", f"e.g. `{name} 2`")
            return 0
        n = self.expression(line, pieces[0])
        if n is None:
            return 0
        if name == ".balign":
            if n <= 0 or n & (n - 1):
                self.diags.error(line, pieces[0].column, f".balign {n}: the alignment must be a power of two",
                                 "e.g. .balign 16")
                return 0
            boundary = n
        else:
            if not 0 <= n <= 16:
                self.diags.error(line, pieces[0].column, f"{name} {n}: give the power of two (0..16)",
                                 f"`{name} 4` aligns to 16 bytes")
                return 0
            boundary = 1 << n
        self.align[section] = max(self.align[section], boundary)
        off = self.loc[section]
        return -off % boundary

    def define_constant(self, item: _Item, name: str, col: int, value: Piece) -> None:
        line = item.stmt.line
        bad = self.name_problem(name)
        if bad:
            self.diags.error(line, col, f"bad constant name: {bad}", "write `.equ NAME, expression`")
            return
        if name in self.labels:
            self.diags.error(line, col, f"'{name}' is already a label (line {self.label_lines[name]})",
                             "each name may be defined once")
            return
        v = self.expression(line, value, item.seq)
        if v is not None:
            self.constants[name] = v        # .set may redefine; the last definition wins
            self.constant_lines.setdefault(name, line.number)

    # --- pass 2 -----------------------------------------------------------------------
    def layout(self) -> dict[str, int]:
        base = {"text": 0}
        addr = self.dtcm_base
        for s in DATA_ORDER:
            addr = -(-addr // self.align[s]) * self.align[s]
            base[s] = addr
            addr += self.loc[s]
        self.data_end = addr
        for name, (section, off) in self.labels.items():
            self.addresses[name] = base[section] + off
        return base

    def run(self) -> None:
        self.base = base = self.layout()
        self.pass2 = True
        self.bytes = {s: bytearray(self.loc[s]) for s in DATA_ORDER}
        itcm, data_limit = self.cfg.ITCM_SIZE, self.cfg.DATA_SIZE
        text_reported = data_reported = False
        for item in self.items:
            self.seq = item.seq
            self.here = base[item.section] + item.offset
            line = item.stmt.line
            if item.kind == "instr":
                self.instruction(item)
            elif item.kind == "directive":
                self.emit_data(item)
            if item.section == "text" and not text_reported and item.offset + item.size > itcm:
                text_reported = True
                self.error(line, item.pos + 1, f"the program needs {self.loc['text']} bytes of .text; ITCM "
                           f"holds ITCM_SIZE = {itcm}: this is the first statement that does not fit",
                           f"shorten the kernel by {self.loc['text'] - itcm} bytes: use loops instead of "
                           "unrolled code")
            if item.section != "text" and not data_reported and \
                    base[item.section] + item.offset + item.size > self.dtcm_base + data_limit:
                data_reported = True
                self.error(line, item.pos + 1, f".data/.rodata/.bss need {self.data_end - self.dtcm_base} "
                           f"bytes; DATA_SIZE = {data_limit}: this is the first statement that does not fit",
                           "keep large buffers out of the program (task tensors are already in DTCM) "
                           "or raise DATA_SIZE")

    def emit_data(self, item: _Item) -> None:
        name, line = item.name, item.stmt.line
        if item.size == 0 and name not in DATA_SIZES:
            return
        section = item.section
        if name in (".align", ".p2align", ".balign"):
            fill = 0
            if len(item.pieces) == 2:
                fill = self.expression(line, item.pieces[1]) or 0
            if section == "text":
                for _ in range(item.size // 4):
                    self.add_word(NOP, Instr("addi", {"rd": 0, "rs1": 0, "imm": 0}, line.number,
                                             "nop  (alignment)"))
            else:
                self.put(section, item.offset, bytes([fill & 0xFF]) * item.size)
            return
        if name in (".zero", ".space", ".skip"):
            if len(item.pieces) == 2 and section != "bss":
                fill = self.expression(line, item.pieces[1]) or 0
                self.put(section, item.offset, bytes([fill & 0xFF]) * item.size)
            return
        if name in (".string", ".asciz", ".ascii"):
            out = bytearray()
            for p in item.pieces:
                data, _ = parse_string(p.text)
                if data is not None:
                    out += data + (b"\0" if name != ".ascii" else b"")
            self.put(section, item.offset, bytes(out))
            return
        width = DATA_SIZES[name]
        out = bytearray()
        for p in item.pieces:
            self.here = self.base[section] + item.offset + len(out)
            if name == ".float":
                bits = float_bits(p.text)
                if bits is None:
                    self.error(line, p.column, f"'{clip(p.text)}' is not a floating-point number",
                               "write a decimal number, e.g. 1.5, -2e-3, 6.02e23, inf or nan")
                    bits = 0
                out += bits.to_bytes(4, "little")
                continue
            v = self.expression(line, p)
            lo, hi = -(1 << (8 * width - 1)), (1 << 8 * width) - 1
            if v is not None and not lo <= v <= hi:
                self.error(line, p.column, f"{name} value {v} does not fit {8 * width} bits ({lo}..{hi})", "")
                v = None
            out += ((v or 0) & ((1 << 8 * width) - 1)).to_bytes(width, "little")
        if section == "text":
            from .encoding import decode
            for k in range(0, len(out), 4):
                w = int.from_bytes(out[k:k + 4], "little")
                try:
                    ins = decode(w, len(self.words))
                    self.add_word(w, Instr(ins.mnemonic, ins.ops, line.number, f"{ins.text}  (.word)"))
                except Exception:
                    self.add_word(w, Instr(".word", {"value": w}, line.number, f".word 0x{w:08x}"))
        else:
            self.put(section, item.offset, bytes(out))

    def put(self, section: str, offset: int, data: bytes) -> None:
        self.bytes[section][offset:offset + len(data)] = data

    def add_word(self, word: int, instr: Instr) -> None:
        self.words.append(word)
        self.instrs.append(instr)

    # --- instructions -----------------------------------------------------------------
    def instruction(self, item: _Item) -> None:
        d, line = item.target, item.stmt.line
        text = line.raw[item.pos:item.stmt.end].strip()
        if isinstance(d, PseudoDef):
            self.pseudo(item, d, text)
            return
        ops = self.operands(line, d, item.pieces, item.args_at, self.here, item.name)
        if ops is None:
            self.add_word(0, Instr("(error)", {}, line.number, text))
            return
        self.finish(d, ops, line.number, text)

    def finish(self, d: InstrDef, ops: dict, number: int, text: str) -> None:
        if d.mnemonic == "auipc" and self.last_pcrel_hi is not None:
            self.pcrel_hi[self.here] = self.last_pcrel_hi
        self.add_word(encode_ops(d, ops, self.t), Instr(d.mnemonic, ops, number, text))

    def pseudo(self, item: _Item, p: PseudoDef, text: str) -> None:
        line = item.stmt.line
        pairs = self.assign(p, item.pieces)
        case = p.cases[item.case]
        n = len(case.expansion)
        if pairs is None:
            self.operands(line, p, item.pieces, item.args_at, self.here, item.name)
            for _ in range(n):
                self.add_word(0, Instr("(error)", {}, line.number, text))
            return
        values: dict[str, str] = {}
        ok = True
        for s, piece in pairs:
            if s.kind != "op":
                continue
            op = next(o for o in p.operands if o.name == s.names[0])
            if piece is None:
                values[op.name] = OMITTED
                continue
            v = self.operand(line, p, op, piece, self.here, item.name)
            if v is None:
                ok = False
                continue
            if op.kind.is_register:
                values[op.name] = self.t.canonical[op.kind.name][v]
            elif op.kind.names and not op.kind.pcrel and op.kind.name != "csr":
                values[op.name] = piece.text.lower()
            else:
                if op.kind.name == "imm32":
                    v = ((v & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000
                if op.kind.pcrel:           # back to the target: the expansion is at its own pc
                    v = self.here + v
                values[op.name] = str(v)
        if not ok:
            for _ in range(n):
                self.add_word(0, Instr("(error)", {}, line.number, text))
            return
        col = asmtext.first_column(line.raw, item.pos)
        self.expansion_pc = self.here
        for k, template in enumerate(case.expansion):
            expanded = re.sub(r",\s*" + OMITTED, "", template.format(**values))
            self.here = self.expansion_pc + 4 * k
            self.ctx = (line, col, expanded)
            try:
                self.expanded(expanded, line, text)
            finally:
                self.ctx = None

    def expanded(self, expanded: str, line: Line, text: str) -> None:
        mn, _, rest = expanded.partition(" ")
        d = self.t.defs[mn]
        pieces, _ = asmtext.split_operands(rest, 1)
        ops = self.operands(line, d, pieces, 1, self.here, mn)
        if ops is None:
            self.add_word(0, Instr("(error)", {}, line.number, text))
            return
        self.finish(d, ops, line.number, f"{expanded}  (from `{text}`)")

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
            if s.kind == "mem" and not (p.text.endswith(")") and "(" in p.text):
                base = s.names[1]
                self.error(line, p.column, f"expected a memory operand offset({base}) for {written}, got "
                           f"'{clip(p.text)}'", f"write e.g. 0({ops[base].kind.aliases[10] if ops[base].kind.aliases else 'a0'})"
                           f" -- the base register in parentheses. " + hint)
                return
            if s.kind == "lit" and p.text.lower() != s.text.lower():
                self.error(line, p.column, f"expected '{s.text}' here, got '{clip(p.text)}'", hint)
                return
            if s.kind == "op" and "(" in p.text and p.text.endswith(")") and ops[s.names[0]].kind.is_register:
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
            self.error(line, p.column, f"register {text} where {where} expects {kind_words(kind)}",
                       lambda: self.hint_for(written))
            return None
        if kind.names and kind.name != "csr":
            v = kind.name_values.get(text.lower())
            if v is None:
                near = suggest(text, [n for n, _ in kind.names])
                self.error(line, p.column, f"'{clip(text)}' is not a valid {op.name} for {written}: expected "
                           f"{kind_range(kind)}", (f"did you mean {near[0]}? " if near else "") + kind.doc)
            return v
        if kind.name == "csr":
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


def assemble(source: str, source_name: str = "<kernel>", config: HardwareConfig | None = None) -> Program:
    """Assemble coral source into a Program; raises AssemblyError listing every error.

    Program.labels maps every label to its byte address (text labels in ITCM, data
    labels in DTCM); Program.data holds the initialised DTCM bytes (.data, .rodata);
    Program.entry is the instruction index of `_start` if defined, else 0."""
    cfg = config or default_config()
    if getattr(getattr(cfg, "isa", None), "name", None) != ACCEL:
        raise ValueError(f"the coral assembler needs a coral HardwareConfig, got {cfg!r}")
    asm = _Assembler(source_name, cfg)
    asm.scan(source)
    asm.run()
    asm.diags.raise_if_any()
    image = bytes(asm.bytes["data"])
    for s in ("rodata",):
        gap = asm.base[s] - (asm.base["data"] + len(image))
        image += bytes(gap) + bytes(asm.bytes[s])
    labels = {k: v for k, v in asm.addresses.items() if not k.startswith(LOCAL_PREFIX)}
    entry = labels.get("_start", 0)
    if entry >= 4 * len(asm.words) or entry % 4:
        entry = 0
    data = [("dtcm", asm.base["data"], image)] if image else []
    return Program(accel=ACCEL, instrs=asm.instrs, words=asm.words, labels=labels,
                   constants=dict(asm.constants), source_name=source_name, data=data,
                   entry=entry // 4)


def check(source: str, source_name: str = "<kernel>", config: HardwareConfig | None = None) -> list:
    """The diagnostics of `source` (empty if it assembles)."""
    try:
        assemble(source, source_name, config)
    except AssemblyError as e:
        return e.diagnostics
    return []
