"""The files a plena RTL job is made of (rtl/plena/plena_sim.v reads and writes them).

In:  job.txt, imem.hex, vsram.hex, msram.hex, fp_mem.hex, int_mem.hex, hbm.bin
Out: <memory>.out and <accumulator>.out ($writememh), state.txt, hbm.bin (in place),
     trace.txt when traced.

Vector and Matrix SRAM rows are one hex word per row, element 0 in the low bits; FP_MEM
and INT_MEM one 32-bit word per entry; HBM raw little-endian bf16. With the Verilog HBM
model (Icarus, `hbm="hex"`), HBM goes in as hbm.hex (the image's writes after @address
lines) and comes back as hbm.out, one element per line.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kernelcraft.simulators.rtl.verilog import read_memh

MEMORY_FILES = ("vsram", "msram", "fp_mem", "int_mem")
ACCUMULATORS = ("MM_ACC", "MV_ACC", "BMM_ACC", "BMV_ACC")


def rows_hex(bits: np.ndarray, width: int) -> str:
    """uint16 elements, `width` per row, as $readmemh lines (highest element first)."""
    rows = np.ascontiguousarray(bits.reshape(-1, width)[:, ::-1]).astype(">u2")
    text = rows.tobytes().hex()
    n = width * 4
    return "\n".join(text[i:i + n] for i in range(0, len(text), n)) + "\n"


def words_hex(words: np.ndarray) -> str:
    return "\n".join(f"{int(w):08x}" for w in words) + "\n"


def rows_from_hex(path: Path, width: int) -> np.ndarray:
    """Inverse of rows_hex: uint16 elements in address order."""
    text = "".join(w.rjust(width * 4, "0") for w in read_memh(path, width * 16))
    rows = np.frombuffer(bytes.fromhex(text), dtype=">u2").reshape(-1, width)[:, ::-1]
    return rows.astype(np.uint16).ravel()


def words_from_hex(path: Path) -> np.ndarray:
    return np.array([int(w, 16) for w in read_memh(path, 32)], dtype=np.uint32)


@dataclass
class JobInput:
    words: list[int]
    memories: dict[str, np.ndarray]       # initial on-chip contents, storage dtypes
    hbm_size: int
    hbm_writes: list[tuple[int, np.ndarray]]   # the image's HBM writes, in order
    max_retire: int
    max_cycles: int
    trace: bool


def sparse_hex(writes: list[tuple[int, np.ndarray]]) -> str:
    """HBM writes as $readmemh text: an @address line (hex) before each run of elements."""
    parts = []
    for addr, values in writes:
        v = np.ascontiguousarray(values, dtype=">u2").tobytes().hex()
        parts.append(f"@{addr:x}\n" + "\n".join(v[i:i + 4] for i in range(0, len(v), 4)) + "\n")
    return "".join(parts)


def elements_from_hex(path: Path) -> np.ndarray:
    """A $writememh file of 16-bit words (one per line) as uint16, in address order."""
    text = "".join(w.rjust(4, "0") for w in read_memh(path, 16))
    return np.frombuffer(bytes.fromhex(text), dtype=">u2").astype(np.uint16)


def write_job(directory: Path, job: JobInput, cfg, hbm: str = "bin") -> None:
    """The job's input files; `hbm` is "bin" (the DPI-C HBM model's mapped file) or
    "hex" (the Verilog HBM model's $readmemh file)."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "job.txt").write_text(
        f"{len(job.words)} {job.max_retire} {job.max_cycles} {int(job.trace)}\n")
    (directory / "imem.hex").write_text(words_hex(np.asarray(job.words, dtype=np.uint32)))
    m = job.memories
    (directory / "vsram.hex").write_text(rows_hex(m["vsram"], cfg.VLEN))
    (directory / "msram.hex").write_text(rows_hex(m["msram"], cfg.MLEN))
    (directory / "fp_mem.hex").write_text(words_hex(np.asarray(m["fp_mem"], np.float32).view(np.uint32)))
    (directory / "int_mem.hex").write_text(words_hex(np.asarray(m["int_mem"], np.int32).view(np.uint32)))
    if hbm == "hex":
        (directory / "hbm.hex").write_text(sparse_hex(job.hbm_writes))
        return
    # HBM is mostly zeros: a sparse file holding only the image's writes.
    with open(directory / "hbm.bin", "wb") as f:
        f.truncate(2 * job.hbm_size)
        for addr, values in job.hbm_writes:
            f.seek(2 * addr)
            f.write(np.ascontiguousarray(values, dtype="<u2").tobytes())


@dataclass
class JobOutput:
    memories: dict[str, np.ndarray]
    state: dict[str, list[str]]
    accumulators: dict[str, np.ndarray]


def read_state(path: Path) -> dict[str, list[str]]:
    state = {}
    for line in path.read_text().splitlines():
        key, *values = line.split()
        state[key] = values
    return state


def f32_of(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]


def read_job(directory: Path, cfg, hbm: str = "bin") -> JobOutput:
    heads = cfg.MLEN // cfg.HLEN
    memories = {
        "hbm": (elements_from_hex(directory / "hbm.out") if hbm == "hex" else
                np.fromfile(directory / "hbm.bin", dtype="<u2").astype(np.uint16)),
        "vsram": rows_from_hex(directory / "vsram.out", cfg.VLEN),
        "msram": rows_from_hex(directory / "msram.out", cfg.MLEN),
        "fp_mem": words_from_hex(directory / "fp_mem.out").view(np.float32),
        "int_mem": words_from_hex(directory / "int_mem.out").view(np.int32),
    }
    shapes = {"MM_ACC": (cfg.BLEN, cfg.BLEN), "MV_ACC": (cfg.MLEN,),
              "BMM_ACC": (heads, cfg.MLEN, cfg.MLEN), "BMV_ACC": (heads, cfg.MLEN)}
    accumulators = {name: words_from_hex(directory / f"{name.lower()}.out").view(np.float32)
                    .reshape(shapes[name]) for name in ACCUMULATORS}
    return JobOutput(memories, read_state(directory / "state.txt"), accumulators)
