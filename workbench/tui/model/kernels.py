"""Kernel sources for display: syntax highlighting driven by the ISA data, and diffs
between versions.

What is a mnemonic, a register or a hardware parameter comes from `isa/<accel>/`
(`get_isa`): mnemonics are coloured by the unit that executes them, so a reader sees
at a glance which lines feed the matrix unit and which move data. Comments, labels
and directives follow the shared assembler text rules (simulators/core/asmtext.py).
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from functools import lru_cache

from rich.text import Text

from kernelcraft.isa.loader import get_isa
from kernelcraft.simulators.core.asmtext import split_lines, take_labels

# Styles by role; units not listed fall back to "instruction".
UNIT_STYLES = {"matrix": "bold magenta", "vector": "bold cyan", "dma": "bold yellow",
               "control": "bold blue", "scalar_int": "bold green", "scalar_fp": "bold green"}
STYLES = {"instruction": "bold", "register": "orange1", "number": "bright_blue",
          "param": "italic bright_magenta", "comment": "grey50 italic", "label": "bold underline",
          "directive": "bold red", "unknown": "red"}
CURRENT_LINE = "on dark_green"
BREAKPOINT_MARK = "●"
MAX_SHOWN_LINES = 4000          # longer kernels are shown up to here, with a note

_TOKEN = re.compile(r"[A-Za-z_.$][\w.$]*|0[xX][0-9A-Fa-f]+|0[bB][01]+|\d+(?:\.\d*)?")


@dataclass(frozen=True)
class _Lexicon:
    units: dict[str, str]          # mnemonic -> unit
    registers: re.Pattern
    params: frozenset[str]


@lru_cache(maxsize=8)
def lexicon(accel: str) -> _Lexicon:
    isa = get_isa(accel)
    prefixes = sorted((k.prefix for k in isa.register_kinds()), key=len, reverse=True)
    regs = re.compile(r"(?:%s)\d+" % "|".join(map(re.escape, prefixes)) if prefixes else r"(?!)")
    return _Lexicon({m: d.unit for m, d in isa.instructions.items()}, regs,
                    frozenset(isa.params))


def _highlight_code(out: Text, code: str, lex: _Lexicon) -> None:
    labels, pos = take_labels(code)
    out.append(code[:pos], STYLES["label"] if labels else "")
    rest = code[pos:]
    first = True
    last = 0
    for m in _TOKEN.finditer(rest):
        out.append(rest[last:m.start()])
        word = m.group(0)
        if first:
            first = False
            if word.startswith("."):
                style = STYLES["directive"]
            elif word.upper() in lex.units:
                style = UNIT_STYLES.get(lex.units[word.upper()], STYLES["instruction"])
            else:
                style = STYLES["unknown"]
        elif lex.registers.fullmatch(word):
            style = STYLES["register"]
        elif word in lex.params:
            style = STYLES["param"]
        elif word[0].isdigit():
            style = STYLES["number"]
        else:
            style = ""
        out.append(word, style)
        last = m.end()
    out.append(rest[last:])


def highlight(source: str, accel: str, *, current_line: int | None = None,
              breakpoints: frozenset[int] | set[int] = frozenset(),
              line_numbers: bool = True) -> Text:
    """The kernel as styled text: one line per source line, numbered, with the
    current instruction's line highlighted and breakpoint lines marked."""
    lex = lexicon(accel)
    lines = split_lines(source)
    if lines and lines[-1].raw == "" and len(lines) > 1:
        lines = lines[:-1]                      # a final newline is not a line
    shown = lines[:MAX_SHOWN_LINES]
    width = len(str(len(lines)))
    out = Text(no_wrap=True, overflow="ellipsis")
    for ln in shown:
        start = len(out)
        if line_numbers:
            mark = BREAKPOINT_MARK if ln.number in breakpoints else " "
            out.append(mark, "bold red")
            out.append(f"{ln.number:>{width}} ", "grey50")
        _highlight_code(out, ln.code, lex)
        out.append(ln.raw[len(ln.code):], STYLES["comment"])
        if ln.number == current_line:
            out.stylize(CURRENT_LINE, start, len(out))
        out.append("\n")
    if len(lines) > len(shown):
        out.append(f"... {len(lines) - len(shown)} more lines not shown\n", "italic")
    out.rstrip()
    return out


@dataclass(frozen=True)
class DiffStats:
    added: int
    removed: int

    def __str__(self) -> str:
        return f"+{self.added} -{self.removed}"


def diff(old: str | None, new: str, *, old_name: str = "previous", new_name: str = "this",
         context: int = 3) -> tuple[Text, DiffStats]:
    """A unified diff of two kernel versions, coloured; `old` None means there is no
    previous version (everything is new)."""
    a = (old or "").splitlines()
    b = new.splitlines()
    out = Text(no_wrap=True, overflow="ellipsis")
    added = removed = 0
    if old is None:
        out.append(f"first version: {len(b)} lines, nothing to compare with\n", "italic")
        return out, DiffStats(len(b), 0)
    lines = list(difflib.unified_diff(a, b, old_name, new_name, lineterm="", n=context))
    if not lines:
        out.append("identical to the previous version\n", "italic")
        return out, DiffStats(0, 0)
    for line in lines[:MAX_SHOWN_LINES]:
        if line.startswith(("+++", "---")):
            out.append(line + "\n", "bold")
        elif line.startswith("@@"):
            out.append(line + "\n", "cyan")
        elif line.startswith("+"):
            added += 1
            out.append(line + "\n", "green")
        elif line.startswith("-"):
            removed += 1
            out.append(line + "\n", "red")
        else:
            out.append(line + "\n")
    for line in lines[MAX_SHOWN_LINES:]:
        added += line.startswith("+") and not line.startswith("+++")
        removed += line.startswith("-") and not line.startswith("---")
    if len(lines) > MAX_SHOWN_LINES:
        out.append(f"... {len(lines) - MAX_SHOWN_LINES} more diff lines not shown\n", "italic")
    out.rstrip()
    return out, DiffStats(added, removed)
