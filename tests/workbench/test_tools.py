"""workbench/tools.py: what the agent is told about a task."""
import pytest

from kernelcraft.tasks import all_tasks
from kernelcraft.tasks.tolerance import units
from kernelcraft.workbench.tools import task_statement


@pytest.mark.parametrize("accel", ["plena", "coral", "aie"])
def test_every_task_statement_states_its_tolerance(accel):
    """What the agent is shown carries, per output, the rtol and atol `compare` applies."""
    for task in all_tasks():
        config = task.visible_configs()[0]
        text = task_statement(accel, task.name, config)
        for spec in task.outputs(config):
            tol = task.tolerance(config, spec.name)
            assert tol.explain(spec.name) in text
            assert f"rtol = {units(tol.rtol)} = {tol.rtol:.6g}" in text
            assert f"atol = {units(tol.atol_scale)} = {tol.atol_scale:.6g}" in text
