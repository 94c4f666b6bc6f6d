"""The plena RTL's top-level parameters as pyverilog reads them from rtl/plena/plena_top.v,
so a test can hold them against isa/plena/hardware.toml: the functional model and the RTL
cannot drift apart silently."""
from __future__ import annotations

import tempfile
from pathlib import Path

from .build import PLENA_RTL

TOP_FILE = PLENA_RTL / "plena_top.v"


def _walk(node):
    yield node
    for child in node.children():
        yield from _walk(child)


def read_top() -> tuple[dict[str, int], dict[str, list[str]]]:
    """(parameter -> default value, instance -> parameters it overrides) of plena_top."""
    from pyverilog.vparser import ast as vast
    from pyverilog.vparser.parser import parse
    with tempfile.TemporaryDirectory() as tmp:   # pyverilog writes its parser tables here
        tree, _ = parse([str(TOP_FILE)], preprocess_include=[str(PLENA_RTL)], outputdir=tmp,
                        debug=False)
    params: dict[str, int] = {}
    overrides: dict[str, list[str]] = {}
    for node in _walk(tree):
        if isinstance(node, vast.ModuleDef) and node.name == "plena_top":
            for decl in node.paramlist.params:
                for p in decl.list:
                    params[p.name] = int(p.value.var.value)
        if isinstance(node, vast.Instance):
            overrides[node.name] = [p.paramname for p in node.parameterlist]
    return params, overrides
