"""Reading GNU RISC-V assembly text: comments (`#`), statements separated by `;`,
labels (`name:` and numeric local labels `1:` referenced as `1b` / `1f`), quoted
strings, and relocation operators (`%hi(x)`, `%lo(x)`, `%pcrel_hi(x)`, `%pcrel_lo(x)`).

Columns are 1-based positions in the raw line, so every diagnostic points at the
character a person sees in their editor.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from kernelcraft.simulators.core.asmtext import Line


@dataclass(slots=True)
class Stmt:
    """One statement: `line.raw[start:end]` without comment, labels already taken."""

    line: Line
    start: int
    end: int

    @property
    def text(self) -> str:
        return self.line.raw[self.start:self.end]


def split_statements(number: int, raw: str) -> tuple[Line, list[tuple[int, int]], list[tuple[int, str]]]:
    """Cut a raw line into statements: returns the Line (code = raw without comment),
    the [start, end) ranges of its statements and problems [(column, message)]."""
    if raw.endswith("\r"):
        raw = raw[:-1]
    ranges, problems = [], []
    start, i, n, quote = 0, 0, len(raw), False
    end = n
    while i < n:
        ch = raw[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == '"':
                quote = False
        elif ch == '"':
            quote = True
        elif ch == "#":
            end = i
            break
        elif ch == "/" and raw.startswith("//", i):
            problems.append((i + 1, "'//' does not start a comment in RISC-V assembly; use '#'"))
            end = i
            break
        elif ch == ";":
            ranges.append((start, i))
            start = i + 1
        i += 1
    if quote:
        problems.append((n + 1, "unterminated string: a '\"' is missing"))
    ranges.append((start, end))
    code = raw[:end].rstrip()
    return Line(number, raw, code), [r for r in ranges if raw[r[0]:r[1]].strip()], problems


_LABEL = re.compile(r"\s*([A-Za-z_.$][\w.$]*|\d+)\s*:(?!:)")


def take_labels(raw: str, start: int, end: int) -> tuple[list[tuple[str, int]], int]:
    """Leading labels of a statement: [(name, column)] and where the rest starts."""
    labels, pos = [], start
    while True:
        m = _LABEL.match(raw, pos, end)
        if not m:
            return labels, pos
        labels.append((m.group(1), m.start(1) + 1))
        pos = m.end()


LOCAL_REF = re.compile(r"(?<![\w.$])(\d+)([bf])(?![\w.$])")


LOCAL_PREFIX = "$local"


def local_name(number: str, index: int) -> str:
    """The internal name of the index-th definition of numeric label `number`."""
    return f"{LOCAL_PREFIX}{number}${index}"


def parse_string(text: str) -> tuple[bytes | None, str]:
    """A double-quoted string with C escapes -> bytes (UTF-8), or (None, problem)."""
    t = text.strip()
    if len(t) < 2 or t[0] != '"' or t[-1] != '"':
        return None, "expected a double-quoted string"
    body, out, i = t[1:-1], bytearray(), 0
    simple = {"n": 10, "t": 9, "r": 13, "0": 0, "\\": 92, '"': 34, "'": 39, "a": 7, "b": 8,
              "f": 12, "v": 11}
    while i < len(body):
        ch = body[i]
        if ch == '"':
            return None, "a '\"' inside the string must be written \\\""
        if ch != "\\":
            out += ch.encode()
            i += 1
            continue
        if i + 1 >= len(body):
            return None, "the string ends with a lone backslash"
        nxt = body[i + 1]
        if nxt == "x":
            m = re.match(r"[0-9A-Fa-f]{1,2}", body[i + 2:])
            if not m:
                return None, "\\x must be followed by hex digits"
            out.append(int(m.group(), 16))
            i += 2 + len(m.group())
        elif nxt in "01234567" and re.match(r"[0-7]{1,3}", body[i + 1:]).group() != "0":
            m = re.match(r"[0-7]{1,3}", body[i + 1:])
            out.append(int(m.group(), 8) & 0xFF)
            i += 1 + len(m.group())
        elif nxt in simple:
            out.append(simple[nxt])
            i += 2
        else:
            return None, f"unknown escape \\{nxt}"
    return bytes(out), ""


# --- binary32 from a decimal or hex literal, correctly rounded -----------------------

def float_bits(text: str) -> int | None:
    """IEEE binary32 bits of a decimal float literal (also `0f1.5`, inf, nan), rounded
    to nearest even from the exact value; None if it is not a number."""
    t = text.strip().lower().replace("_", "")
    sign = 0
    if t[:1] in "+-":
        sign, t = (1 if t[0] == "-" else 0), t[1:]
    if t.startswith("0f"):          # GNU's 0f prefix for float literals
        t = t[2:]
    if t in ("inf", "infinity"):
        return sign << 31 | 0x7F800000
    if t == "nan":
        return sign << 31 | 0x7FC00000
    try:
        value = Fraction(t)
    except (ValueError, ZeroDivisionError, OverflowError):
        return None
    return sign << 31 | _round_f32(value)


def _round_f32(v: Fraction) -> int:
    """Bits of |v| as binary32, round to nearest even, overflow to infinity."""
    if v == 0:
        return 0
    e = v.numerator.bit_length() - v.denominator.bit_length()
    if Fraction(2) ** e > v:
        e -= 1
    e = max(e, -126)                       # subnormals share the exponent of 2^-126
    scaled = v / Fraction(2) ** (e - 23)   # 24 significant bits before the point
    q, r = divmod(scaled.numerator, scaled.denominator)
    half = Fraction(r, scaled.denominator)
    if half > Fraction(1, 2) or (half == Fraction(1, 2) and q & 1):
        q += 1
    if q == 1 << 24:
        q, e = q >> 1, e + 1
    if e > 127:
        return 0x7F800000
    if q < 1 << 23:                        # subnormal (e == -126)
        return q
    return (e + 127) << 23 | (q & 0x7FFFFF)
