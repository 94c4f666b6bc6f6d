"""aie in the workbench: registry entry, layouts of every task, lower bounds, tools
and CLI commands."""
import json

import pytest

from kernelcraft.tasks import all_tasks, get_task
from kernelcraft.workbench.accel import NAMES, get_accel
from kernelcraft.workbench.accel.aie.layout import ALIGN_WORDS
from kernelcraft.workbench.cli import main
from kernelcraft.workbench.tools import check_syntax, get_inst_size, grep_docs, task_statement

ACCEL = get_accel("aie")
HW = ACCEL.default_config()


def test_registered():
    assert "aie" in NAMES and ACCEL.name == "aie" and ACCEL.checked_memories == ("ext",)
    assert ACCEL.imem_limit(HW) == HW.IMEM_WORDS


@pytest.mark.parametrize("task", all_tasks(), ids=lambda t: t.name)
def test_every_task_has_a_valid_layout(task):
    for config in task.configs:
        layout = ACCEL.layout(task, config, HW)
        spans = sorted((r.address, r.address + r.reserved, r.name) for r in layout.regions)
        for (a0, e0, n0), (a1, e1, n1) in zip(spans, spans[1:]):
            assert e0 < a1, f"{task.name} {config}: {n0} overlaps {n1} or has no guard"
        assert all(r.memory == "ext" and r.address % ALIGN_WORDS == 0 for r in layout.regions)
        assert spans[-1][1] <= HW.EXT_SIZE
        assert [c.name for c in layout.constants] == list(task.constants(config))
        assert all(c.memory == "dm" and c.address == 4 * i for i, c in enumerate(layout.constants))


def test_lower_bound_kinds():
    gemm = ACCEL.lower_bound(get_task("gemm"), "C5", HW)
    relu = ACCEL.lower_bound(get_task("relu"), "C5", HW)
    assert gemm.kind == "compute" and gemm.cycles == 256 * 512 * 512 // 256
    assert relu.kind == "bandwidth" and relu.cycles == 256 * 2048 * 2 // 32 + HW.EXT_LATENCY


def test_tools_speak_aie():
    src = ACCEL.baseline("relu", "C1", HW)
    assert check_syntax("aie", src).data["ok"]
    bad = check_syntax("aie", "VLD x0, [p0] || VLD x1, [p1] || VLD x2, [p2]")
    assert "rule slots" in bad.text
    size = get_inst_size("aie", src)
    assert size.data["limit"] == HW.IMEM_WORDS and size.data["instructions"] < 100
    hits = grep_docs("aie", "VMMAC.BF16")
    assert hits.data["hits"] > 3 and "[VMMAC.BF16]" in hits.text
    text = task_statement("aie", "softmax", "C1")
    assert "ext" in text and "DMAIN" in text


def test_cli_isa_baseline_eval_and_exec(tmp_path, capsys):
    assert main(["isa", "aie"]) == 0
    assert "## Bundles and slots" in capsys.readouterr().out
    assert main(["baseline", "--accel", "aie", "--task", "relu", "--config", "C1"]) == 0
    kernel = tmp_path / "k.asm"
    kernel.write_text(capsys.readouterr().out)
    assert main(["eval", "--accel", "aie", "--task", "relu", "--config", "C1", str(kernel),
                 "--seeds", "1", "--json"]) == 0
    ev = json.loads(capsys.readouterr().out)
    assert ev["passed"] and ev["stalls"]["dma_wait"] > 0
    prog = tmp_path / "p.asm"
    prog.write_text(".equ OUT, 64\nMOVI r1, 0x3F80\nVBCST.16 x1, r1\nMOVPI p0, OUT\nVST x1, [p0]\n")
    assert main(["exec", "--accel", "aie", str(prog), "--dump", "dm:OUT:4", "--format", "hex",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["dumps"]["dm:OUT:4"] == ["0x80", "0x3F", "0x80", "0x3F"]


def test_the_autotune_agent_improves_an_aie_baseline(tmp_path):
    from kernelcraft.workbench.agent.autotune import AutotuneAgent
    from kernelcraft.workbench.agent.loop import AgentLoop, RunSpec
    from kernelcraft.workbench.store import TraceStore
    with TraceStore(tmp_path / "traces.db") as store:
        loop = AgentLoop(AutotuneAgent("aie", "gelu"), RunSpec("aie", "gelu", "C2", budget=4), store)
        result = loop.run()
    s = result.scores
    assert s["correct"] and s["best"]["speedup"] > 1.3
