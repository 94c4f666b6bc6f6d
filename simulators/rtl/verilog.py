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
