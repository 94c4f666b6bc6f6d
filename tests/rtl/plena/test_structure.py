"""The plena core is hardware, not a model: no DPI-C, no hierarchical reference, no file
or simulation-only system task anywhere in its sources. Only the harness (plena_sim.v,
which also holds the external HBM storage behind the core's memory port) and the HBM
model it includes (plena_hbm.vh, plena_hbm.cpp) may use DPI-C and files; the harness,
plena_top and the cocotb bench reach the core only through its ports (the host port
for the program and every memory, register and counter)."""
import re

from kernelcraft.simulators.plena_rtl import build

HARNESS = {"plena_sim.v", "plena_hbm.vh", "plena_hbm.cpp"}
FORBIDDEN = {
    "a DPI-C import": re.compile(r'import\s+"DPI-C"'),
    "the HBM model": re.compile(r'`include\s+"plena_hbm\.vh"'),
    "a hierarchical reference": re.compile(r"\b(plena_top|u_core|u_sim|u_matrix)\s*\.\s*\w"),
    "a simulation-only system task": re.compile(
        r"\$(readmem[hb]|writemem[hb]|fopen|fclose|fwrite|fscanf|display|sformatf|value\$plusargs)\b"),
}


# Any `name.name` outside comments and strings: in these files only a hierarchical
# reference has one (port connections are `.port(...)` after a comma or parenthesis).
DOTTED = re.compile(r"\b([A-Za-z_]\w*)\s*\.\s*[A-Za-z_]")
STRING = re.compile(r'"(\\.|[^"\\])*"')
TOP_PORTS = {"job", "go", "halt", "finished"}


def _code(text: str) -> str:
    return STRING.sub('""', re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S))


def _core_sources():
    files = [p for p in build.sources() if p.suffix in (".v", ".vh") and p.name not in HARNESS]
    files += [p for p in build.PLENA_RTL.glob("*.vh") if p.name not in HARNESS]
    return sorted(set(files))


def test_core_sources_hold_no_simulation_model():
    sources = _core_sources()
    assert any(p.name == "plena_core.v" for p in sources)
    assert any(p.name == "plena_dma.v" for p in sources)
    found = []
    for path in sources:
        text = re.sub(r"//[^\n]*|/\*.*?\*/", "", path.read_text(), flags=re.S)  # code only
        for what, pattern in FORBIDDEN.items():
            for m in pattern.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                found.append(f"{path.name}:{line}: {what} ({m.group(0)!r})")
    assert not found, "\n".join(found)


def test_harness_reaches_the_core_only_through_ports():
    harness = [build.PLENA_RTL / n for n in ("plena_sim.v", "plena_hbm.vh", "plena_top.v")]
    found = [f"{p.name}: {m.group(0)!r}" for p in harness for m in DOTTED.finditer(_code(p.read_text()))]
    assert not found, "hierarchical references from the harness:\n" + "\n".join(found)
    # Both job drivers (cocotb's and bulk mode's) use plena_top's own ports only.
    rtl = build.ROOT / "simulators" / "rtl"
    touched = set(re.findall(r"\bdut\.(\w+)", (rtl / "cocotb_jobs.py").read_text()))
    touched_cpp = set(re.findall(r"\btop[.>-]+(\w+)", (rtl / "bulk_main.cpp").read_text()))
    assert touched and touched <= TOP_PORTS, touched - TOP_PORTS
    assert touched_cpp - {"eval", "eventsPending", "nextTimeSlot", "final"} == TOP_PORTS, touched_cpp


def test_the_check_finds_what_it_looks_for(tmp_path):
    """The patterns match the constructs they forbid (the test above can fail)."""
    bad = ('import "DPI-C" function void f();\n`include "plena_hbm.vh"\n'
           "x = plena_top.u_core.vsram[0];\n$readmemh(p, m);\n")
    hits = [what for what, pattern in FORBIDDEN.items() if pattern.search(bad)]
    assert hits == list(FORBIDDEN)
    harness = ('$fwrite(fd, "%h", u_top.u_core.gp[k]);  // x.y in a comment\n'
               'plena_hbm_read(a, "hbm.bin", .5);\nfoo u_x (.clk(clk), .d(q));\n')
    assert [m.group(1) for m in DOTTED.finditer(_code(harness))] == ["u_top"]
