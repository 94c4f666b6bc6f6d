"""The published figures shipped with the project (published.toml), looked up where
our cells correspond: same accelerator (its published platform), level, task and
configuration. Always shown labelled "published"."""
from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path

PATH = Path(__file__).with_name("published.toml")


@lru_cache(maxsize=1)
def data() -> dict:
    return tomllib.loads(PATH.read_text(encoding="utf-8"))


def source() -> str:
    return data()["source"]


def platform(accel: str) -> str | None:
    return data()["platforms"].get(accel)


def solved(accel: str, level: int) -> dict[str, tuple[int, int]]:
    """Published model -> (cells solved, cells) for this accelerator's platform and level."""
    table = data()["solved"].get(accel, {}).get(f"L{level}", {})
    return {m: (int(v[0]), int(v[1])) for m, v in table.items()}


def speedup(accel: str, task: str, config: str) -> float | None:
    return data()["speedup"].get(accel, {}).get(task, {}).get(config)


def speedup_note(accel: str) -> str | None:
    return data().get("speedup_notes", {}).get(accel)
