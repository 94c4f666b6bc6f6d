"""The demo's background run: the offline autotuner, paced so a person can watch.

    python -m kernelcraft.workbench.tui.background --accel plena --task silu --config C3 --pace 1

It is an ordinary recorded run (the same AgentLoop, tools and trace store as
`kernelcraft run --agent autotune`), except that the agent waits `--pace` seconds
before each reply, as a model would while it thinks. The pause is recorded in the
run's settings (`demo_pace_seconds`), and it changes nothing else: the kernels,
evaluations and scores are those of an unpaced run.
"""
from __future__ import annotations

import argparse
import signal
import sys
import time

EXIT_OK, EXIT_FAILED, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 130


class PacedAgent:
    """Wraps an agent (the loop's Agent protocol), pausing before each reply."""

    def __init__(self, agent, pace: float):
        self.agent, self.pace = agent, pace
        self.name, self.model = agent.name, agent.model

    def settings(self) -> dict:
        return self.agent.settings()

    def act(self, state):
        time.sleep(self.pace)
        return self.agent.act(state)

    def transfer(self, config, hw):
        return self.agent.transfer(config, hw)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m kernelcraft.workbench.tui.background",
                                description="Run the autotuner, paced for watching.")
    p.add_argument("--accel", required=True)
    p.add_argument("--task", required=True)
    p.add_argument("--config", required=True)
    p.add_argument("--pace", type=float, default=1.0, help="seconds before each agent reply")
    p.add_argument("--budget", type=int)
    p.add_argument("--traces", help="trace store file")
    args = p.parse_args(argv)

    from kernelcraft.simulators.core.errors import KernelCraftError
    from kernelcraft.workbench.agent.autotune import AutotuneAgent
    from kernelcraft.workbench.agent.loop import AgentLoop, RunSpec
    from kernelcraft.workbench.store import TraceStore

    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")
    signal.signal(signal.SIGTERM, interrupt)
    try:
        agent = PacedAgent(AutotuneAgent(args.accel, args.task), max(0.0, args.pace))
        store = TraceStore(args.traces)
        loop = AgentLoop(agent, RunSpec(args.accel, args.task, args.config, budget=args.budget),
                         store, extra_settings={"demo_pace_seconds": agent.pace})
    except (KernelCraftError, KeyError, ValueError) as e:
        print(f"kernelcraft: error: {e.args[0] if isinstance(e, KeyError) and e.args else e}",
              file=sys.stderr)
        return EXIT_ERROR
    try:
        result = loop.run()
    except KeyboardInterrupt:
        store.close()
        return EXIT_INTERRUPTED
    store.close()
    print(f"run {result.run_id}: {result.status}")
    return {"succeeded": EXIT_OK, "failed": EXIT_FAILED}.get(result.status, EXIT_ERROR)


if __name__ == "__main__":
    sys.exit(main())
