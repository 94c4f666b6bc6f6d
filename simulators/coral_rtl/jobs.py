"""The files a coral RTL job is made of (rtl/coral/coral_sim.v reads and writes them).

In:  job.txt (end_pc max_retire max_cycles trace), load.hex ("sel word-address word"
     per line, hex: sel 0 ITCM, 1 DTCM, 2 x (and the vector registers' words from
     0x10000) and 3 f registers)
Out: state.txt (how the run ended, counters, CSRs, registers), dtcm.out (every DTCM word
     the job loaded or stored: "@word-index" before each run of words), trace.txt
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

SEL_ITCM, SEL_DTCM, SEL_X, SEL_F = 0, 1, 2, 3
VREG_BASE = 0x10000           # host addresses of the vector registers' words (with SEL_X)


@dataclass
class JobInput:
    words: list[int]          # the program
    dtcm: np.ndarray          # initial DTCM bytes (zeros elsewhere)
    x: list[int]              # initial integer registers
    f: list[int]              # initial fp registers (bit patterns)
    end_pc: int               # byte address one past the program
    max_retire: int
    max_cycles: int
    trace: bool
    vreg_words: int = 0       # 32 * VLEN / 32


def write_job(directory: Path, job: JobInput) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "job.txt").write_text(
        f"{job.end_pc} {job.max_retire} {job.max_cycles} {int(job.trace)}\n")
    d = job.dtcm[:job.dtcm.size & ~3].view(np.uint32)
    nz = np.flatnonzero(d)        # the SRAM starts a job zeroed: only the rest is written
    lines = [f"0 {i:x} {w:x}" for i, w in enumerate(job.words)]
    lines += [f"2 {i:x} {v & 0xFFFFFFFF:x}" for i, v in enumerate(job.x)]
    lines += [f"3 {i:x} {v & 0xFFFFFFFF:x}" for i, v in enumerate(job.f)]
    # the vector register file is not reset: a job starts with it zeroed, as the model's
    lines += [f"2 {VREG_BASE + i:x} 0" for i in range(job.vreg_words)]
    lines += [f"1 {i:x} {w:x}" for i, w in zip(nz.tolist(), d[nz].tolist())]
    (directory / "load.hex").write_text("\n".join(lines) + "\n")


@dataclass
class JobOutput:
    state: dict[str, list[str]]
    dtcm: np.ndarray          # final DTCM bytes


def read_state(path: Path) -> dict[str, list[str]]:
    state = {}
    for line in path.read_text().splitlines():
        key, *values = line.split()
        state[key] = values
    return state


def read_job(directory: Path, dtcm_size: int) -> JobOutput:
    words = np.zeros(dtcm_size // 4, dtype=np.uint32)
    at = 0
    text = (directory / "dtcm.out").read_text().split()
    runs: dict[int, list[int]] = {}
    for tok in text:
        if tok.startswith("@"):
            at = int(tok[1:], 16)
            runs[at] = []
            cur = runs[at]
        else:
            cur.append(int(tok, 16))
    for start, vals in runs.items():
        words[start:start + len(vals)] = vals
    dtcm = np.zeros(dtcm_size, dtype=np.uint8)
    dtcm[:words.size * 4] = words.view(np.uint8)
    return JobOutput(read_state(directory / "state.txt"), dtcm)
