"""What a sweep runs: models x accelerators x tasks x configurations x repetitions,
from command-line flags or a TOML sweep file, checked before anything starts.

A sweep file looks like (every key optional except models... given here or by flags):

    [sweep]
    id = "level1-autotune"          # default: derived from the grid, so a rerun resumes
    models = ["autotune", "openai/gpt-5.2"]
    accelerators = ["plena", "aie"]
    tasks = ["relu", "silu", "gemv"]   # or level = 1
    configs = ["C1", "C2"]             # default: every visible configuration of each task
    repetitions = 1
    budget = 15                        # default: the level's budget
    seeds = 3
"""
from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

OFFLINE = "autotune"
SCRIPTED_PREFIX = "scripted/"


@dataclass
class Grid:
    models: list[str]
    accels: list[str]
    tasks: list[str]
    configs: list[str] = field(default_factory=list)   # empty: each task's visible ones
    reps: int = 1
    budget: int | None = None
    seeds: int = 3

    def identity(self) -> dict:
        """What defines the sweep's cells and how each is run (its id is a hash of it)."""
        return asdict(self)

    def default_id(self) -> str:
        text = json.dumps(self.identity(), sort_keys=True)
        return "sw-" + hashlib.sha256(text.encode()).hexdigest()[:10]

    def cells(self) -> list[dict]:
        from kernelcraft.tasks import get_task
        out = []
        for model in self.models:
            for accel in self.accels:
                for task in self.tasks:
                    configs = self.configs or get_task(task).visible_configs()
                    for config in configs:
                        for rep in range(self.reps):
                            out.append({"key": f"{model}|{accel}|{task}|{config}|r{rep}",
                                        "model": model, "accel": accel, "task": task,
                                        "config": config, "rep": rep})
        return out


def provider(model: str) -> str:
    """Whose rate limits a cell is under: the litellm provider prefix, or 'offline'."""
    if model == OFFLINE or model.startswith(SCRIPTED_PREFIX):
        return "offline"
    return model.split("/", 1)[0] if "/" in model else model


def _split(value) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return [str(v).strip() for v in value]


def read_file(path: str) -> dict:
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except OSError as e:
        raise ValueError(f"sweep file {p}: cannot read it ({e.strerror})") from None
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"sweep file {p}: not valid TOML ({e})") from None
    table = data.get("sweep", data)
    known = {"id", "models", "accelerators", "tasks", "level", "configs", "repetitions",
             "budget", "seeds"}
    bad = sorted(set(table) - known)
    if bad:
        raise ValueError(f"sweep file {p}: unknown key(s) {', '.join(bad)}; known: "
                         f"{', '.join(sorted(known))}")
    return table


def build(*, models=None, accels=None, tasks=None, level=None, configs=None, reps=None,
          budget=None, seeds=None, file: str | None = None) -> tuple[Grid, str | None]:
    """A checked Grid from flags, over a sweep file's values; and the file's id if any."""
    from kernelcraft.tasks import all_tasks, get_task
    from kernelcraft.workbench.accel import NAMES, get_accel
    base = read_file(file) if file else {}
    where = f"sweep file {file}" if file else "the command line"
    models = _split(models) or _split(base.get("models"))
    accels = _split(accels) or _split(base.get("accelerators"))
    task_names = _split(tasks) or _split(base.get("tasks"))
    level = level if level is not None else base.get("level")
    if not task_names and level is not None:
        task_names = [t.name for t in all_tasks(int(level))]
    configs = _split(configs) or _split(base.get("configs"))
    reps = reps if reps is not None else int(base.get("repetitions", 1))
    budget = budget if budget is not None else base.get("budget")
    seeds = seeds if seeds is not None else int(base.get("seeds", 3))
    for name, value in (("models", models), ("accelerators", accels), ("tasks", task_names)):
        if not value:
            raise ValueError(f"no {name} given ({where}); e.g. --models autotune --accels plena "
                             f"--tasks relu,silu (or --level 1)")
    bad = [a for a in accels if a not in NAMES]
    if bad:
        raise ValueError(f"unknown accelerator(s) {', '.join(bad)} ({where}); known: "
                         f"{', '.join(NAMES)}")
    for t in task_names:
        get_task(t)                                   # names the known tasks if unknown
    if reps < 1 or seeds < 1 or (budget is not None and int(budget) < 1):
        raise ValueError(f"repetitions, seeds and budget must be at least 1 ({where})")
    for t in task_names:
        wrong = [c for c in configs if c not in get_task(t).visible_configs()]
        if wrong:
            raise ValueError(f"task {t} has no visible configuration {', '.join(wrong)} "
                             f"({where}); it has {', '.join(get_task(t).visible_configs())}")
    if OFFLINE in models:
        missing = [f"{a}/{t}" for a in accels for t in task_names
                   if t not in get_accel(a).baseline_templates()]
        if missing:
            raise ValueError(f"autotune needs a baseline template; none for "
                             f"{', '.join(missing)} ({where}); drop those tasks or accelerators")
    for m in models:
        if m.startswith(SCRIPTED_PREFIX):
            from .scripted import SCRIPTS
            if m[len(SCRIPTED_PREFIX):] not in SCRIPTS:
                raise ValueError(f"unknown scripted model {m!r} ({where}); scripted models: "
                                 f"{', '.join(SCRIPTED_PREFIX + s for s in SCRIPTS)}")
        elif m != OFFLINE and "/" not in m:
            raise ValueError(f"model {m!r} ({where}): give autotune, a scripted/NAME test "
                             f"model, or a litellm provider/model string, e.g. openai/gpt-5.2")
    grid = Grid(models, accels, task_names, configs, int(reps),
                None if budget is None else int(budget), int(seeds))
    return grid, base.get("id")
