"""What every RTL backend shares about Verilog text: the words of a $writememh file, and
hardware.toml expressions written as Verilog (the generated parameter headers)."""
from __future__ import annotations

import ast
from pathlib import Path


def read_memh(path: Path, bits: int) -> list[str]:
    """The data words of a $writememh file, as hex strings (comments and @ lines skipped;
    Icarus writes address comments as `// 0x...`)."""
    out = []
    for line in path.read_text().splitlines():
        out.extend(w for w in line.split("//", 1)[0].split() if not w.startswith("@"))
    return out


_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "/"}


def verilog_expr(expr: str, names: set[str]) -> str:
    """A hardware.toml expression (integers, parameters, + - * // and parentheses) as
    Verilog; every value is non-negative, so // and Verilog's / agree."""
    def emit(node) -> str:
        if isinstance(node, ast.Expression):
            return emit(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return str(node.value)
        if isinstance(node, ast.Name) and node.id in names:
            return node.id
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return f"({emit(node.left)} {_OPS[type(node.op)]} {emit(node.right)})"
        raise ValueError(f"expression {expr!r}: cannot translate {ast.dump(node)} to Verilog")
    text = emit(ast.parse(expr, mode="eval"))
    return text[1:-1] if text.startswith("(") and text.endswith(")") else text


# --- generated headers ------------------------------------------------------------------
# Each backend's generate.py renders its headers from its ISA data as {path: text}; these
# compare them with the committed files and give the command line (rewrite, or --check).

def stale_files(rendered: dict[Path, str]) -> list[Path]:
    """Generated files whose contents differ from what the ISA data gives now."""
    return [p for p, text in rendered.items() if not p.is_file() or p.read_text() != text]


def generate_main(argv: list[str], rendered, module: str) -> int:
    """`python3 -m <module> [--check]`: rewrite the headers `rendered()` gives, or with
    --check exit 1 (naming each) when one is out of date."""
    import sys
    if "--check" in argv:
        bad = stale_files(rendered())
        for p in bad:
            print(f"{p} is out of date: run python3 -m {module}", file=sys.stderr)
        return 1 if bad else 0
    for path, text in rendered().items():
        path.write_text(text)
    return 0
