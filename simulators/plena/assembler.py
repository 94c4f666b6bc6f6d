"""plena assembler, encoder, decoder and disassembler, all driven by `isa/plena/`.

Syntax (see the manual's "Assembler syntax"): one instruction per line,
`MNEMONIC op, op, ...`; comments `;` `#` `//`; labels `name:`; constants
`.equ NAME, expr` / `.set NAME, expr`; integer expressions over constants, labels
and hardware parameters. Every error of a file is collected with its line, column
and a hint, then raised together as one AssemblyError.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from kernelcraft.isa.loader import HardwareConfig, InstrDef, Kind, Operand, get_isa
from kernelcraft.simulators.core import asmtext
from kernelcraft.simulators.core.asmnames import DIRECTIVE_RE, NameScope
from kernelcraft.simulators.core.asmtext import ExprError, Line, Piece, clip, suggest
from kernelcraft.simulators.core.errors import DecodeError
from kernelcraft.simulators.core.program import Instr, Program

ACCEL = "plena"
# The instructions that open and close a hardware loop (isa/plena instruction classes),
# and the operand holding the counter; the assembler checks loop structure
# (isa/plena/README.md, "Hardware loops").
(LOOP_START,), (LOOP_END,), LOOP_COUNTER = (get_isa(ACCEL).having("loop_start"),
                                            get_isa(ACCEL).having("loop_end"), "rd")
# The pair that builds a 32-bit constant; named in hints for immediates out of range.
BUILD_UPPER, BUILD_LOWER = "S_LUI_INT", "S_ADDI_INT"
UPPER_SHIFT = 12
DIRECTIVES = (".equ", ".set")
MAX_DIAGNOSTICS = 50


# --- tables built once from the ISA data --------------------------------------------

@dataclass(frozen=True)
class _Field:
    name: str
    lsb: int
    mask: int
    kind: Kind


class _Tables:
    def __init__(self, isa_name: str):
        isa = get_isa(isa_name)
        self.isa = isa
        self.defs: dict[str, InstrDef] = isa.instructions
        for mn in (LOOP_START, LOOP_END, BUILD_UPPER, BUILD_LOWER):
            assert mn in self.defs, f"{isa_name} ISA has no {mn}"
        self.by_opcode: dict[int, InstrDef] = isa.by_opcode
        self.opcode_mask = (1 << isa.opcode_width) - 1
        self.word_mask = (1 << isa.word_bits) - 1
        self.reg_kinds = {k.prefix.lower(): k for k in isa.register_kinds()}
        self.registers: dict[str, tuple[Kind, int]] = {
            f"{p}{i}": (k, i) for p, k in self.reg_kinds.items() for i in range(k.count)}
        prefixes = "|".join(sorted(self.reg_kinds, key=len, reverse=True))
        self.reg_like = re.compile(rf"({prefixes})(\d+)", re.IGNORECASE)
        self.fields: dict[str, tuple[_Field, ...]] = {}
        self.zero_mask: dict[str, int] = {}
        for mn, d in self.defs.items():
            fields = tuple(_Field(op.name, d.format.fields[op.name][0],
                                  (1 << d.format.fields[op.name][1]) - 1, op.kind)
                           for op in d.operands if not op.kind.reserved)
            used = self.opcode_mask << isa.opcode_lsb
            for f in fields:
                used |= f.mask << f.lsb
            self.fields[mn] = fields
            self.zero_mask[mn] = self.word_mask & ~used


@lru_cache(maxsize=None)
def _tables() -> _Tables:
    return _Tables(ACCEL)


@lru_cache(maxsize=None)
def _default_config() -> HardwareConfig:
    return HardwareConfig(get_isa(ACCEL))


def expression_names(config: HardwareConfig) -> dict[str, int]:
    """Hardware parameters usable in expressions: every parameter, plus HEADS."""
    names = dict(config.values)
    names["HEADS"] = config.MLEN // config.HLEN
    return names


# --- describing operands for messages -----------------------------------------------

def kind_range(kind: Kind) -> str:
    if kind.is_register:
        return f"{kind.prefix}0..{kind.prefix}{kind.count - 1}"
    if kind.reserved:
        return "0"
    if (kind.min, kind.max) == (0, 1):
        return "0 or 1"
    return f"{kind.min}..{kind.max}"


def _a(word: str) -> str:
    """'a gp register', 'an f register': the article by how the letter is spoken."""
    return ("an " if word[:1].lower() in "aefhilmnorsx" else "a ") + word


def _kind_word(kind: Kind) -> str:
    if kind.is_register:
        return f"{kind.prefix} register ({kind_range(kind)})"
    if kind.reserved:
        return "reserved, write 0"
    return f"{kind.name} {kind_range(kind)}"


def syntax_hint(d: InstrDef) -> str:
    """The instruction's syntax with what each operand takes, and its example."""
    ops = ", ".join(f"{op.name}: {_kind_word(op.kind)}" for op in d.operands if not op.kind.reserved)
    out = f"syntax: {d.syntax}" + (f"  ({ops})" if ops else "")
    example = next((ln.split(";")[0].strip() for ln in d.example.splitlines()
                    if ln.strip().upper().startswith(d.mnemonic)), "")
    return out + (f"; e.g. {example}" if example else "")


def _count_words(d: InstrDef) -> str:
    lo, hi = d.min_operands, len(d.operands)
    n = f"{lo}" if lo == hi else f"{lo} to {hi}"
    return f"{n} operand{'s' if hi != 1 else ''}"


# --- the assembler ------------------------------------------------------------------

_MNEMONIC_RE = re.compile(r"\s*([A-Za-z_][\w.]*)")
_ASSIGN_RE = re.compile(r"\s*([A-Za-z_.$][\w.$]*)\s*=\s*(.*)")


@dataclass(slots=True)
class _Stmt:
    line: Line
    pos: int            # index in line.code where the statement starts
    index: int          # instruction index (instructions only), else -1
    directive: str = ""


class _Assembler(NameScope):
    directives = DIRECTIVES
    label_rule = "labels start with a letter, '_' or '.', and must not be a register or parameter name"
    directives_hint = (f"supported directives: {', '.join(DIRECTIVES)} "
                       "(`.equ NAME, expr` defines a constant)")

    def __init__(self, source_name: str, config: HardwareConfig):
        super().__init__(source_name, MAX_DIAGNOSTICS)
        self.t = _tables()
        self.config = config
        self.params = expression_names(config)
        self.instrs: list[Instr] = []
        self.words: list[int] = []
        self.loops: list[tuple[int | None, Line, int]] = []  # (counter, line, column)
        # Register prefix of the loop counter, for messages ("gp").
        self.rc = next(op.kind.prefix for op in self.t.defs[LOOP_START].operands
                       if op.name == LOOP_COUNTER)

    # pass 1: labels, instruction indices, constant names
    def scan(self, lines: list[Line]) -> list[_Stmt]:
        stmts, index = [], 0
        for line in lines:
            code = line.code
            if not code or code.isspace():
                continue
            labels, pos = asmtext.take_labels(code)
            for name, col in labels:
                self.define_label(line, name, col, index)
            rest = code[pos:]
            if not rest.strip():
                continue
            d = DIRECTIVE_RE.match(rest)
            if d:
                stmts.append(_Stmt(line, pos, -1, d.group(1).lower()))
                name = rest[d.end():].split(",")[0].strip()
                self.later_constants.setdefault(name, line.number)
            else:
                stmts.append(_Stmt(line, pos, index))
                index += 1
        self.count = index
        return stmts

    def name_problem(self, name: str) -> str:
        bad = super().name_problem(name)
        if bad:
            return bad
        if self.is_register_name(name):
            return f"'{name}' is a register name"
        if name in self.params:
            return f"'{name}' is a hardware parameter"
        return ""

    def is_register_name(self, name: str) -> bool:
        return name.lower() in self.t.registers or bool(self.t.reg_like.fullmatch(name))

    def name_tables(self) -> tuple[dict[str, int], ...]:
        return (self.constants, self.labels, self.params)

    @property
    def names_hint(self) -> str:
        return f"names are constants (.equ), labels, and hardware parameters ({', '.join(self.params)})"

    def redefinition(self, name: str) -> str:
        if name not in self.constants and name not in self.labels:
            return ""
        first = self.constant_lines.get(name) or self.label_lines[name]
        what = "constant" if name in self.constants else "label"
        return f"'{name}' is already defined as a {what} at line {first}"

    # pass 2
    def run(self, stmts: list[_Stmt]) -> None:
        for st in stmts:
            if st.directive:
                self.directive(st)
            else:
                self.instruction(st)
        for counter, line, col in self.loops:
            reg = f" {self.rc}{counter}" if counter is not None else ""
            self.diags.error(line, col, f"{LOOP_START}{reg} has no matching {LOOP_END}",
                             f"close the loop with `{LOOP_END}{reg}` after its body")
        imem = self.config.IMEM_SIZE
        if self.count > imem:
            st = next(s for s in stmts if s.index == imem)
            self.diags.error(st.line, asmtext.first_column(st.line.code, st.pos),
                             f"program has {self.count} instructions but instruction memory holds "
                             f"IMEM_SIZE = {imem}; this is the first instruction that does not fit",
                             f"shorten the kernel by {self.count - imem} instructions: use hardware "
                             f"loops ({LOOP_START}/{LOOP_END}) instead of unrolled code")

    # .equ / .set
    def directive(self, st: _Stmt) -> None:
        m = self.directive_head(st.line, st.pos, st.directive)
        if m is None:
            return
        pieces, problems = asmtext.split_operands(st.line.code[m.end():], m.end() + 1)
        usage = f"write `{st.directive} NAME, expression`, e.g. `{st.directive} ROWS, 4 * VLEN`"
        self.define_constant(st.line, st.directive, pieces, problems, usage)

    # instructions
    def instruction(self, st: _Stmt) -> None:
        line, code = st.line, st.line.code
        m = _MNEMONIC_RE.match(code, st.pos)
        if not m:
            col = asmtext.first_column(code, st.pos)
            word = code[col - 1:].split()[0]
            self.diags.error(line, col, f"expected an instruction, label or directive, got '{clip(word)}'",
                             "a line holds `label:`, `MNEMONIC operands` or `.equ NAME, value`")
            return
        word, col = m.group(1), m.start(1) + 1
        d = self.t.defs.get(word.upper())
        if d is None:
            self.diags.error(line, col, f"unknown instruction '{clip(word)}'",
                             lambda: self.mnemonic_hint(word, code[m.end():]))
            return
        rest_at = m.end()
        if rest_at < len(code) and not code[rest_at].isspace():
            self.diags.error(line, rest_at + 1, f"expected a blank after {d.mnemonic}, got '{code[rest_at]}'",
                             syntax_hint(d))
            if d.mnemonic in (LOOP_START, LOOP_END):
                self.loop(line, col, d.mnemonic, None)     # keep the loop stack in step
            return
        pieces, problems = asmtext.split_operands(code[rest_at:], rest_at + 1)
        errors = len(self.diags)
        for pc, msg in problems:
            self.diags.error(line, pc, msg, lambda: syntax_hint(d))
        # After a comma problem the operand positions are unreliable: stop at it.
        ops = None if problems else self.operands(line, d, pieces, len(code) + 1)
        if ops is None or len(self.diags) != errors:
            ops = None
        else:
            text = code[st.pos:].strip()
            self.instrs.append(Instr(d.mnemonic, ops, line.number, text))
            self.words.append(self.encode_ops(d, ops))
        if d.mnemonic in (LOOP_START, LOOP_END):
            self.loop(line, col, d.mnemonic, self.counter(d, ops, pieces))

    def counter(self, d: InstrDef, ops: dict | None, pieces: list[Piece]) -> int | None:
        """The loop counter register, even when another operand of the line is bad."""
        if ops is not None:
            return ops[LOOP_COUNTER]
        i = next(i for i, op in enumerate(d.operands) if op.name == LOOP_COUNTER)
        reg = self.t.registers.get(pieces[i].text.lower()) if i < len(pieces) else None
        return reg[1] if reg is not None and reg[0] is d.operands[i].kind else None

    def mnemonic_hint(self, word: str, rest: str) -> str:
        head = word.upper().split("_")[0] + "_"
        group = [mn for mn in self.t.defs if mn.startswith(head)] if "_" in word else []
        near = suggest(word, group or self.t.defs)
        if near:
            hint = "did you mean " + " or ".join(f"`{self.t.defs[n].syntax}`" for n in near) + "?"
        elif group:
            hint = f"the {head} instructions are {', '.join(group)}."
        else:
            groups = sorted({mn.split("_")[0] + "_" for mn in self.t.defs})
            hint = f"plena mnemonics start with {', '.join(groups)} (see the manual's instruction sections)."
        if not rest.strip():
            hint += f" If '{clip(word)}' is meant as a label, end it with a colon: {clip(word)}:"
        a = _ASSIGN_RE.match(word + rest)
        if a:
            hint = f"to define a constant write `.equ {a.group(1)}, {clip(a.group(2).strip())}`"
        return hint

    def operands(self, line: Line, d: InstrDef, pieces: list[Piece], eol: int) -> dict | None:
        n, lo, hi = len(pieces), d.min_operands, len(d.operands)
        self.cur_pieces = pieces
        if n > hi and all(p.inferred for p in pieces[hi:]):
            self.diags.error(line, pieces[hi].column,
                             f"unexpected '{clip(pieces[hi].text)}' after the last operand of {d.mnemonic}",
                             lambda: "remove it or start a comment with ';'. " + syntax_hint(d))
            pieces = pieces[:hi]
            n = hi
        if not lo <= n <= hi:
            where = pieces[hi].column if n > hi else eol
            self.diags.error(line, where, f"{d.mnemonic} takes {_count_words(d)}, got {n}",
                             lambda: syntax_hint(d))
            return None
        ops = {}
        for i, op in enumerate(d.operands):
            if i >= n:
                ops[op.name] = 0            # omitted optional operand
                continue
            p = pieces[i]
            if p.inferred:
                self.diags.error(line, p.column, f"missing comma before '{clip(p.text)}'",
                                 lambda: syntax_hint(d))
            value = self.operand(line, d, op, p)
            if value is None:
                return None if i == n - 1 else self._rest_checked(line, d, pieces, i + 1, n)
            ops[op.name] = value
        return ops

    def _rest_checked(self, line, d, pieces, start, n) -> None:
        """After a bad operand, still check the remaining ones (all errors reported)."""
        for i in range(start, n):
            if pieces[i].inferred:
                self.diags.error(line, pieces[i].column, f"missing comma before '{clip(pieces[i].text)}'",
                                 lambda: syntax_hint(d))
            self.operand(line, d, d.operands[i], pieces[i])
        return None

    def operand(self, line: Line, d: InstrDef, op: Operand, p: Piece) -> int | None:
        kind, text = op.kind, p.text
        reg = self.t.registers.get(text.lower())
        where = f"{op.name} of {d.mnemonic}"
        if kind.is_register:
            if reg is not None:
                if reg[0] is kind:
                    return reg[1]
                self.diags.error(line, p.column, f"{text} where {_a(kind.prefix)} register "
                                 f"({kind_range(kind)}) is expected ({where})",
                                 lambda: f"{op.name}: {kind.doc}. " + syntax_hint(d))
                return None
            self.bad_register(line, d, op, p)
            return None
        if kind.reserved:
            if reg is not None and reg[1] == 0:
                return 0
            value = None if reg is not None else self.expression(line, p)
            if value == 0:
                return 0
            if reg is not None or value is not None:
                self.diags.error(line, p.column, f"operand {op.name} of {d.mnemonic} is reserved: write 0, "
                                 f"got '{clip(text)}'", lambda: "a reserved operand must be 0 (gp0 is also "
                                 "accepted). " + syntax_hint(d))
            return None
        if reg is not None or self.t.reg_like.fullmatch(text):
            self.diags.error(line, p.column, f"register {text} where an immediate is expected ({where}: "
                             f"{kind.name} {kind_range(kind)})", lambda: syntax_hint(d))
            return None
        value = self.expression(line, p)
        if value is None:
            return None
        if not kind.min <= value <= kind.max:
            msg = (f"{where} must be 0 or 1, got {value}" if (kind.min, kind.max) == (0, 1) else
                   f"{where} out of range: {value} is not in {kind_range(kind)} ({kind.name})")
            self.diags.error(line, p.column, msg, lambda: self.range_hint(d, op, value))
            return None
        return value

    def bad_register(self, line: Line, d: InstrDef, op: Operand, p: Piece) -> None:
        kind, text = op.kind, p.text
        m = self.t.reg_like.fullmatch(text)
        if m:
            other = self.t.reg_kinds[m.group(1).lower()]
            self.diags.error(line, p.column, f"{text} does not exist: registers are {kind_range(other)}",
                             lambda: f"{op.name} of {d.mnemonic}: {kind.doc}. " + syntax_hint(d))
            return
        value = None
        if asmtext.NAME_RE.fullmatch(text) is None or self.lookup(text) is not None:
            try:
                value = asmtext.evaluate(text, self.lookup, self.unknown)
            except ExprError:
                value = None
        if value is not None:
            fix = f"{kind.prefix}{value}" if 0 <= value < kind.count else _a(f"{kind.prefix} register")
            self.diags.error(line, p.column, f"expected {_a(kind.prefix)} register for {op.name} of {d.mnemonic}, "
                             f"got the number '{clip(text)}'",
                             lambda: f"write {fix}; to use a constant value, first load it into a register "
                                     f"(e.g. {BUILD_LOWER} gp1, gp0, {value}). " + syntax_hint(d))
        else:
            self.diags.error(line, p.column, f"expected {_a(kind.prefix)} register ({kind_range(kind)}) for "
                             f"{op.name} of {d.mnemonic}, got '{clip(text)}'", lambda: syntax_hint(d))

    def range_hint(self, d: InstrDef, op: Operand, value: int) -> str:
        kind = op.kind
        hint = f"{op.name}: {kind.doc}."
        if kind.min == 1 and value < 1:
            return hint + " " + syntax_hint(d)
        upper_kind = self.t.defs[BUILD_UPPER].operands[-1].kind
        if d.mnemonic == BUILD_UPPER and value % (1 << UPPER_SHIFT) == 0 and \
                upper_kind.min <= value >> UPPER_SHIFT <= upper_kind.max:
            return hint + (f" {BUILD_UPPER} shifts its immediate left by {UPPER_SHIFT}: write "
                           f"{value >> UPPER_SHIFT} to get {value}")
        if kind.signed and -(1 << 31) <= value < (1 << 32):
            hi, lo = (value & 0xFFFFFFFF) >> UPPER_SHIFT, value & ((1 << UPPER_SHIFT) - 1)
            texts = [p.text for p in self.cur_pieces]
            if d.mnemonic == BUILD_LOWER:
                rd, base = texts[0], texts[1]
                zero = self.t.registers.get(base.lower(), (None, 1))[1] == 0
                target = rd if zero else "gpT"
                steps = [f"{BUILD_UPPER} {target}, {hi}"]
                if lo:
                    steps.append(f"{BUILD_LOWER} {target}, {target}, {lo}")
                if not zero:
                    steps.append(f"S_ADD_INT {rd}, {base}, gpT  (gpT: a free gp register)")
                return hint + (f" Build {value} = ({hi} << {UPPER_SHIFT}) + {lo} in steps: "
                               + "; ".join(steps))
            return hint + (f" Put the address in a register instead: {BUILD_UPPER} gpT, {hi}; "
                           f"{BUILD_LOWER} gpT, gpT, {lo}; S_ADD_INT gpT, gpT, <base register>; "
                           f"then use gpT with an offset of 0")
        return hint + " " + syntax_hint(d)

    def encode_ops(self, d: InstrDef, ops: dict) -> int:
        word = d.opcode << self.t.isa.opcode_lsb
        for f in self.t.fields[d.mnemonic]:
            word |= (ops[f.name] & f.mask) << f.lsb
        return word

    def loop(self, line: Line, col: int, mnemonic: str, counter: int | None) -> None:
        stack = self.loops
        if mnemonic == LOOP_START:
            if counter == 0:
                self.diags.error(line, col, f"{self.rc}0 cannot count a loop: it always reads 0",
                                 f"use a free register, e.g. `{LOOP_START} {self.rc}1, n`")
            outer = next((ln for c, ln, _ in stack if c is not None and c == counter), None)
            if outer is not None:
                self.diags.error(line, col, f"{self.rc}{counter} already counts the enclosing loop started at "
                                 f"line {outer.number}", "nested loops need different counter registers")
            if len(stack) >= self.config.LOOP_DEPTH:
                self.diags.error(line, col, f"loop nesting depth {len(stack) + 1} exceeds LOOP_DEPTH = "
                                 f"{self.config.LOOP_DEPTH}", "flatten the innermost loops or merge them")
            stack.append((counter, line, col))
            return
        if not stack:
            self.diags.error(line, col, f"{LOOP_END} without a matching {LOOP_START}",
                             f"open the loop with `{LOOP_START} {self.rc}N, count` before its body")
            return
        top, top_line, _ = stack[-1]
        if counter is None or top is None or counter == top:
            stack.pop()
            return
        depth = next((i for i in range(len(stack) - 1, -1, -1) if stack[i][0] == counter), None)
        if depth is None:
            self.diags.error(line, col, f"{LOOP_END} {self.rc}{counter} does not match the open loop "
                             f"{LOOP_START} {self.rc}{top} at line {top_line.number}",
                             f"close it with `{LOOP_END} {self.rc}{top}`: START and END name the same register")
            stack.pop()
        else:
            self.diags.error(line, col, f"{LOOP_END} {self.rc}{counter} closes the loop of line "
                             f"{stack[depth][1].number} while the inner loop {LOOP_START} {self.rc}{top} "
                             f"(line {top_line.number}) is still open",
                             f"loops must nest: put `{LOOP_END} {self.rc}{top}` first")
            del stack[depth]        # the inner loop stays open: its own END may follow


def assemble(source: str, source_name: str = "<kernel>",
             config: HardwareConfig | None = None) -> Program:
    """Assemble plena source into a Program; raises AssemblyError listing every error."""
    asm = _Assembler(source_name, config or _default_config())
    asm.run(asm.scan(asmtext.split_lines(source)))
    asm.diags.raise_if_any()
    return Program(accel=ACCEL, instrs=asm.instrs, words=asm.words, labels=asm.labels,
                   constants=asm.constants, source_name=source_name)


# --- encoding and decoding ----------------------------------------------------------

def encode(instr: Instr) -> int:
    """The 32-bit word of an instruction; raises ValueError on a value the data forbids."""
    t = _tables()
    d = t.defs.get(instr.mnemonic)
    if d is None:
        raise ValueError(f"unknown plena mnemonic {instr.mnemonic!r}")
    word = d.opcode << t.isa.opcode_lsb
    for op in d.operands:
        v = instr.ops.get(op.name, 0)
        if not isinstance(v, int):
            raise ValueError(f"{d.mnemonic}: operand {op.name} must be an int, got {v!r}")
        lo, hi = (0, op.kind.count - 1) if op.kind.is_register else (op.kind.min, op.kind.max)
        if op.kind.reserved:
            lo = hi = 0
        if not lo <= v <= hi:
            raise ValueError(f"{d.mnemonic}: operand {op.name} = {v} outside {lo}..{hi}")
    for f in t.fields[d.mnemonic]:
        word |= (instr.ops.get(f.name, 0) & f.mask) << f.lsb
    return word


def _bit_ranges(mask: int) -> str:
    out, bit = [], 0
    while mask >> bit:
        if mask >> bit & 1:
            start = bit
            while mask >> (bit + 1) & 1:
                bit += 1
            out.append(f"[{bit}:{start}]" if bit != start else f"[{bit}]")
        bit += 1
    return ", ".join(reversed(out))


def decode(word: int, index: int = 0) -> Instr:
    """Decode one word; raises DecodeError for an unassigned opcode, a non-zero unused
    or reserved bit, or a field value outside its operand's range."""
    t = _tables()
    if not isinstance(word, int) or not 0 <= word <= t.word_mask:
        raise DecodeError(index, int(word) & t.word_mask if isinstance(word, int) else 0,
                          f"{word!r} is not a {t.isa.word_bits}-bit word")
    opcode = (word >> t.isa.opcode_lsb) & t.opcode_mask
    d = t.by_opcode.get(opcode)
    if d is None:
        raise DecodeError(index, word, f"opcode 0x{opcode:02X} is not assigned")
    extra = word & t.zero_mask[d.mnemonic]
    if extra:
        raise DecodeError(index, word, f"{d.mnemonic} (format {d.format.name}) needs bits "
                                       f"{_bit_ranges(extra)} to be zero")
    ops = {op.name: 0 for op in d.operands}
    for f in t.fields[d.mnemonic]:
        v = (word >> f.lsb) & f.mask
        k = f.kind
        if k.signed and v >> (f.mask.bit_length() - 1):
            v -= f.mask + 1
        if k.is_register:
            if v >= k.count:
                raise DecodeError(index, word, f"{d.mnemonic}: field {f.name} = {v} is not a register "
                                               f"{kind_range(k)}")
        elif not k.min <= v <= k.max:
            raise DecodeError(index, word, f"{d.mnemonic}: field {f.name} = {v} outside {kind_range(k)}")
        ops[f.name] = v
    return Instr(d.mnemonic, ops, 0, format_instr(d.mnemonic, ops))


def format_instr(mnemonic: str, ops: dict) -> str:
    """Canonical text: upper-case mnemonic, registers by name, reserved operands as 0,
    trailing optional operands left out when they are 0."""
    d = _tables().defs[mnemonic]
    texts = []
    for op in d.operands:
        v = ops.get(op.name, 0)
        texts.append("0" if op.kind.reserved else f"{op.kind.prefix}{v}" if op.kind.is_register else str(v))
    n = len(texts)
    while n and d.operands[n - 1].optional and texts[n - 1] == "0":
        n -= 1
    return f"{mnemonic} {', '.join(texts[:n])}" if n else mnemonic


def disassemble(words) -> str:
    """Text, one instruction per line, that assembles back to the same words."""
    return "".join(decode(w, i).text + "\n" for i, w in enumerate(words))
