"""What a run started with --rtl recorded about its backends, as lines to show: the
scored kernel on the functional model and on the RTL (scores.backends), each run_rtl
or final_rtl evaluation, and the RTL build before the first step.

The records are those workbench/agent/README.md describes ("--rtl"): per backend a
`status` (pass/fail/run_error/error/not_run), `cycles` and a `reason` or `error`;
`agree`; `divergence` with `input_set`, `first` (the first diverging instruction and,
on the next lines, what differs there) and `differences`. Lines are (text, style).
"""
from __future__ import annotations

from typing import Any

from kernelcraft.workbench.agent.scoring import NO_RTL
from kernelcraft.workbench.store import Run

Line = tuple[str, str]
STATUS_STYLES = {"pass": "green", "fail": "red", "run_error": "red", "error": "bold red",
                 "not_run": "grey62"}
RTL_TOOLS = ("run_rtl", "final_rtl")      # evaluations that ran the RTL as well
MAX_DIFFERENCES = 8       # memory/register differences listed under a divergence


def is_rtl_run(run: Run) -> bool:
    return isinstance(run.settings, dict) and bool(run.settings.get("rtl"))


def backends_of(run: Run) -> dict | None:
    b = (run.scores or {}).get("backends") if isinstance(run.scores, dict) else None
    return b if isinstance(b, dict) else None


def rtl_cell(run: Run) -> str:
    """The picker's RTL cell: blank for runs without --rtl; otherwise what the RTL
    made of the scored kernel ("…" while the run has no scores yet), marked ≠ when the
    backends disagree."""
    if not is_rtl_run(run):
        return ""
    b = backends_of(run)
    if b is None:
        return "…" if run.status == "running" else "-"
    status = str((b.get("rtl") or {}).get("status") or "-").replace("_", " ")
    return status + (" ≠" if b.get("agree") is False else "")


def _status(x: Any) -> tuple[str, str]:
    x = x if isinstance(x, dict) else {}
    status = str(x.get("status") or "not recorded")
    text = status.replace("_", " ")
    if isinstance(x.get("cycles"), int):
        text += f"  {x['cycles']:,} cycles"
    why = x.get("reason") or x.get("error")
    if why and status not in ("pass", "fail"):
        text += f"  ({str(why).splitlines()[0]})"
    return text, STATUS_STYLES.get(status, "")


def divergence_lines(d: Any, indent: str = "  ") -> list[Line]:
    """Where the backends first differ, one fact a line: the input set, the diverging
    instruction, what it wrote on each, then the other differences."""
    if not isinstance(d, dict):
        return []
    more = d.get("sets")
    head = f"{indent}the backends DISAGREE on {d.get('input_set', '?')}"
    if isinstance(more, int) and more > 1:
        head += f" (and {more - 1} more input sets)"
    out: list[Line] = [(head, "bold red")]
    first = str(d.get("first") or "").splitlines()
    if first:
        out.append((f"{indent}  first divergence: {first[0].strip()}", "red"))
        out += [(f"{indent}    {x.strip()}", "red") for x in first[1:] if x.strip()]
    diffs = [str(x) for x in d.get("differences") or []]
    if diffs:
        out.append((f"{indent}  differences at the end of the run:", "grey70"))
        out += [(f"{indent}    {x}", "grey70") for x in diffs[:MAX_DIFFERENCES]]
        if len(diffs) > MAX_DIFFERENCES:
            out.append((f"{indent}    ... {len(diffs) - MAX_DIFFERENCES} more", "grey50"))
    return out


def comparison_lines(r: Any, indent: str = "  ") -> list[Line]:
    """Model and RTL verdicts of one record (scores.backends or a run_rtl/final_rtl
    result), their agreement, and the first divergence when they disagree."""
    if not isinstance(r, dict):
        return []
    out: list[Line] = []
    for name, key in (("model", "model"), ("RTL", "rtl")):
        text, style = _status(r.get(key))
        out.append((f"{indent}{name + ':':7s}{text}", style))
    if r.get("agree") is True:
        out.append((f"{indent}the backends agree", "green"))
    elif r.get("agree") is False:
        out += divergence_lines(r.get("divergence"), indent)
    return out


def summary_lines(scores: Any) -> list[Line]:
    """The backends record of a finished run with --rtl, as the run view's final step
    shows it; nothing for runs without --rtl or from before the record (their scores
    read as they always did)."""
    b = scores.get("backends") if isinstance(scores, dict) else None
    if not isinstance(b, dict) or (b.get("rtl") or {}).get("reason") == NO_RTL:
        return []
    kv = b.get("kernel_version")
    head = "backends of the scored kernel" + (f" (version {kv})" if kv else "")
    calls = b.get("run_rtl_calls")
    if isinstance(calls, int):
        head += f"; run_rtl called {calls} time{'s' if calls != 1 else ''}"
    out: list[Line] = [(head, "bold")]
    out += comparison_lines(b)
    if isinstance(b.get("cycle_budget"), int):
        out.append((f"  RTL cycle budget {b['cycle_budget']:,}", "grey62"))
    return out


def build_line(ev_type: str, payload: Any, short: bool = False) -> Line | None:
    """An rtl_build note (or the error of a failed build) as one line, `short` for the
    step timeline; None for other events."""
    p = payload if isinstance(payload, dict) else {}
    failed = (ev_type == "error" and p.get("where") == "rtl_build") or (
        ev_type == "note" and p.get("kind") == "rtl_build" and p.get("ok") is False)
    if failed:
        error = str(p.get("error") or "?").splitlines()[0]
        return ("RTL build failed" if short else f"RTL build failed: {error}", "bold red")
    if ev_type != "note" or p.get("kind") != "rtl_build":
        return None
    sim = f" ({p['simulator']})" if p.get("simulator") else ""
    secs = f" in {p['seconds']} s" if isinstance(p.get("seconds"), (int, float)) else ""
    if p.get("state") == "started":
        return ("RTL building" if short else f"RTL build started{sim}", "grey62")
    if short:
        return ("RTL ready (cached)" if p.get("cached") else f"RTL built{secs}", "green")
    how = "from the cache" if p.get("cached") else "built"
    return (f"RTL ready{sim}, {how}{secs}", "green")


def build_state(events) -> Line | None:
    """The last RTL build line, short, among a step's events (the prompt step holds
    them)."""
    last = None
    for ev in events:
        line = build_line(ev.type, ev.payload, short=True)
        if line is not None:
            last = line
    return last
