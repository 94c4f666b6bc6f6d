"""A recorded run as a readable transcript (Markdown), for `kernelcraft show` and
`kernelcraft export --format md`: the header and final scores, the prompt, then each
step's reasoning, message, tool calls with their kernels and results, and the final
evaluations."""
from __future__ import annotations

import json

from kernelcraft.workbench.store import Event, Run, TraceStore

from kernelcraft.workbench.evaluation import shown_speedup

from .scoring import NO_RTL, held_out_verdict, score_flags

SHORT_LINES = 40


def _clip(text: str, full: bool, lines: int = SHORT_LINES) -> str:
    if full:
        return text
    rows = text.splitlines()
    if len(rows) <= lines:
        return text
    return "\n".join(rows[:lines]) + f"\n... ({len(rows) - lines} more lines; --full shows all)"


def _fence(text: str, lang: str = "") -> str:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


def run_header(run: Run) -> list[str]:
    who = run.agent + (f" ({run.model})" if run.model else "")
    lines = [f"# Run {run.id}: {run.accelerator} / {run.task} / {run.config} -- {who}", "",
             f"- status: **{run.status}**; started {run.started_at}, ended {run.ended_at or '-'}",
             f"- steps {run.steps}, events {run.event_count}; tokens in {run.tokens_in:,}, out "
             f"{run.tokens_out:,}, reasoning {run.tokens_reasoning:,}; cost ${run.cost:.4f}"]
    s = run.scores or {}
    if s:
        lines += score_lines(s)
    if run.settings.get("replay_of") or (run.settings.get("agent") or {}).get("replay_of"):
        orig = run.settings.get("replay_of") or run.settings["agent"]["replay_of"]
        lines.append(f"- replay of run {orig}")
    return lines


def retry_label(p: dict) -> str:
    """What failed before a retry: 'connection: connection refused',
    'rate limit, RateLimitError (status 429)' (older records: the error type only)."""
    if p.get("failure") == "connection":
        return f"connection: {p.get('detail')}"
    head = f"{p['failure']}, " if p.get("failure") else ""
    return f"{head}{p.get('error')} (status {p.get('status')})"


def backends_line(b: dict) -> str:
    """A backends record (scores.backends, or a run_rtl / final_rtl result) in one line."""
    def one(name, x):
        x = x or {}
        cycles = f" {x['cycles']:,} cycles" if isinstance(x.get("cycles"), int) else ""
        return f"{name} {str(x.get('status', 'not recorded')).replace('_', ' ')}{cycles}"
    agree = {True: "; the backends agree", False: "; the backends DISAGREE"}.get(b.get("agree"), "")
    return f"backends: {one('model', b.get('model'))}, {one('RTL', b.get('rtl'))}{agree}"


def speedup_words(result: dict) -> str:
    """A recorded evaluation's speed-up over the baseline, or why it has none."""
    v = shown_speedup(result)
    if v is not None:
        return f"{v:.2f}x over the baseline"
    if not result.get("passed"):
        return "no speed-up (not a pass)"
    if result.get("impossible"):
        return "no speed-up (IMPOSSIBLE: fewer cycles than the lower bound)"
    return "no speed-up"


def score_lines(s: dict) -> list[str]:
    lines = []
    if not s.get("scored", True):
        lines.append(f"- NOT SCORED: {s.get('not_scored')}")
    best = s.get("best")
    if best:
        lines.append(f"- best correct kernel: version {best['kernel_version']} (step {best['step']}), "
                     f"{best['cycles']} cycles, {speedup_words(best)} "
                     f"({best.get('baseline_cycles')} cycles)")
        if "impossible" in score_flags(s):
            rc = best.get("recheck")
            lines.append("- FLAGGED IMPOSSIBLE: the best kernel took fewer cycles than the "
                         f"analytic lower bound ({best.get('lower_bound')}); " +
                         (f"it passed a re-check on fresh seeds {rc.get('seeds')} and edge cases"
                          if rc and rc.get("passed") else "it was not re-checked (recorded before "
                          "re-checks existed)" if not rc else "its re-check failed"))
        if "input-dependent" in score_flags(s):
            lines.append("- FLAGGED INPUT-DEPENDENT: the scored kernel ran different instructions, "
                         "retired different counts or took different cycles on different input sets "
                         "(its control flow or timing depends on the data); code that only an edge "
                         "family with its own check ran would have failed it, but a path through "
                         "the same instructions is not caught: a PASS then rests on the input sets "
                         "drawn, see tasks/README.md's known gaps")
    else:
        lines.append("- no kernel passed run_eval")
    held = s.get("held_out_seeds")
    if held:
        lines.append(f"- held-out seeds: {'PASS' if held.get('passed') else 'FAIL'} "
                     f"({held.get('status')}, {held.get('cycles')} cycles)")
    for config, h in (s.get("held_out_configs") or {}).items():
        verdict = held_out_verdict(h)
        if verdict == "not transferable":
            lines.append(f"- held-out configuration {config}: not transferable -- {h.get('reason')}")
            continue
        line = (f"- held-out configuration {config} ({h['method']}, generality; not counted in "
                f"success): {verdict.upper()}, {h.get('cycles')} cycles, {speedup_words(h)}")
        if h.get("reason"):
            line += f" -- {h['reason']}"
        lines.append(line)
    if s.get("backends"):
        lines.append(f"- {backends_line(s['backends'])}")
        b = s["backends"]
        if (b.get("divergence") or {}).get("first"):
            lines.append(f"  - first divergence ({b['divergence']['input_set']}): "
                         f"{b['divergence']['first']}")
        reason = (b.get("rtl") or {}).get("reason") or (b.get("rtl") or {}).get("error")
        if reason and reason != NO_RTL:
            lines.append(f"  - RTL: {reason.splitlines()[0]}")
    if s.get("replay"):
        r = s["replay"]
        lines.append(f"- replay of run {r['original']}: {r['compared']} evaluations compared, "
                     f"{'identical' if r['identical'] else str(r['mismatches']) + ' differ, ' + str(r['missing']) + ' missing'}")
    if s.get("error"):
        lines.append(f"- error: {s['error']}")
    lines.append(f"- ended by: {s.get('stop') or '-'}; correct: {s.get('correct')}")
    return lines


def _event_md(ev: Event, store: TraceStore, full: bool) -> list[str]:
    p = ev.payload if isinstance(ev.payload, dict) else {}
    if ev.type == "message":
        if ev.role in ("system", "user") and ev.step == 0:
            return [f"### {ev.role} prompt", "", _fence(_clip(p.get("content", ""), full, 25), "text"), ""]
        if ev.role == "assistant":
            usage = (f" _(tokens {ev.tokens_in}/{ev.tokens_out}"
                     f"{f'/{ev.tokens_reasoning} reasoning' if ev.tokens_reasoning else ''}, "
                     f"${ev.cost:.4f})_" if ev.tokens_in or ev.tokens_out else "")
            text = p.get("content") or (f"(refusal) {p['refusal']}" if p.get("refusal") else "(no text)")
            out = [f"**assistant**{usage}: {text}", ""]
            for r in p.get("retries") or []:
                out.append(f"- retried after {r.get('error')} (status {r.get('status')}), "
                           f"waited {r.get('wait')}s")
            return out
        return [f"**workbench**: {p.get('content', '')}", ""]
    if ev.type == "reasoning":
        return ["> " + _clip(p.get("content", ""), full, 15).replace("\n", "\n> "), ""]
    if ev.type == "tool_call":
        args = p.get("arguments", "")
        name = str(p.get("name") or "(no name)")
        out = [f"**-> {name if full or len(name) <= 200 else name[:200] + '...'}**"]
        if not isinstance(args, str):      # a payload written by hand, not by the loop
            args = json.dumps(args)
        try:
            parsed = json.loads(args) if args.strip() else {}
        except (ValueError, RecursionError):   # malformed, a 5,000-digit number, 1,000 '['
            parsed = None
        if isinstance(parsed, dict) and isinstance(parsed.get("code"), str):
            rest = {k: v for k, v in parsed.items() if k != "code"}
            out[0] += f" {json.dumps(rest)}" if rest else ""
            code = parsed["code"]
            if len(code) > 64 * 1024 and not full:
                out.append(f"(kernel of {len(code):,} characters, not shown)")
            else:
                out.append(_fence(_clip(code, full), "asm"))
        elif args.strip():
            out[0] += f" `{args if len(args) < 300 or full else args[:300] + '...'}`"
        return out + [""]
    if ev.type == "tool_result":
        mark = "" if p.get("ok") else " (refused)"
        return [f"**<- {p.get('name')}**{mark}:", _fence(_clip(p.get("content", ""), full)), ""]
    if ev.type == "evaluation" and ev.step is None and p.get("tool") == "final_rtl":
        return [f"**final: held-out seeds on the RTL**, seeds {p.get('seeds')} and the edge cases:",
                _fence(_clip(p.get("report") or backends_line(p.get("result", {})), full)), ""]
    if ev.type == "evaluation" and ev.step is None:
        r = p.get("result", {})
        what = "held-out seeds" if p.get("tool") == "final_seeds" else f"held-out configuration {p.get('config')}"
        how = f" ({p.get('how')})" if p.get("how") else ""
        out = [f"**final: {what}**{how}: {r.get('status')}, {r.get('cycles')} cycles, "
               f"{speedup_words(r)}, seeds {p.get('seeds')}"]
        if p.get("method") == "agent" and ev.kernel_hash:
            out.append(_fence(_clip(store.kernel(ev.kernel_hash).source, full), "asm"))
        return out + [""]
    if ev.type == "error":
        return [f"**error** ({p.get('where')}): {p.get('error')}", ""]
    if ev.type == "note" and p.get("kind") == "rtl_build" and p.get("state") == "done":
        return [f"_{ev.text}_", ""]
    if ev.type == "note" and p.get("kind") == "retry":
        return [f"_retry {p.get('attempt')}: {retry_label(p)}; waiting {p.get('wait')}s_", ""]
    if ev.type == "note" and p.get("kind") == "replay_report":
        out = [f"**replay report**: {p.get('compared')} evaluations compared; "
               f"{'identical' if p.get('identical') else 'DIFFERENT'}"]
        for m in p.get("mismatches", []):
            out.append(f"- {m['recorded']}: " + "; ".join(m["differences"]))
        out += [f"- missing in the replay: {m}" for m in p.get("missing", [])]
        out += [f"- only in the replay: {m}" for m in p.get("extra", [])]
        return out + [""]
    return []


def markdown(store: TraceStore, run_id: int, full: bool = False) -> str:
    run = store.run(run_id)
    lines = run_header(run) + [""]
    step = None
    for ev in store.events(run_id):
        if ev.step != step:
            step = ev.step
            if step == 0:
                lines += ["## Prompt", ""]
            elif step is None:
                lines += ["## Final scoring", ""]
            else:
                lines += [f"## Step {step}", ""]
        lines += _event_md(ev, store, full)
    return "\n".join(lines).rstrip() + "\n"
