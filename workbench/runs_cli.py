"""`kernelcraft run | runs | show | replay | export`: agent runs and their traces.

`add_run_commands(subparsers)` adds the commands to the main parser (workbench/cli.py).
The trace store is --traces PATH, else $KERNELCRAFT_TRACES, else ./traces.db.
"""
from __future__ import annotations

import json
import signal
import sys
from pathlib import Path

from kernelcraft.workbench.cliargs import DAY, integer, model_name, seconds

EXIT_OK, EXIT_FAILED, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 130


def _store(args, readonly: bool = False):
    from kernelcraft.workbench.store import TraceStore
    store = TraceStore(args.traces, readonly=readonly)
    if store.snapshot_note:
        print(f"kernelcraft: note: {store.snapshot_note}", file=sys.stderr)
    if not readonly:
        store.check_writable()   # before any work, not at the first write
    return store


def _hw_overrides(pairs: list[str] | None) -> dict:
    out = {}
    for p in pairs or []:
        key, sep, val = p.partition("=")
        if not sep:
            raise SystemExit(f"--hw expects NAME=VALUE, got {p!r}")
        try:
            out[key.strip()] = int(val, 0)
        except ValueError:
            raise SystemExit(f"--hw {p}: the value must be an integer") from None
    return out


def _model_params(pairs: list[str] | None) -> dict:
    out = {}
    for p in pairs or []:
        key, sep, val = p.partition("=")
        if not sep or not key.strip():
            raise SystemExit(f"--model-param expects NAME=VALUE, got {p!r}")
        try:
            out[key.strip()] = json.loads(val)
        except json.JSONDecodeError:
            out[key.strip()] = val          # a bare word is a string, e.g. reasoning_effort=high
    return out


def _exit_quickly() -> None:
    """After an interruption everything is recorded; the interpreter's final garbage
    collection of litellm's objects alone took 5 s on a loaded machine. Freezing the
    heap leaves it to the OS, so the process ends within a second of the signal."""
    import gc
    gc.freeze()


def _sigterm_as_interrupt() -> None:
    def handler(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")
    signal.signal(signal.SIGTERM, handler)


class Progress:
    """Live progress of a run on stderr: one line per tool result, a status line while
    the agent thinks."""

    def __init__(self, budget_hint: str = "", quiet: bool = False):
        from rich.console import Console
        self.console = Console(stderr=True, highlight=False)
        self.quiet = quiet
        self.status = None
        self.budget = budget_hint

    def __call__(self, ev) -> None:
        if self.quiet:
            return
        from rich.markup import escape

        from kernelcraft.workbench.agent.transcript import backends_line
        p = ev.payload if isinstance(ev.payload, dict) else {}
        c = self.console
        if ev.type == "message" and ev.role == "assistant":
            text = (p.get("content") or p.get("refusal") or "(no text)").replace("\n", " ")
            c.print(f"[bold]step {ev.step}{self.budget}[/] [cyan]{escape(text[:160])}[/]")
        elif ev.type == "tool_result":
            ok = "[green]ok[/]" if p.get("ok") else "[red]refused[/]"
            first = escape((p.get("content") or "").splitlines()[0][:150] if p.get("content") else "")
            d = p.get("data") or {}
            if p.get("name") == "run_eval" and p.get("ok") and d.get("status"):
                verdict = "[green]PASS[/]" if d.get("passed") else f"[red]{d['status'].upper()}[/]"
                first = (f"kernel v{d.get('version')}: {verdict} {d.get('frac_match', 0):.1%} "
                         f"match, {d.get('cycles')} cycles"
                         + (f", {d['speedup']:.2f}x over the baseline" if d.get("speedup") else ""))
            elif p.get("name") == "run_rtl" and p.get("ok") and d.get("status"):
                first = f"kernel v{d.get('version')}: " + escape(backends_line({
                    b: {"status": d.get(f"{b}_status"), "cycles": d.get(f"{b}_cycles")}
                    for b in ("model", "rtl")} | {"agree": d.get("agree")}))
            c.print(f"  {escape(p.get('name') or '?')} {ok} {first}")
        elif ev.type == "evaluation" and ev.step is None:
            r = p.get("result", {})
            if p.get("tool") == "final_rtl":
                c.print(f"  final {backends_line(r)}")
            else:
                c.print(f"  final {p.get('tool')} on {p.get('config')}: {r.get('status')} "
                        f"{r.get('cycles')} cycles")
        elif ev.type == "note" and p.get("kind") == "rtl_build" and p.get("state") == "done":
            c.print(f"  {escape(ev.text)}")
        elif ev.type == "error":
            c.print(f"  [red]error ({p.get('where')}): {escape(str(p.get('error')))}[/]")
        elif ev.type == "note" and p.get("kind") == "retry":
            from kernelcraft.workbench.agent.transcript import retry_label
            c.print(f"  [yellow]{escape(retry_label(p))}; retrying in {p.get('wait')}s[/]")
        if self.status is not None:
            if ev.type == "message" and ev.role in ("user", "system"):
                self.status.update(f"step {(ev.step or 0) + 1}{self.budget}: waiting for the agent")
            elif ev.type == "tool_call":
                self.status.update(f"step {ev.step}{self.budget}: running {str(p.get('name'))[:64]}")
            elif ev.type == "note" and p.get("kind") == "rtl_build":
                self.status.update("building the RTL for this configuration (seconds when "
                                   "cached, minutes when not)" if p.get("state") == "started"
                                   else f"step 1{self.budget}: waiting for the agent")
            elif ev.type == "note" and p.get("kind") == "final":
                self.status.update("done")
            elif ev.step is None:
                self.status.update("final scoring on held-out inputs and configurations")


def _print_scores(run) -> None:
    from kernelcraft.workbench.agent.transcript import score_lines
    print(f"run {run.id}: {run.status} ({run.accelerator}/{run.task}/{run.config}, "
          f"{run.agent}{' ' + run.model if run.model else ''}, {run.steps} steps, "
          f"tokens {run.tokens_in:,}/{run.tokens_out:,}, cost {run.cost_text})")
    for line in score_lines(run.scores or {}):
        print(" " + line[1:])


def cmd_run(args) -> int:
    if args.model and args.agent:
        raise SystemExit("give either --agent or --model, not both")
    if args.model:                         # a missing key is found before the heavy imports
        from kernelcraft.workbench.llm import LiteLLMModel
        LiteLLMModel(args.model, params=_model_params(args.model_param)).check_credentials()
    from kernelcraft.workbench.accel import get_accel
    from kernelcraft.workbench.agent.loop import AgentLoop, RunSpec
    from kernelcraft.workbench.store import TraceStoreError
    spec = RunSpec(args.accel, args.task, args.config, hw_overrides=_hw_overrides(args.hw),
                   budget=args.budget, manual=args.manual, n_seeds=args.seeds, rtl=args.rtl)
    get_accel(args.accel)
    if args.rtl:
        from kernelcraft.workbench.accel import with_rtl
        if get_accel(args.accel).rtl is None:     # before a model is asked for anything
            raise SystemExit(f"kernelcraft run: --rtl: accelerator {args.accel!r} has no RTL; "
                             f"RTL exists for: {', '.join(with_rtl())}. Run without --rtl")
    if args.model:
        from kernelcraft.workbench.agent.llm_agent import LLMAgent
        from kernelcraft.workbench.llm import LiteLLMModel
        model = LiteLLMModel(args.model, timeout=args.timeout, max_retries=args.retries,
                             api_base=args.api_base, params=_model_params(args.model_param))
        model.check_credentials()          # before anything is recorded
        agent = LLMAgent(model)
    else:
        from kernelcraft.workbench.agent.autotune import AutotuneAgent
        agent = AutotuneAgent(args.accel, args.task)
    store = _store(args)
    progress = Progress(quiet=args.quiet)
    loop = AgentLoop(agent, spec, store, listener=progress)
    progress.budget = f"/{loop.budget}"
    _sigterm_as_interrupt()
    try:
        if args.quiet:
            result = loop.run()
        else:
            with progress.console.status(f"run on {store.path}: starting") as status:
                progress.status = status
                result = loop.run()
    except KeyboardInterrupt:
        run_id = loop.rec.run_id if loop.rec else None
        print(f"kernelcraft: run {run_id} interrupted; recorded as interrupted in {store.path}",
              file=sys.stderr)
        store.close()
        _exit_quickly()
        return EXIT_INTERRUPTED
    except TraceStoreError as e:
        run_id = loop.rec.run_id if loop.rec else None
        how = ("recorded as error with this reason" if loop.end_recorded else
               "its end could not be written, so it reads as interrupted")
        print(f"kernelcraft: error: {e}\nkernelcraft: run {run_id} stopped; {how}", file=sys.stderr)
        try:
            store.close()
        except TraceStoreError:
            pass
        return EXIT_ERROR
    run = store.run(result.run_id)
    store.close()
    if args.json:
        print(json.dumps({"run": run.id, "status": run.status, "scores": run.scores}, indent=2))
    else:
        _print_scores(run)
    return EXIT_OK if result.status == "succeeded" else (
        EXIT_ERROR if result.status == "error" else EXIT_FAILED)


def cmd_runs(args) -> int:
    from kernelcraft.workbench.store import resolve_path
    path = resolve_path(args.traces)
    if not path.exists():
        print(f"no trace store at {path} yet; `kernelcraft run` creates it")
        return EXIT_OK
    store = _store(args, readonly=True)
    runs = store.runs(accelerator=args.accel, task=args.task, config=args.config,
                      agent=args.agent, model=args.model, status=args.status,
                      limit=args.limit, order=args.order)
    if args.json:
        print(json.dumps([r.__dict__ for r in runs], indent=2, default=str))
        return EXIT_OK
    from kernelcraft.workbench.agent.scoring import held_out_cell, score_flags
    from kernelcraft.workbench.evaluation import shown_speedup
    from kernelcraft.workbench.textout import print_table
    rows = []
    for r in runs:
        s = r.scores or {}
        best = s.get("best") or {}
        held = s.get("held_out_seeds") or {}
        flags = score_flags(s)
        speedup = shown_speedup(best)
        rows.append([str(r.id), (r.started_at or "")[5:16].replace("T", " "),
                     f"{r.accelerator}/{r.task}/{r.config}",
                     r.agent + (f" {r.model}" if r.model else ""),
                     r.status + (f" ({', '.join(flags)})" if flags else ""), str(r.steps),
                     str(best.get("cycles", "-")),
                     f"{speedup:.2f}x" if speedup else "-",
                     ("pass" if held.get("passed") else "fail") if held else "-",
                     held_out_cell(s) if s.get("held_out_configs") else "-",
                     _rtl_cell(s.get("backends")),
                     f"{r.tokens_in:,}/{r.tokens_out:,}", r.cost_text])
    # "held-out seeds" decides success (the visible configuration on fresh seeds); "H1"
    # (generality) is shown beside it and never counted in it. In a pipe: tab-separated.
    print_table(f"runs in {store.path}", ["id", "started", "accel/task/config", "agent", "status",
                                          "steps", "best cycles", "speed-up", "held-out seeds", "H1",
                                          "RTL", "tokens in/out", "cost"], rows,
                right=("id", "steps", "best cycles", "speed-up", "cost"))
    if not runs:
        print("no runs match")
    return EXIT_OK


def _rtl_cell(b: dict | None) -> str:
    rtl = (b or {}).get("rtl") or {}
    status = rtl.get("status")
    if status in (None, "not_run"):
        return "-"
    return status.replace("_", " ") + (" (differs)" if b.get("agree") is False else "")


def cmd_show(args) -> int:
    from kernelcraft.workbench.agent.transcript import markdown
    store = _store(args, readonly=True)
    v = store.verify(args.run) if args.verify else None
    if args.json:
        out = _show_json(store, args.run)
        if v is not None:
            out["hash_chain"] = {"ok": v.ok, "broken_at": v.broken_at, "problem": v.problem,
                                 "sealed": v.sealed, "events_checked": v.events_checked}
        print(json.dumps(out, indent=2, default=str))
        return EXIT_OK if v is None or v.ok else EXIT_FAILED
    print(markdown(store, args.run, full=args.full), end="")
    if v is not None:
        print(f"\nhash chain: {'intact' if v.ok else 'BROKEN at seq ' + str(v.broken_at) + ': ' + str(v.problem)}"
              f" ({v.events_checked} events, {'sealed' if v.sealed else 'not sealed'})")
        return EXIT_OK if v.ok else EXIT_FAILED
    return EXIT_OK


def _show_json(store, run_id: int) -> dict:
    """The run record, and what each backend made of its kernels: the final record
    (scores.backends) and every run_rtl call."""
    run = store.run(run_id)
    calls = [{"step": e.step, "kernel_version": e.payload.get("kernel_version"),
              "seeds": e.payload.get("seeds"), **{k: e.payload["result"].get(k) for k in (
                  "status", "model", "rtl", "agree", "divergence", "cycle_budget")}}
             for e in store.events(run_id)
             if e.type == "evaluation" and e.payload.get("tool") == "run_rtl"]
    return {"run": run.__dict__, "backends": (run.scores or {}).get("backends"),
            "run_rtl_calls": calls}


def cmd_replay(args) -> int:
    if args.rescore:
        return _rescore(args)
    from kernelcraft.workbench.agent.replay import replay_run
    store = _store(args)
    progress = Progress(quiet=not args.progress)
    _sigterm_as_interrupt()
    try:
        result, report = replay_run(store, args.run, listener=progress)
    except KeyboardInterrupt:
        store.close()
        return EXIT_INTERRUPTED
    store.close()
    if args.json:
        print(json.dumps({"replay_run": result.run_id, **report}, indent=2))
    else:
        print(f"replay of run {args.run} recorded as run {result.run_id}: "
              f"{report['compared']} evaluations re-executed, "
              f"{'all identical to the recording' if report['identical'] else 'DIFFERENCES FOUND'}")
        for m in report["mismatches"]:
            print(f"  differs: {m['recorded']}")
            for d in m["differences"]:
                print(f"    {d}")
            if m["more"]:
                print(f"    ... and {m['more']} more")
        for m in report["missing"]:
            print(f"  recorded but not re-executed: {m}")
        for m in report["extra"]:
            print(f"  re-executed but not in the recording (it ended early): {m}")
        for m in report["seed_mismatches"] + report["truncated_calls"]:
            print(f"  note: {m}")
    return EXIT_OK if report["identical"] else EXIT_FAILED


def _rescore(args) -> int:
    from kernelcraft.workbench.agent.rescore import report_lines, rescore_run
    store = _store(args, readonly=True)
    report = rescore_run(store, args.run, n_seeds=args.seeds)
    store.close()
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print("\n".join(report_lines(report)))
    return EXIT_FAILED if report["no_longer_pass"] else EXIT_OK


def cmd_export(args) -> int:
    store = _store(args, readonly=True)
    try:
        out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout
    except OSError as e:
        raise ValueError(f"--out {args.out}: cannot write it ({e.strerror or e})") from None
    try:
        if args.format == "jsonl":
            n = store.export_jsonl(args.run, out)
            if args.out:
                print(f"wrote {n} lines to {args.out}", file=sys.stderr)
        else:
            from kernelcraft.workbench.agent.transcript import markdown
            out.write(markdown(store, args.run, full=True))
            if args.out:
                print(f"wrote {args.out}", file=sys.stderr)
        if args.out:
            out.close()           # a full disk shows here at the latest
    except BrokenPipeError:
        raise
    except OSError as e:          # a full disk, a vanished folder
        raise ValueError(f"--out {args.out or '(stdout)'}: writing failed ({e.strerror or e}); "
                         f"the export is incomplete") from None
    finally:
        if args.out and not out.closed:
            try:
                out.close()
            except OSError:
                pass
    return EXIT_OK


def traces(sp) -> None:
    sp.add_argument("--traces", metavar="PATH",
                    help="trace store file (default: $KERNELCRAFT_TRACES, else ./traces.db)")


def model_options(sp) -> None:
    """How LLM requests are made (`run`, `sweep`)."""
    sp.add_argument("--timeout", type=seconds(DAY), default=300.0, help="seconds per model request")
    sp.add_argument("--retries", type=integer(0, 100), default=6,
                    help="retries on rate limits and transient errors, waiting as long as "
                         "Retry-After asks (default 6)")
    sp.add_argument("--api-base", help="send model requests to this base URL")
    sp.add_argument("--model-param", action="append", metavar="NAME=VALUE",
                    help="extra model setting (repeatable), e.g. temperature=0.2")


def add_run_commands(sub) -> None:

    sp = sub.add_parser("run", help="run an agent on a task and record it in the trace store",
                        description="Run an agent (the offline autotuner, or any LLM through "
                                    "litellm) on one task configuration, recording every step.")
    sp.add_argument("--accel", required=True, help="accelerator, e.g. plena")
    sp.add_argument("--task", required=True, help="task name (see `kernelcraft tasks`)")
    sp.add_argument("--config", required=True, help="visible task configuration, e.g. C3")
    sp.add_argument("--agent", choices=("autotune",),
                    help="offline agent (the default when no --model is given): autotune "
                         "searches the baseline template's parameters")
    sp.add_argument("--model", type=model_name, help="an LLM as provider/model, e.g. openai/gpt-5.2 (keys from "
                                    "the provider's environment variable)")
    sp.add_argument("--budget", type=integer(1, 10_000), help="iterations allowed (default: 15/20/25 by level)")
    sp.add_argument("--manual", choices=("full", "grep"), default="full",
                    help="put the ISA manual in the prompt (full) or leave it to grep_docs")
    sp.add_argument("--seeds", type=integer(1, 1000), default=3, help="fresh input sets per run_eval (default 3)")
    sp.add_argument("--hw", action="append", metavar="NAME=VALUE",
                    help="override a hardware parameter (repeatable)")
    model_options(sp)
    sp.add_argument("--rtl", action="store_true",
                    help="offer the agent the run_rtl tool and run the scored kernel on the "
                         "RTL too (accelerators with an RTL only, e.g. plena; the RTL is built "
                         "before the first step, minutes when not cached)")
    sp.add_argument("--quiet", action="store_true", help="no progress display")
    sp.add_argument("--json", action="store_true", help="print the final scores as JSON")
    traces(sp)
    sp.set_defaults(func=cmd_run)

    sp = sub.add_parser("runs", help="list recorded runs (filter by cell, agent, status)")
    for opt in ("accel", "task", "config", "agent", "model"):
        sp.add_argument(f"--{opt}", help=f"only runs with this {opt}")
    sp.add_argument("--status", choices=("running", "succeeded", "failed", "interrupted", "error"),
                    help="only runs that ended (or stand) so")
    sp.add_argument("--limit", type=integer(0), default=50, help="at most this many (default 50)")
    sp.add_argument("--order", default="-started_at",
                    help="started_at, ended_at, id, cost, steps or event_count; '-' for descending")
    sp.add_argument("--json", action="store_true", help="machine-readable output")
    traces(sp)
    sp.set_defaults(func=cmd_runs)

    sp = sub.add_parser("show", help="print a run as a readable transcript")
    sp.add_argument("run", type=int, help="run id (see `kernelcraft runs`)")
    sp.add_argument("--full", action="store_true", help="do not shorten prompts, kernels and results")
    sp.add_argument("--verify", action="store_true", help="also check the run's hash chain")
    sp.add_argument("--json", action="store_true",
                    help="print the run record and its backend results (final and per "
                         "run_rtl call) as JSON instead of the transcript")
    traces(sp)
    sp.set_defaults(func=cmd_show)

    sp = sub.add_parser("replay", help="re-execute a recorded run offline and report any "
                                       "evaluation that differs (exit 1 if any); --rescore: "
                                       "re-score its kernels on fresh seeds")
    sp.add_argument("run", type=int, help="run id to replay")
    sp.add_argument("--progress", action="store_true", help="show each replayed step")
    sp.add_argument("--rescore", action="store_true",
                    help="instead of replaying, score every recorded kernel version again on "
                         "fresh seeds and edge cases and report those that no longer pass "
                         "(exit 1 if any); records nothing")
    sp.add_argument("--seeds", type=int, default=5,
                    help="fresh input sets per kernel version with --rescore (default 5)")
    sp.add_argument("--json", action="store_true", help="print the comparison as JSON")
    traces(sp)
    sp.set_defaults(func=cmd_replay)

    sp = sub.add_parser("export", help="write a run as JSON lines or a Markdown transcript")
    sp.add_argument("run", type=int, help="run id")
    sp.add_argument("--format", choices=("jsonl", "md"), default="jsonl",
                    help="jsonl: run, kernels and events as records; md: readable transcript")
    sp.add_argument("--out", type=Path, help="write to this file instead of stdout")
    traces(sp)
    sp.set_defaults(func=cmd_export)
