"""Starting agent runs in the background, as separate processes the viewer follows.

A run started from the workbench is `kernelcraft run ...` (or, for the demo, the
paced autotuner of workbench/tui/background.py) in its own process and session: it
writes the trace store itself, the viewer only reads, and quitting the viewer does
not stop it. Its output goes to a log file, whose last lines say why if it stops
before recording a run (e.g. a missing API key). The run is recognised in the store
by its writer's pid.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from kernelcraft.workbench.store import Run

LOG_TAIL_LINES = 6


@dataclass(frozen=True)
class RunRequest:
    """What to run: an offline agent (`agent`) or an LLM (`model`)."""

    accel: str
    task: str
    config: str
    agent: str | None = "autotune"
    model: str | None = None
    budget: int | None = None
    pace: float = 0.0                  # seconds before each agent reply (demo only)

    def __post_init__(self):
        if bool(self.agent) == bool(self.model):
            raise ValueError("choose either an offline agent or a model (provider/model), "
                             "not both and not neither")
        if self.model and "/" not in self.model:
            raise ValueError(f"model {self.model!r} must be a litellm provider/model string, "
                             f"e.g. openai/gpt-5.2 or anthropic/claude-sonnet-4-5")
        if self.budget is not None and self.budget < 1:
            raise ValueError(f"the iteration budget must be at least 1, got {self.budget}")
        if self.pace < 0:
            raise ValueError(f"pace must be 0 or more seconds, got {self.pace}")

    def argv(self, traces: Path) -> list[str]:
        if self.pace and self.agent == "autotune":
            cmd = [sys.executable, "-m", "kernelcraft.workbench.tui.background", "--pace", str(self.pace)]
        else:
            cmd = [sys.executable, "-m", "kernelcraft.workbench.cli", "run", "--quiet"]
            cmd += ["--model", self.model] if self.model else ["--agent", str(self.agent)]
        cmd += ["--accel", self.accel, "--task", self.task, "--config", self.config,
                "--traces", str(Path(traces).resolve())]
        if self.budget:
            cmd += ["--budget", str(self.budget)]
        return cmd

    def describe(self) -> str:
        who = self.model or self.agent
        return f"{who} on {self.accel}/{self.task}/{self.config}"


@dataclass
class Launched:
    request: RunRequest
    process: subprocess.Popen
    log: Path
    started: float = field(default_factory=time.monotonic)
    run_id: int | None = None

    @property
    def pid(self) -> int:
        return self.process.pid

    def find_run(self, runs: list[Run]) -> int | None:
        """This process's run among `runs`, once it has recorded one."""
        if self.run_id is None:
            mine = [r.id for r in runs if r.writer_pid == self.pid]
            if mine:
                self.run_id = max(mine)
        return self.run_id

    def exited(self) -> int | None:
        return self.process.poll()

    def failure(self) -> str | None:
        """Why the process ended without recording a run, from its log; None while it
        runs or once it has a run."""
        code = self.process.poll()
        if code is None or self.run_id is not None:
            return None
        tail = log_tail(self.log)
        return (f"{self.request.describe()} stopped (exit status {code}) before recording "
                f"a run" + (f":\n{tail}" if tail else f"; see {self.log}"))

    def stop(self) -> None:
        """Ask the run to end (it records itself as interrupted)."""
        if self.process.poll() is None:
            self.process.terminate()


def log_tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.strip().splitlines()[-lines:])


def launch(request: RunRequest, traces: Path, log_dir: Path | None = None) -> Launched:
    """Start `request` in the background, writing to `traces`."""
    log_dir = log_dir or Path(tempfile.gettempdir()) / "kernelcraft-runs"
    log_dir.mkdir(parents=True, exist_ok=True)
    log = log_dir / f"{request.task}-{request.config}-{os.getpid()}-{time.time_ns()}.log"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with open(log, "w", encoding="utf-8") as fh:
        proc = subprocess.Popen(request.argv(traces), stdout=fh, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, env=env, start_new_session=True)
    return Launched(request, proc, log)
