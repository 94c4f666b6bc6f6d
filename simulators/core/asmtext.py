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

from .errors import AsmDiagnostic, AssemblyError

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


# --- integer expressions -----------------------------------------------------------

class ExprError(Exception):
    """An expression cannot be evaluated; `offset` is the 0-based index in its text."""

    def __init__(self, message: str, offset: int = 0, hint: str = ""):
        super().__init__(message)
        self.message, self.offset, self.hint = message, offset, hint


INT_LIMIT = 1 << 64          # expressions stay within +-2**64, shifts within 0..64
MAX_DEPTH = 64
MAX_EXPR_CHARS = 1000        # far beyond any real operand; bounds the work on garbage
_DECIMAL = re.compile(r"-?\d[\d_]*")
_PLAIN_INT = re.compile(r"-?(?:0[xX][0-9A-Fa-f]+|0[bB][01]+|\d+)")
_TOKEN_RE = re.compile(r"\s*(?:(\d[\w]*)|([A-Za-z_.$][\w.$]*)|(<<|>>|//|[-+*/%()&|^~])|(\S))")


def parse_int(text: str) -> int | None:
    """A literal integer (decimal, 0x hex, 0b binary, 0o octal, '_' separators,
    leading '-'), or None."""
    if len(text) > 80:          # longer than any 64-bit literal; int() would be slow
        return None
    try:
        return int(text, 0)
    except ValueError:
        pass
    try:                        # int(x, 0) refuses leading zeros in decimals: 007
        return int(text, 10) if _DECIMAL.fullmatch(text) else None
    except ValueError:
        return None


def _tokens(text: str) -> list[tuple[str, str, int]]:
    toks = []
    pos, n = 0, len(text)
    while pos < n:
        m = _TOKEN_RE.match(text, pos)
        if m is None:            # only blanks remain
            break
        num, name, op, bad = m.groups()
        if num is not None:
            toks.append(("num", num, m.start(1)))
        elif name is not None:
            toks.append(("name", name, m.start(2)))
        elif op is not None:
            toks.append(("op", op, m.start(3)))
        else:
            toks.append(("bad", bad, m.start(4)))
        pos = m.end()
    toks.append(("end", "", len(text.rstrip())))
    return toks


def evaluate(text: str, lookup: Callable[[str], int | None],
             unknown: Callable[[str], tuple[str, str]] | None = None) -> int:
    """Evaluate an integer expression: literals, names (resolved by `lookup`, which
    returns None for an unknown name), unary + - ~, binary + - * // % << >> & ^ | and
    parentheses, with Python's precedence and floor semantics. `unknown(name)`
    returns (message, hint) for a name `lookup` does not know. Raises ExprError."""
    if _PLAIN_INT.fullmatch(text):
        value = parse_int(text)
        if value is not None and -INT_LIMIT <= value <= INT_LIMIT:
            return value
    if len(text) > MAX_EXPR_CHARS:
        raise ExprError(f"expression of {len(text)} characters is too long "
                        f"(at most {MAX_EXPR_CHARS})", 0, "name a constant with .equ and use it")
    toks = _tokens(text)
    pos = 0

    def peek():
        return toks[pos]

    def advance():
        nonlocal pos
        tok = toks[pos]
        pos += 1
        return tok

    def check(value: int, at: int) -> int:
        if not -INT_LIMIT <= value <= INT_LIMIT:
            raise ExprError("value too large (expressions are limited to 64-bit integers)", at)
        return value

    def primary(depth: int) -> int:
        kind, tok, at = advance()
        if kind == "num":
            value = parse_int(tok)
            if value is None:
                raise ExprError(f"invalid number '{clip(tok)}'", at,
                                "numbers are decimal (42), hex (0x2A), binary (0b101010) or octal (0o52)")
            return check(value, at)
        if kind == "name":
            value = lookup(tok)
            if value is None:
                msg, hint = unknown(tok) if unknown else (f"unknown name '{clip(tok)}'", "")
                raise ExprError(msg, at, hint)
            return value
        if tok == "(":
            if depth > MAX_DEPTH:
                raise ExprError("expression nested too deeply", at)
            value = binary(0, depth + 1)
            k2, t2, at2 = advance()
            if t2 != ")":
                raise ExprError("missing ')'" if k2 == "end" else f"expected ')' before '{clip(t2)}'",
                                at2, "parentheses must balance")
            return value
        if tok in ("-", "+", "~"):
            if depth > MAX_DEPTH:
                raise ExprError("expression nested too deeply", at)
            value = primary(depth + 1)
            return -value if tok == "-" else ~value if tok == "~" else value
        if kind == "end":
            raise ExprError("expression ends where a number or name is expected", at)
        if kind == "bad":
            raise ExprError(f"unexpected character '{tok}'", at,
                            "expressions use integers, names, + - * // % << >> & | ^ ~ and parentheses")
        raise ExprError(f"'{tok}' where a number or name is expected", at)

    levels = ({"|"}, {"^"}, {"&"}, {"<<", ">>"}, {"+", "-"}, {"*", "//", "%"})

    def binary(level: int, depth: int) -> int:
        if level == len(levels):
            return primary(depth)
        left = binary(level + 1, depth)
        while True:
            kind, tok, at = peek()
            if tok == "/" and kind == "op":
                raise ExprError("'/' is not an integer operator", at, "use // for integer (floor) division")
            if kind != "op" or tok not in levels[level]:
                return left
            advance()
            right = binary(level + 1, depth)
            left = check(_apply(tok, left, right, at), at)

    value = binary(0, 0)
    kind, tok, at = peek()
    if kind != "end":
        if tok == ")":
            raise ExprError("unmatched ')'", at, "parentheses must balance")
        if kind == "bad":
            raise ExprError(f"unexpected character '{tok}'", at,
                            "expressions use integers, names, + - * // % << >> & | ^ ~ and parentheses")
        raise ExprError(f"unexpected '{clip(tok)}' after a complete value", at,
                        "a missing operator or comma?")
    return value


def _apply(op: str, a: int, b: int, at: int) -> int:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "&":
        return a & b
    if op == "|":
        return a | b
    if op == "^":
        return a ^ b
    if op in ("//", "%"):
        if b == 0:
            raise ExprError("division by zero", at)
        return a // b if op == "//" else a % b
    if not 0 <= b <= 64:
        raise ExprError(f"shift by {b}: shift amounts must be 0..64", at)
    return a << b if op == "<<" else a >> b


# --- hints and diagnostics ---------------------------------------------------------

def printable(text: str) -> str:
    """Control characters shown as '?' so a message stays one readable line
    (a tab becomes a blank, keeping columns)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else " " if c == "\t" else "?" for c in text)


def clip(text: str, width: int = 40) -> str:
    """`text` shortened and made printable for a message (garbage must not flood the output)."""
    return printable(text if len(text) <= width else text[:width - 3] + "...")


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
