"""The files an aie RTL job is made of (rtl/aie/aie_sim.v reads and writes them).

In:  job.txt (prog_len max_retire max_cycles trace), imem.hex (one word per line),
     dm.hex (one 32-byte row per line, byte 0 in the low bits)
Out: dm.out (rows, as dm.hex), state.txt ("reg N hex", "x N hex", "acc N hex": the
     words of aie_core's host register map), trace.txt when traced
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kernelcraft.simulators.rtl.verilog import read_memh

ROW = 32


def rows_hex(dm: np.ndarray) -> str:
    rows = np.ascontiguousarray(dm.reshape(-1, ROW)[:, ::-1])
    text = rows.tobytes().hex()
    n = 2 * ROW
    return "\n".join(text[i:i + n] for i in range(0, len(text), n)) + "\n"


def rows_from_hex(path: Path) -> np.ndarray:
    text = "".join(w.rjust(2 * ROW, "0") for w in read_memh(path, 8 * ROW))
    return np.frombuffer(bytes.fromhex(text), np.uint8).reshape(-1, ROW)[:, ::-1].ravel().copy()


@dataclass
class JobInput:
    words: list[int]
    dm: np.ndarray            # initial data memory, bytes
    max_retire: int
    max_cycles: int
    trace: bool


def write_job(directory: Path, job: JobInput) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "job.txt").write_text(
        f"{len(job.words)} {job.max_retire} {job.max_cycles} {int(job.trace)}\n")
    (directory / "imem.hex").write_text("".join(f"{w & 0xFFFFFFFF:08x}\n" for w in job.words) or "0\n")
    (directory / "dm.hex").write_text(rows_hex(job.dm))


@dataclass
class JobOutput:
    dm: np.ndarray
    regs: dict[int, int]          # host register map word -> value (unsigned)
    x: np.ndarray                 # (16, 64) uint8
    acc: np.ndarray               # (8, 32) uint32


def read_job(directory: Path) -> JobOutput:
    regs, xw, aw = {}, {}, {}
    for line in (directory / "state.txt").read_text().splitlines():
        kind, n, v = line.split()
        {"reg": regs, "x": xw, "acc": aw}[kind][int(n)] = int(v, 16)
    x = np.array([xw[i] for i in range(len(xw))], np.uint32).view(np.uint8).reshape(16, 64)
    acc = np.array([aw[i] for i in range(len(aw))], np.uint32).reshape(8, 32)
    return JobOutput(rows_from_hex(directory / "dm.out"), regs, x, acc)
