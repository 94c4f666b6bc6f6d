"""The run picker's rows: what each column shows, how a filter reads, how rows sort.

A filter is words separated by blanks. `field:value` keeps runs whose field contains
the value (fields: the column keys below, e.g. `status:running task:soft rtl:fail`); a
numeric field also takes a comparison (`speedup:>1.5 steps:>=3 cost:<0.01 id:=4`); a bare
word keeps runs where any column contains it; a leading `-` negates either form.
Everything is case-insensitive.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass

from kernelcraft.workbench.store import Run

from kernelcraft.workbench.agent.scoring import held_out_cell, score_flags

from .backends import is_rtl_run, rtl_cell
from .trace import best_speedup

# (key, title, justify): the picker's columns in order.
COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("id", "run", "right"), ("status", "status", "left"), ("task", "task", "left"),
    ("accel", "accel", "left"), ("config", "config", "left"),
    ("agent", "agent/model", "left"), ("steps", "steps", "right"),
    ("speedup", "speed-up", "right"), ("rtl", "RTL", "left"), ("h1", "H1", "left"),
    ("tokens", "tokens", "right"),
    ("cost", "cost", "right"), ("started", "started", "left"),
)
COLUMN_KEYS = tuple(c[0] for c in COLUMNS)
OPTIONAL = {"rtl"}        # shown only when some run has it (runs started with --rtl)
AGENT_WIDTH = 28          # longer agent/model names are cut with an ellipsis
STATUS_MARKS = {"running": "● running", "succeeded": "✓ succeeded", "failed": "✗ failed",
                "interrupted": "◌ interrupted", "error": "! error"}
STATUS_STYLES = {"running": "bold yellow", "succeeded": "green", "failed": "red",
                 "interrupted": "grey62", "error": "bold red"}


NUMERIC = ("id", "steps", "speedup", "tokens", "cost")      # fields that take >, >=, <, <=, =
COMPARISONS = {">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt,
               "=": operator.eq}


class FilterError(ValueError):
    """A filter names a field the picker does not have."""


@dataclass(frozen=True)
class RunRow:
    run: Run
    live_speedup: float | None = None      # best so far, for runs still going

    @property
    def speedup(self) -> float | None:
        return best_speedup(self.run) if self.run.finished else self.live_speedup

    def cell(self, key: str) -> str:
        r = self.run
        if key == "id":
            return str(r.id)
        if key == "status":
            flags = score_flags(r.scores or {}) if r.finished else []
            return STATUS_MARKS.get(r.status, r.status) + (f" ({', '.join(flags)})" if flags else "")
        if key == "task":
            return r.task
        if key == "accel":
            return r.accelerator
        if key == "config":
            return r.config
        if key == "agent":
            who = r.agent + (f" {r.model}" if r.model else "")
            return who if len(who) <= AGENT_WIDTH else who[:AGENT_WIDTH - 1] + "…"
        if key == "steps":
            budget = r.settings.get("budget") if isinstance(r.settings, dict) else None
            return f"{r.steps}/{budget}" if budget else str(r.steps)
        if key == "speedup":
            s = self.speedup
            return f"{s:.2f}x" if s else "-"
        if key == "h1":       # generality: shown beside success, never counted in it
            held = (r.scores or {}).get("held_out_configs") if r.finished else None
            return held_out_cell(r.scores) if held else "-"
        if key == "rtl":
            return rtl_cell(r)
        if key == "tokens":
            return f"{_k(r.tokens_in)}/{_k(r.tokens_out)}"
        if key == "cost":
            return r.cost_text
        if key == "started":
            return (r.started_at or "")[5:16].replace("T", " ")
        raise KeyError(key)

    def number(self, key: str) -> float | None:
        """A numeric field's value (None: a run with no speed-up yet)."""
        r = self.run
        return {"id": r.id, "steps": r.steps, "speedup": self.speedup,
                "tokens": r.tokens_in + r.tokens_out, "cost": r.cost}[key]

    def sort_key(self, key: str):
        if key in NUMERIC:
            return (self.number(key) or 0.0, self.run.id)
        return (self.cell(key).lower(), self.run.id)


def columns_for(rows: list[RunRow]) -> tuple[tuple[str, str, str], ...]:
    """The columns to show: the RTL column only when some run was started with --rtl,
    so a store without such runs reads as before."""
    rtl = any(is_rtl_run(r.run) for r in rows)
    return tuple(c for c in COLUMNS if c[0] not in OPTIONAL or (c[0] == "rtl" and rtl))


# Which columns give way on a narrow terminal (80 columns), first to last; the
# agent/model column is first cut down to AGENT_NARROW characters before it goes.
NARROW_DROPS = ("started", "tokens", "h1", "rtl", "agent", "cost", "config", "accel")
AGENT_NARROW = 12
SCROLLBAR = 2             # a vertical scrollbar's width, kept free


def fit_columns(columns: tuple, rows: list[RunRow], width: int, keep: tuple[str, ...] = ()
                ) -> tuple[tuple, dict[str, int], list[str]]:
    """The columns that fit a table `width` characters wide (each as wide as its
    title, or its widest cell, plus one space each side): (columns shown, key ->
    characters a cell is cut to, titles of the columns hidden). Columns in `keep`
    (the sort column, whose title carries an arrow) are never hidden."""
    need = {key: max([len(title) + 2 * (key in keep)] + [len(r.cell(key)) for r in rows]) + 2
            for key, title, _ in columns}
    shown, limits, hidden = list(columns), {}, []
    budget = width - SCROLLBAR
    for key in NARROW_DROPS:
        total = sum(need[k] for k, _, _ in shown)
        if total <= budget:
            break
        if key not in need or key in keep:
            continue
        room = budget - (total - need[key]) - 2
        if key == "agent" and room >= AGENT_NARROW:
            limits[key], need[key] = room, room + 2
            continue
        hidden += [title for k, title, _ in shown if k == key]
        shown = [c for c in shown if c[0] != key]
    return tuple(shown), limits, hidden


def plural(n: int, noun: str) -> str:
    """`1 run`, `3 runs`."""
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def _k(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 10_000 else f"{n:,}"


def parse_filter(text: str) -> list[tuple[str | None, str, bool]]:
    """(field or None, value, negated) terms of a filter; FilterError names an
    unknown field."""
    terms = []
    for word in text.split():
        neg = word.startswith("-") and len(word) > 1
        if neg:
            word = word[1:]
        key, sep, value = word.partition(":")
        if sep and key:
            key = key.lower()
            aliases = {"accelerator": "accel", "model": "agent", "run": "id",
                       "configuration": "config"}
            key = aliases.get(key, key)
            if key not in COLUMN_KEYS:
                raise FilterError(f"unknown filter field {key!r}; fields: "
                                  f"{', '.join(COLUMN_KEYS)} (e.g. status:running)")
            if value[:1] in "<>=" and value:
                _comparison(key, value)          # checked now, so the error shows at once
            terms.append((key, value.lower(), neg))
        else:
            terms.append((None, word.lower(), neg))
    return terms


def _comparison(key: str, value: str):
    """(operator, number) of `>1.5`-style values; FilterError says what is wrong."""
    if key not in NUMERIC:
        raise FilterError(f"{key}:{value}: {key} is not a number; comparisons work on "
                          f"{', '.join(NUMERIC)} (e.g. speedup:>1.5)")
    op = next(o for o in COMPARISONS if value.startswith(o))
    text = value[len(op):].rstrip("x").lstrip("$")          # 1.5x and $0.01 read as numbers
    try:
        return COMPARISONS[op], float(text)
    except ValueError:
        raise FilterError(f"{key}:{value}: {text!r} is not a number (e.g. {key}:>1.5)") from None


def matches(row: RunRow, terms: list[tuple[str | None, str, bool]]) -> bool:
    for key, value, neg in terms:
        if key is None:
            hit = any(value in row.cell(k).lower() for k in COLUMN_KEYS)
        elif value[:1] in "<>=" and value:
            op, number = _comparison(key, value)
            got = row.number(key)
            hit = got is not None and op(got, number)
        else:
            hit = value in row.cell(key).lower()
        if hit == neg:
            return False
    return True


def select(rows: list[RunRow], filter_text: str, sort_key: str, descending: bool) -> list[RunRow]:
    terms = parse_filter(filter_text)
    kept = [r for r in rows if matches(r, terms)]
    return sorted(kept, key=lambda r: r.sort_key(sort_key), reverse=descending)
