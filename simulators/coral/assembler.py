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

import re
from dataclasses import dataclass, field

from kernelcraft.isa.loader import HardwareConfig, InstrDef, PseudoDef
from kernelcraft.simulators.core import asmtext
from kernelcraft.simulators.core.asmtext import Diagnostics, Line, Piece, clip
from kernelcraft.simulators.core.errors import AssemblyError
from kernelcraft.simulators.core.program import Instr, Program

from .asm_directives import DATA_ORDER, DirectiveMixin
from .asm_operands import OperandMixin
from .encoding import encode_ops
from .source import LOCAL_PREFIX, Stmt, local_name, split_statements, take_labels
from .tables import ACCEL, Tables, default_config, memory_base, tables

MAX_DIAGNOSTICS = 50
OMITTED = "\x00omitted"

_WORD = re.compile(r"\s*([A-Za-z_.][\w.]*)")
_ASSIGN = re.compile(r"\s*([A-Za-z_.$][\w.$]*)\s*=(?!=)\s*(.*)")


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


class _Assembler(DirectiveMixin, OperandMixin):
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
        self.linker: dict[str, int] = {}
        self.expansion_pc = 0
        self.instrs: list[Instr] = []
        self.words: list[int] = []
        self.bytes = {s: bytearray() for s in DATA_ORDER}

    def error(self, line: Line, column: int, message: str, hint="") -> None:
        if self.ctx is not None:
            line, column, text = self.ctx
            message = f"{message} (in its expansion `{text}`)"
        self.diags.error(line, column, message, hint)

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
            first = next((k for k, pc in enumerate(pieces) if pc.inferred), None)
            if first is not None and not any(self.assign(c, pieces) for c in self.candidates(mn)) \
                    and any(self.assign(c, pieces[:first]) for c in self.candidates(mn)):
                self.diags.error(line, pieces[first].column, f"unexpected '{clip(pieces[first].text)}' after "
                                 f"the last operand of {mn}", lambda: "remove it or start a comment with '#'. "
                                 + self.hint_for(mn))
                item.pieces = pieces = pieces[:first]
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

    def layout(self) -> dict[str, int]:
        base = {"text": 0}
        addr = self.dtcm_base
        for s in DATA_ORDER:
            addr = -(-addr // self.align[s]) * self.align[s]
            base[s] = addr
            addr += self.loc[s]
        self.data_end = addr
        # what a bare-metal linker script usually provides (a program's own labels win)
        top = self.dtcm_base + self.cfg.DTCM_SIZE
        self.linker = {"__global_pointer$": self.dtcm_base + 0x800, "__stack_top": top, "_stack_top": top,
                       "__data_start": base["data"], "_edata": base["data"] + self.loc["data"],
                       "__bss_start": base["bss"], "__bss_end": addr, "_end": addr, "end": addr}
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

    def add_word(self, word: int, instr: Instr) -> None:
        self.words.append(word)
        self.instrs.append(instr)

    def instruction(self, item: _Item) -> None:
        d, line = item.target, item.stmt.line
        text = line.raw[item.pos:item.stmt.end].strip()
        if isinstance(d, PseudoDef):
            self.pseudo(item, d, text)
            return
        eol = len(line.raw[:item.stmt.end].rstrip()) + 1
        ops = self.operands(line, d, item.pieces, eol, self.here, item.name)
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
            self.operands(line, p, item.pieces, len(line.raw[:item.stmt.end].rstrip()) + 1, self.here,
                          item.name)
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
            elif op.kind.names and not op.kind.pcrel and not op.kind.numbers:
                values[op.name] = piece.text.lower()
            else:
                if op.kind.name == "imm32":
                    v = ((v & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000
                if op.kind.pcrel:           # back to the target: the expansion is at its own pc
                    values[op.name] = f"0x{(self.here + v) & 0xFFFFFFFF:x}"
                    continue
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
