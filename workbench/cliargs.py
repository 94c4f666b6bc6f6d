"""argparse types with ranges, so a bad number is refused by the parser, before any
work, with the option, the value and the allowed range:
`kernelcraft run: error: argument --budget: must be an integer from 1 to 10000, got '0'`."""
from __future__ import annotations

import argparse
import math


def integer(lo: int, hi: int | None = None):
    def parse(text: str) -> int:
        want = f"an integer from {lo:,} to {hi:,}" if hi is not None else f"an integer of at least {lo:,}"
        try:
            v = int(text, 0)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {want}, got {text!r}") from None
        if v < lo or (hi is not None and v > hi):
            raise argparse.ArgumentTypeError(f"must be {want}, got {text!r}")
        return v
    parse.__name__ = "integer"
    return parse


def seconds(hi: float, allow_zero: bool = False):
    def parse(text: str) -> float:
        low = "from 0" if allow_zero else "above 0"
        want = f"a number of seconds {low} up to {hi:g}"
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {want}, got {text!r}") from None
        if not math.isfinite(v) or v < 0 or (v == 0 and not allow_zero) or v > hi:
            raise argparse.ArgumentTypeError(f"must be {want}, got {text!r}")
        return v
    parse.__name__ = "seconds"
    return parse


SEED_MAX = 2 ** 63 - 1
DAY = 86_400.0


def seed_list(text: str) -> list[int]:
    """--seeds 1,2,3: each a non-negative integer."""
    out = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        try:
            v = int(part, 0)
        except ValueError:
            v = -1
        if not 0 <= v <= SEED_MAX:
            raise argparse.ArgumentTypeError(f"seeds are integers from 0 to {SEED_MAX}, "
                                             f"separated by commas; got {part!r}")
        out.append(v)
    if not out:
        raise argparse.ArgumentTypeError(f"give at least one seed, got {text!r}")
    return out


def model_name(text: str) -> str:
    provider, sep, name = text.partition("/")
    if not sep or not provider.strip() or not name.strip():
        raise argparse.ArgumentTypeError(f"must be provider/model, e.g. openai/gpt-5.2 or "
                                         f"anthropic/claude-sonnet-4-5; got {text!r}")
    return text
