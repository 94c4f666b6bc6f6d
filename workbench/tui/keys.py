"""Every screen's key bindings, read from keys.toml (one table per screen, one line per
binding), so the screens hold no binding lists and the keys, their words, the footer
and the ids a keymap remaps are all in one place:

    class RunScreen(Screen):
        BINDINGS = bindings("run")
"""
from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

from textual.binding import Binding

KEYS = Path(__file__).with_name("keys.toml")
REQUIRED = ("keys", "action", "text")
OPTIONAL = ("show", "tip", "priority")


class KeyTableError(ValueError):
    """keys.toml lacks a table or has an entry that is not a binding."""


@cache
def _tables() -> dict[str, dict]:
    return tomllib.loads(KEYS.read_text(encoding="utf-8"))


def _binding(section: str, id_: str, entry) -> Binding:
    where = f"{KEYS.name} [{section}] {id_}"
    if not isinstance(entry, dict):
        raise KeyTableError(f"{where}: expected {{ keys, action, text, ... }}, got {entry!r}")
    missing = [k for k in REQUIRED if k not in entry]
    unknown = sorted(set(entry) - set(REQUIRED) - set(OPTIONAL))
    if missing or unknown:
        raise KeyTableError(f"{where}: " + "; ".join(
            ([f"lacks {', '.join(missing)}"] if missing else []) +
            ([f"unknown field {', '.join(unknown)} (fields: {', '.join(REQUIRED + OPTIONAL)})"]
             if unknown else [])))
    return Binding(entry["keys"], entry["action"], entry["text"], show=entry.get("show", False),
                   priority=entry.get("priority", False), tooltip=entry.get("tip", ""), id=id_)


def bindings(section: str) -> list[Binding]:
    """The bindings of one screen (a table of keys.toml), in the file's order."""
    tables = _tables()
    if section not in tables:
        raise KeyTableError(f"{KEYS.name} has no [{section}] table; tables: {', '.join(tables)}")
    return [_binding(section, id_, entry) for id_, entry in tables[section].items()]


def all_ids() -> set[str]:
    """Every binding id of every screen (what a keymap file may name)."""
    return {b.id for section in _tables() for b in bindings(section)}
