"""argparse types with ranges, so a bad number is refused by the parser, before any
work, with the option, the value and the allowed range:
`kernelcraft run: error: argument --budget: must be an integer from 1 to 10000, got '0'`."""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from kernelcraft.simulators.core.errors import KernelCraftError


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


def hardware(accel, pairs: list[str] | None):
    """The accelerator's configuration with --hw NAME=VALUE overrides."""
    overrides = {}
    for p in pairs or []:
        key, sep, val = p.partition("=")
        if not sep:
            raise SystemExit(f"--hw expects NAME=VALUE, got {p!r}")
        try:
            overrides[key.strip()] = int(val, 0)
        except ValueError:
            raise SystemExit(f"--hw {p}: value must be an integer")
    try:
        return accel.default_config(**overrides)
    except KernelCraftError as e:
        raise ValueError(f"--hw {' '.join(pairs or [])}: {e}") from None


def read_source(path: str) -> str:
    """A kernel file (or stdin for "-") as text; a missing or non-UTF-8 file is named."""
    p = Path(path)
    if path != "-" and not p.is_file():
        raise SystemExit(f"kernel file not found: {path}")
    try:
        return sys.stdin.buffer.read().decode("utf-8") if path == "-" else p.read_text("utf-8")
    except UnicodeDecodeError as e:
        raise SystemExit(f"kernel file {'(stdin)' if path == '-' else path}: not UTF-8 text (byte "
                         f"0x{e.object[e.start]:02x} at offset {e.start}); save it as UTF-8") from None
    except OSError as e:
        raise SystemExit(f"kernel file {path}: cannot be read ({e.strerror or e})") from None
