"""Labels, `.equ`/`.set` constants and expressions: the name handling the line-based
assemblers (aie, plena) share. `NameScope` is a base class; an assembler supplies what
differs between accelerators (which names are reserved, which tables a name is looked
up in, the wording of its hints) and keeps its own statements and operands."""
from __future__ import annotations

import re

from . import asmtext
from .asmtext import Diagnostics, ExprError, Line, Piece, clip, suggest

DIRECTIVE_RE = re.compile(r"\s*(\.[\w.]*)")


class NameScope:
    directives: tuple[str, ...] = (".equ", ".set")
    label_rule = ""          # hint for a bad label: what a label may be
    names_hint = ""          # hint for an unknown name: what names an expression may use
    directives_hint = ""     # hint for an unknown directive, before any suggestion

    def __init__(self, source_name: str, limit: int):
        self.diags = Diagnostics(source_name, limit)
        self.labels: dict[str, int] = {}
        self.label_lines: dict[str, int] = {}
        self.constants: dict[str, int] = {}
        self.constant_lines: dict[str, int] = {}
        self.later_constants: dict[str, int] = {}     # constant names seen in pass 1
        self.current_line = 0

    # --- what each assembler supplies ---------------------------------------------------

    def name_problem(self, name: str) -> str:
        """Why `name` cannot be defined ("" when it can)."""
        return asmtext.check_name(name)

    def is_register_name(self, name: str) -> bool:
        raise NotImplementedError

    def name_tables(self) -> tuple[dict[str, int], ...]:
        """The tables an expression name is looked up in, first match wins."""
        return (self.constants, self.labels)

    def redefinition(self, name: str) -> str:
        """The message when a constant's name is taken ("" when it is free)."""
        raise NotImplementedError

    # --- labels ---------------------------------------------------------------------------

    def define_label(self, line: Line, name: str, col: int, index: int) -> None:
        bad = self.name_problem(name)
        if bad:
            self.diags.error(line, col, f"bad label: {bad}", self.label_rule)
        elif name in self.labels:
            self.diags.error(line, col, f"label '{name}' already defined at line {self.label_lines[name]}",
                             "each label may be defined once; rename one of them")
        else:
            self.labels[name] = index
            self.label_lines[name] = line.number

    # --- expressions ----------------------------------------------------------------------

    def lookup(self, name: str) -> int | None:
        for table in self.name_tables():
            v = table.get(name)
            if v is not None:
                return v
        return None

    def unknown(self, name: str) -> tuple[str, str]:
        if self.is_register_name(name):
            return (f"register {name} cannot be used inside an expression",
                    "expressions are evaluated by the assembler; registers hold run-time values")
        later = self.later_constants.get(name)
        if later is not None and later > self.current_line:
            return (f"constant '{name}' is used before its definition at line {later}",
                    f"move `.equ {name}, ...` above its first use")
        if later is not None:
            return (f"constant '{name}' has no value: its definition at line {later} has an error",
                    "fix that definition first")
        known = [n for table in self.name_tables() for n in table]
        near = suggest(name, known)
        hint = f"did you mean {' or '.join(near)}? " if near else ""
        return f"unknown name '{clip(name)}'", hint + self.names_hint

    def expression(self, line: Line, piece: Piece) -> int | None:
        self.current_line = line.number
        try:
            return asmtext.evaluate(piece.text, self.lookup, self.unknown)
        except ExprError as e:
            self.diags.error(line, piece.column + e.offset, e.message, e.hint)
            return None

    # --- directives -----------------------------------------------------------------------

    def directive_head(self, line: Line, pos: int, directive: str) -> re.Match | None:
        """The directive word at `pos` of the line, or None (reported) if it is unknown."""
        m = DIRECTIVE_RE.match(line.code, pos)
        if directive not in self.directives:
            near = suggest(m.group(1), self.directives)
            self.diags.error(line, m.start(1) + 1, f"unknown directive '{clip(m.group(1))}'",
                             self.directives_hint + (f"; did you mean {near[0]}?" if near else ""))
            return None
        return m

    def define_constant(self, line: Line, directive: str, pieces: list[Piece], problems, usage: str) -> None:
        """`directive NAME, expression`, its operands already split."""
        for pc, msg in problems:
            self.diags.error(line, pc, msg, usage)
        if len(pieces) != 2:
            where = pieces[2].column if len(pieces) > 2 else len(line.code) + 1
            self.diags.error(line, where, f"{directive} takes a name and a value, got {len(pieces)} "
                             f"operand{'s' if len(pieces) != 1 else ''}", usage)
            return
        name_piece, value_piece = pieces
        if value_piece.inferred:
            self.diags.error(line, value_piece.column, f"missing comma after '{clip(name_piece.text)}'", usage)
        name = name_piece.text
        bad = self.name_problem(name)
        if bad:
            self.diags.error(line, name_piece.column, f"bad constant name: {bad}", usage)
            return
        taken = self.redefinition(name)
        if taken:
            self.diags.error(line, name_piece.column, taken, "each name may be defined once; rename one of them")
            return
        value = self.expression(line, value_piece)
        if value is not None:
            self.constants[name] = value
            self.constant_lines[name] = line.number
