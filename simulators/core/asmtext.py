"""Accelerator-neutral pieces of an assembler: source lines and comments, labels,
operand splitting, integer literals and safe expressions, diagnostics, name hints.

Each accelerator's assembler keeps only what its ISA data cannot say generically
(operand kinds, encodings); everything about reading text lives here so the plena,
coral and aie assemblers report errors the same way.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping

from kernelcraft.isa.expr import ExprError, INT_LIMIT, clip, evaluate, parse_int, printable

from .errors import AsmDiagnostic, AssemblyError

# (the integer expressions and `clip` live in isa/expr.py: the ISA data's own formulas
# use the same evaluator; they stay importable from here)
__all__ = ["ExprError", "INT_LIMIT", "clip", "evaluate", "parse_int", "printable"]

# --- source lines ------------------------------------------------------------------

DEFAULT_COMMENTS = (";", "#", "//")


@dataclass(slots=True)
class Line:
    """One source line. `code` is `raw` with the comment cut off and right-stripped;
    columns in `code` equal columns in `raw`."""

    number: int
    raw: str
    code: str


def comment_pattern(markers: Iterable[str] = DEFAULT_COMMENTS) -> re.Pattern:
    return re.compile("|".join(re.escape(m) for m in sorted(markers, key=len, reverse=True)))


_DEFAULT_COMMENT_RE = comment_pattern()


def split_lines(source: str, comments: re.Pattern = _DEFAULT_COMMENT_RE) -> list[Line]:
    """Split on '\\n' only (an editor's line numbers; '\\r' of CRLF is dropped)."""
    out = []
    for i, raw in enumerate(source.split("\n"), 1):
        if raw.endswith("\r"):
            raw = raw[:-1]
        m = comments.search(raw)
        code = (raw[:m.start()] if m else raw).rstrip()
        out.append(Line(i, raw, code))
    return out


def first_column(text: str, start: int = 0) -> int:
    """1-based column of the first non-blank character at or after index `start`."""
    n = len(text)
    while start < n and text[start].isspace():
        start += 1
    return start + 1


# --- labels and directives ---------------------------------------------------------

NAME_RE = re.compile(r"[A-Za-z_.$][\w.$]*")
_LABEL_RE = re.compile(r"\s*([^\s:,;]+)\s*:(?!:)")


def take_labels(code: str) -> tuple[list[tuple[str, int]], int]:
    """Leading `name:` labels of a line: [(name, column)], and the index where the
    rest of the line starts. Names are returned as written (validity checked by
    `check_name`)."""
    labels, pos = [], 0
    while True:
        m = _LABEL_RE.match(code, pos)
        if not m:
            return labels, pos
        labels.append((m.group(1), m.start(1) + 1))
        pos = m.end()


def check_name(name: str) -> str:
    """'' if `name` is a valid label/constant name, else what is wrong with it."""
    if NAME_RE.fullmatch(name):
        return ""
    if name[:1].isdigit():
        return f"name '{clip(name)}' starts with a digit"
    return f"name '{clip(name)}' may only contain letters, digits, '_', '.' and '$'"


# --- operands ----------------------------------------------------------------------

@dataclass(slots=True)
class Piece:
    """One operand as written: text, 1-based column, and whether it was separated
    from the previous operand by an inferred (missing) comma."""

    text: str
    column: int
    inferred: bool = False


_ATOM_RE = re.compile(r"[\w.$]+|\(|\)|\S")


def split_operands(text: str, column: int) -> tuple[list[Piece], list[tuple[int, str]]]:
    """Split an operand list on top-level commas. `column` is the 1-based column of
    `text[0]`. Returns the pieces and syntax problems [(column, message)]: empty
    operands, a trailing comma, unbalanced parentheses. A piece made of two atoms
    separated only by blanks (`gp1 gp2`) is split in two, the second marked
    `inferred`, so the caller can report the missing comma and still check both."""
    problems: list[tuple[int, str]] = []
    pieces: list[Piece] = []
    depth, start = 0, 0
    bounds = []
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth <= 0:
            bounds.append((start, i))
            start = i + 1
    bounds.append((start, len(text)))
    if depth > 0:
        problems.append((column + len(text), "unclosed '(' in operand"))
    for k, (a, b) in enumerate(bounds):
        seg = text[a:b]
        stripped = seg.strip()
        if not stripped:
            if len(bounds) == 1:
                return [], problems
            if k == len(bounds) - 1:       # point at the comma itself
                problems.append((column + a - 1, "trailing comma after the last operand"))
            else:                          # point at the comma that closes the gap
                problems.append((column + b, "empty operand (two commas in a row?)"))
            continue
        lead = len(seg) - len(seg.lstrip())
        pieces.extend(_split_blanks(stripped, column + a + lead))
    return pieces, problems


def _split_blanks(text: str, column: int) -> list[Piece]:
    """Split `text` where an atom ends, blanks follow, and another atom starts."""
    if " " not in text and "\t" not in text:
        return [Piece(text, column)]
    out, start, prev_end, prev_kind = [], 0, 0, None
    for m in _ATOM_RE.finditer(text):
        tok = m.group()
        kind = "open" if tok == "(" else "close" if tok == ")" else \
            "atom" if (tok[0].isalnum() or tok[0] in "_.$") else "op"
        if prev_kind in ("atom", "close") and kind in ("atom", "open") and m.start() > prev_end:
            out.append(Piece(text[start:prev_end], column + start, inferred=bool(out)))
            start = m.start()
        prev_end, prev_kind = m.end(), kind
    out.append(Piece(text[start:], column + start, inferred=bool(out)))
    return out


# --- hints and diagnostics ---------------------------------------------------------

def suggest(name: str, candidates: Iterable[str], n: int = 3, cutoff: float = 0.6) -> list[str]:
    """The closest candidates to `name`, compared case-insensitively."""
    if len(name) > 64:
        return []
    folded: dict[str, str] = {}
    for c in candidates:
        folded.setdefault(c.upper(), c)
    hits = difflib.get_close_matches(name.upper(), list(folded), n=n, cutoff=cutoff)
    return [folded[h] for h in hits]


def window(text: str, column: int, width: int = 160) -> str:
    """The part of a (possibly very long) line around `column`, for display."""
    if len(text) <= width:
        return printable(text.rstrip())
    start = max(0, min(column - 1 - width // 2, len(text) - width))
    out = printable(text[start:start + width])
    return ("..." if start else "") + out + ("..." if start + width < len(text) else "")


class Diagnostics:
    """Collects every error of a file; keeps the first `limit` in full and counts the
    rest, so garbage input gives bounded output quickly. A hint may be a callable,
    evaluated only for diagnostics that are kept."""

    def __init__(self, source_name: str = "<kernel>", limit: int = 50):
        self.source_name = source_name
        self.limit = limit
        self.kept: list[AsmDiagnostic] = []
        self.omitted = 0

    def __len__(self) -> int:
        return len(self.kept) + self.omitted

    def error(self, line: Line, column: int, message: str,
              hint: str | Callable[[], str] = "") -> None:
        if len(self.kept) >= self.limit:
            self.omitted += 1
            return
        if callable(hint):
            hint = hint()
        self.kept.append(AsmDiagnostic(line.number, max(1, column), message,
                                       window(line.raw, column), hint, self.source_name))

    def raise_if_any(self) -> None:
        if self.kept or self.omitted:
            raise AssemblyError(self.kept, omitted=self.omitted)


def name_env(*maps: Mapping[str, int]) -> Callable[[str], int | None]:
    """A lookup over several name tables, first match wins."""
    def lookup(name: str) -> int | None:
        for m in maps:
            v = m.get(name)
            if v is not None:
                return v
        return None
    return lookup
