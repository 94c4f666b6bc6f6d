"""Imports run downwards only: isa <- simulators <- tasks <- workbench (STYLE.md), all
four inside the `kernelcraft` namespace.

Every import statement of every module (also those inside functions, which run later
but still tie the layers together) is read with `ast`; an import of a higher layer
fails, and so does a cycle between modules (a cycle through a lazy import is still a
cycle: the two modules cannot be understood, or moved, one without the other)."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("isa", "simulators", "tasks", "workbench")     # lowest first


def _modules() -> dict[str, Path]:
    out = {}
    for top in LAYERS:
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out["kernelcraft." + ".".join(parts)] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> list[tuple[str, int]]:
    """(imported module of the project, line) for each import in the file."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            # `from pkg import mod` imports pkg.mod when that is a module
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                       for a in node.names]
        else:
            continue
        for t in targets:
            while t and t not in modules:          # `import a.b.c` of a module a.b.c's package
                t = t.rpartition(".")[0]
            if t and _part(t) in LAYERS and t != name:
                found.append((t, node.lineno))
    return found


def _graph():
    modules = _modules()
    return modules, {m: _imports(m, p, modules) for m, p in modules.items()}


def _part(module: str) -> str | None:
    """isa, simulators, tasks or workbench for a module of ours (kernelcraft.<part>...)."""
    head, _, rest = module.partition(".")
    return rest.partition(".")[0] if head == "kernelcraft" else None


def _layer(module: str) -> int:
    return LAYERS.index(_part(module))


def test_no_import_runs_upwards():
    modules, graph = _graph()
    upward = [f"{modules[m].relative_to(ROOT)}:{line}: {m} imports {t}"
              for m, edges in graph.items() for t, line in edges if _layer(t) > _layer(m)]
    assert not upward, "imports that run upwards (isa <- simulators <- tasks <- workbench):\n" \
        + "\n".join(upward)


def _cycles(graph: dict[str, list[tuple[str, int]]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w, _ in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    import sys
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for v in graph:
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return out


def test_no_cycle_crosses_a_layer():
    _, graph = _graph()
    crossing = [c for c in _cycles(graph) if len({_layer(m) for m in c}) > 1]
    assert not crossing, "import cycles between layers:\n" + "\n".join(" <-> ".join(c) for c in crossing)


def test_tasks_and_workbench_have_no_cycle():
    """(cli, execcmd and suite used to import each other's private helpers, which tied 40
    workbench modules into one knot; shared command-line helpers live in cliargs.py.)
    The simulators' semantics packages still import their own modules both ways."""
    _, graph = _graph()
    knots = [c for c in _cycles(graph) if _layer(c[0]) >= LAYERS.index("tasks")]
    assert not knots, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in knots)


def test_only_an_accelerators_own_modules_import_its_packages():
    """Everything an accelerator plugs in is reached through its registry record
    (workbench/accel/__init__.py), so shared workbench and simulators modules never
    import one accelerator's packages; its record and debugger view may."""
    from kernelcraft.workbench.accel import NAMES
    modules, graph = _graph()
    own = {"isa", "simulators"}
    wrong = []
    for m, edges in graph.items():
        for t, line in edges:
            parts = t.split(".")[1:]
            if parts[0] not in own or len(parts) < 2:
                continue
            accel = parts[1].removesuffix("_rtl")
            if accel not in NAMES:
                continue
            if not m.startswith(tuple(f"kernelcraft.{p}.{accel}" for p in (
                    "isa", "simulators", "workbench.accel", "workbench.tui.model.views"))):
                wrong.append(f"{modules[m].relative_to(ROOT)}:{line}: {m} imports {t}")
    assert not wrong, "accelerator packages imported outside the accelerator:\n" + "\n".join(wrong)


def test_the_checker_sees_an_upward_and_a_cyclic_import(tmp_path):
    graph = {"kernelcraft.isa.a": [("kernelcraft.simulators.b", 3)],
             "kernelcraft.simulators.b": [("kernelcraft.isa.a", 1)]}
    assert _cycles(graph) == [["kernelcraft.isa.a", "kernelcraft.simulators.b"]]
    assert _layer("kernelcraft.simulators.b") > _layer("kernelcraft.isa.a")
    modules = {"kernelcraft.isa": None, "kernelcraft.isa.a": None, "kernelcraft.simulators": None,
               "kernelcraft.simulators.b": None, "kernelcraft.simulators.core": None}
    src = tmp_path / "a.py"
    src.write_text("import os\nfrom kernelcraft.simulators.b import x\nfrom . import a\n"
                   "def f():\n    import kernelcraft.simulators.core.nothing\n")
    assert _imports("kernelcraft.isa.a", src, modules) == [("kernelcraft.simulators.b", 2),
                                                          ("kernelcraft.simulators.core", 5)]


def test_nothing_imports_a_part_outside_the_namespace():
    """A bare `import workbench` would load a second copy of a module (two registries,
    two stores) beside kernelcraft.workbench's, or another distribution's package."""
    bare = []
    ours = [ROOT / "setup.py"] + [p for top in (*LAYERS, "kernelcraft", "rtl", "tests", "scripts")
                                  for p in sorted((ROOT / top).rglob("*.py"))]
    for path in ours:              # the project's own folders (not a venv or build/ inside it)
        rel = path.relative_to(ROOT)
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                     else [])
            bare += [f"{rel}:{node.lineno}: {n}" for n in names if n.split(".")[0] in LAYERS]
    assert not bare, "imports outside the kernelcraft namespace:\n" + "\n".join(bare)
