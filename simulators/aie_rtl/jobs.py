"""The files an aie RTL job is made of (rtl/aie/aie_sim.v reads and writes them).

In:  job.txt (prog_len max_retire max_cycles trace ext_len), imem.hex (one word per
     line), dm.hex (one 32-byte row per line, byte 0 in the low bits), bd.hex (the DMA
     descriptor table: 16 words per descriptor, BD_FIELDS, rel, rel_n, acq, acq_n), ext.hex (external
     memory words 0 .. ext_len-1: the image up to its last nonzero word)
Out: dm.out (rows, as dm.hex), ext.out (words from 0 up to the highest loaded or
     written), state.txt ("reg N hex", "x N hex", "acc N hex": the
     words of aie_core's host register map), trace.txt when traced
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kernelcraft.simulators.rtl.verilog import read_memh

ROW = 32
# Words of a descriptor in rtl/aie/aie_dma.v's table, then rel (bit 4: a lock), rel_n,
# acq (bit 4: a lock) and acq_n.
BD_FIELDS = ("ext", "loc", "n0", "n1", "s1", "n2", "s2", "ls1", "ls2")
BD_SLOTS = 16


def bd_words(descriptors: list[dict]) -> list[int]:
    words = [0] * (16 * BD_SLOTS)
    for k, d in enumerate(descriptors):
        if not d:
            continue
        w = [d[f] & 0xFFFFFFFF for f in BD_FIELDS]
        w += [(16 | d["rel"]) if d["rel"] is not None else 0, d["rel_n"],
              (16 | d["acq"]) if d["acq"] is not None else 0, d["acq_n"]]
        words[16 * k:16 * k + len(w)] = w
    return words


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
    ext: np.ndarray               # external memory, uint16 words
    descriptors: list[dict]


def write_job(directory: Path, job: JobInput) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    used = np.flatnonzero(job.ext)
    n = int(used[-1]) + 1 if used.size else 0
    (directory / "job.txt").write_text(
        f"{len(job.words)} {job.max_retire} {job.max_cycles} {int(job.trace)} {n}\n")
    (directory / "ext.hex").write_text("".join(f"{int(w):04x}\n" for w in job.ext[:n]))
    (directory / "bd.hex").write_text("".join(f"{w:08x}\n" for w in bd_words(job.descriptors)))
    (directory / "imem.hex").write_text("".join(f"{w & 0xFFFFFFFF:08x}\n" for w in job.words) or "0\n")
    (directory / "dm.hex").write_text(rows_hex(job.dm))


@dataclass
class JobOutput:
    dm: np.ndarray
    ext: np.ndarray               # words 0 .. (highest loaded or written)
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
    text = (directory / "ext.out").read_text().split()
    ext = np.array([int(w, 16) for w in text], np.uint16)
    return JobOutput(rows_from_hex(directory / "dm.out"), ext, regs, x, acc)
