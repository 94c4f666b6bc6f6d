"""The selected step as a person reads it: the agent's reasoning (toggled), its reply,
each tool call with its result, and what the workbench said back."""
from __future__ import annotations

import json

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from kernelcraft.workbench.agent.transcript import backends_line
from kernelcraft.workbench.evaluation import shown_speedup

from ...model.backends import build_line, summary_lines
from ...model.trace import FINAL, Step, payload_text

CLIP_LINES = 60           # long texts (a reply, a result) are cut here unless expanded
PROMPT_LINES = 6          # the prompt (with the whole ISA manual) starts collapsed to this


def _clip(text: str, full: bool, lines: int = CLIP_LINES) -> tuple[str, int]:
    rows = text.splitlines()
    if full or len(rows) <= lines:
        return text, 0
    return "\n".join(rows[:lines]), len(rows) - lines


def _block(out: Text, title: str, body: str, style: str, full: bool, body_style: str = "",
           lines: int = CLIP_LINES) -> None:
    out.append(title + "\n", style)
    shown, more = _clip(body.rstrip(), full, lines)
    out.append((shown or "(empty)") + "\n", body_style)
    if more:
        out.append(f"... {more:,} more lines (e expands, / searches the run)\n", "grey50 italic")


def _arguments(call_payload: dict) -> str:
    raw = call_payload.get("arguments") or ""
    try:
        args = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError:
        return f"malformed arguments: {raw[:200]}"
    if not isinstance(args, dict):
        return raw[:200]
    parts = []
    for k, v in args.items():
        if k == "code" and isinstance(v, str):
            parts.append(f"code=<kernel, {v.count(chr(10)) + 1} lines>")
        else:
            s = json.dumps(v)
            parts.append(f"{k}={s if len(s) <= 80 else s[:77] + '...'}")
    if call_payload.get("arguments_truncated"):
        parts.append(f"(stored truncated, {call_payload.get('arguments_bytes')} bytes)")
    return ", ".join(parts)


def step_text(step: Step, *, reasoning: bool = True, full: bool = False) -> Text:
    out = Text()
    if step.number == 0:
        for ev in step.messages:
            _block(out, f"{ev.role} prompt", payload_text(ev.payload), "bold", full,
                   lines=PROMPT_LINES)
        for ev in step.notes + step.errors:
            line = build_line(ev.type, ev.payload)
            if line is not None:
                out.append(line[0] + "\n", line[1])
        return out
    if reasoning:
        for ev in step.reasoning:
            tok = f" ({ev.tokens_reasoning:,} reasoning tokens)" if ev.tokens_reasoning else ""
            _block(out, f"reasoning{tok}", payload_text(ev.payload), "bold magenta", full,
                   "italic grey70")
    elif step.reasoning:
        out.append(f"[reasoning hidden: {len(step.reasoning)} block(s); r shows it]\n",
                   "grey50 italic")
    for ev in step.replies:
        p = ev.payload if isinstance(ev.payload, dict) else {}
        tok = (f"  {ev.tokens_in:,} in / {ev.tokens_out:,} out" if ev.tokens_in or ev.tokens_out
               else "") + (f"  ${ev.cost:.4f}" if ev.cost else "")
        body = p.get("content") or ""
        if p.get("refusal"):
            body += ("\n" if body else "") + f"(refusal) {p['refusal']}"
        _block(out, f"agent{tok}", body or "(no text)", "bold cyan", full)
    for x in step.exchanges.values():
        if x.call is not None:
            out.append(f"→ {x.name}", "bold yellow")
            out.append(f"({_arguments(x.call.payload)})\n", "yellow")
        if x.result is not None:
            ok = x.result.payload.get("ok")
            out.append("  ← ", "bold")
            out.append("ok " if ok else "refused ", "green" if ok else "bold red")
            shown, more = _clip(payload_text(x.result.payload), full, 12)
            out.append(shown.replace("\n", "\n    ") + "\n")
            if more:
                out.append(f"    ... {more} more lines (e expands)\n", "grey50 italic")
    for ev in step.messages:
        _block(out, "workbench", payload_text(ev.payload), "bold grey62", full, "grey62")
    for ev in step.errors:
        p = ev.payload
        out.append(f"error in {p.get('where', '?')}: {p.get('error', '')}\n", "bold red")
    for ev in step.notes:
        p = ev.payload if isinstance(ev.payload, dict) else {}
        if p.get("kind") == "retry":
            out.append(f"retry: {p.get('error')} (waited {p.get('wait')}s)\n", "yellow")
        elif p.get("kind") == "final":
            from kernelcraft.workbench.agent.transcript import score_lines
            scores = p.get("scores") or {}
            out.append(f"run {p.get('status')}\n", "bold")
            summary = summary_lines(scores)
            # with --rtl the backends record is drawn below, a fact a line, instead of
            # score_lines' one-line version of it
            for line in score_lines({k: v for k, v in scores.items()
                                     if k != "backends" or not summary}):
                out.append(line + "\n")
            for text, style in summary:
                out.append(text + "\n", style)
        elif p.get("kind") == "replay_report":
            out.append(f"replay report: {'identical' if p.get('identical') else 'DIFFERS'}, "
                       f"{p.get('compared')} evaluations compared\n", "bold")
    if step.number == FINAL:
        for ev in step.evaluations:
            p = ev.payload
            r = p.get("result") or {}
            if p.get("tool") == "final_rtl":      # its details are in the summary above
                out.append(f"final_rtl on {p.get('config')}: {backends_line(r)}\n")
                continue
            out.append(f"{p.get('tool')} on {p.get('config')}: {r.get('status')}, "
                       f"{r.get('cycles')} cycles"
                       + (f", {shown_speedup(r):.2f}x" if shown_speedup(r) else "")
                       + (", IMPOSSIBLE (fewer cycles than the lower bound)"
                          if r.get("impossible") else "") + "\n")
    if not out.plain.strip():
        out.append("nothing recorded in this step yet", "grey50 italic")
    return out


class Conversation(VerticalScroll):
    """The step's messages and tool calls, scrollable."""

    plain = ""                # the text shown, for searching it

    def compose(self):
        yield Static(id="conversation-text")

    def show(self, step: Step | None, *, reasoning: bool, full: bool, keep_scroll: bool,
             highlight: str = "") -> None:
        text = step_text(step, reasoning=reasoning, full=full) if step else Text(
            "no steps yet", "grey50 italic")
        if highlight:
            text.highlight_words([highlight], "bold black on yellow", case_sensitive=False)
        self.plain = text.plain
        self.query_one("#conversation-text", Static).update(text)
        if not keep_scroll:
            self.scroll_home(animate=False)

    def scroll_to_text(self, needle: str) -> bool:
        """Scroll so the first line holding `needle` (case-insensitive) is near the top."""
        width = max(1, self.size.width - 2)
        row = 0
        for line in self.plain.splitlines():
            if needle.lower() in line.lower():
                self.scroll_to(y=max(0, row - 2), animate=False)
                return True
            row += max(1, -(-len(line) // width))       # the rows a wrapped line takes
        return False
