"""Safe integer expressions: the one evaluator behind assembly operands (`.equ`,
immediates) and the ISA data's own formulas (timing classes, memory sizes, lane
patterns). Literals, names a caller resolves, unary + - ~, binary + - * // % << >> &
^ | and parentheses, with Python's precedence and floor semantics; no `eval`.
"""
from __future__ import annotations

import re
from typing import Callable

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



def printable(text: str) -> str:
    """Control characters shown as '?' so a message stays one readable line
    (a tab becomes a blank, keeping columns)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else " " if c == "\t" else "?" for c in text)


def clip(text: str, width: int = 40) -> str:
    """`text` shortened and made printable for a message (garbage must not flood the output)."""
    return printable(text if len(text) <= width else text[:width - 3] + "...")
