"""Memory and register cells shown as bf16, fp32, int or hex.

A cell is shown by reinterpreting what its memory stores (the storage dtypes of
`HardwareConfig.memories()`; accumulators hold fp32):

| stored as | bf16                  | fp32                    | int             | hex        |
|-----------|-----------------------|-------------------------|-----------------|------------|
| bf16 bits | the value             | the same value, 9 digits| bits as int16   | 0xABCD     |
| fp32      | rounded to bf16 (RNE) | the value               | bits as int32   | 0x3F800000 |
| int32     | top 16 bits as bf16   | the bits as fp32        | the value       | 0xFFFFFFFF |

so hex is always the stored bit pattern, and each other view answers "what would
this cell be if read as that type".

Byte-addressed memories (storage "u8": coral's DTCM, aie's data memory) are read as
little-endian cells of the format's width (`CELL_BYTES`): bf16 values, fp32 values,
int32 values or 32-bit words in hex.
"""
from __future__ import annotations

import numpy as np

from kernelcraft.simulators import numerics

FORMATS: tuple[str, ...] = ("bf16", "fp32", "int", "hex")
STORAGE: tuple[str, ...] = ("bf16", "fp32", "int32")
CELL_BYTES = {"bf16": 2, "fp32": 4, "int": 4, "hex": 4}


def _as_storage(values, storage: str) -> np.ndarray:
    a = np.asarray(values)
    if storage == "bf16":
        return a.astype(np.uint16, copy=False)
    if storage == "fp32":
        return a.astype(np.float32, copy=False)
    if storage == "int32":
        return a.astype(np.int64, copy=False).astype(np.int32)
    raise ValueError(f"unknown storage dtype {storage!r}; one of {', '.join(STORAGE)}")


def _float(v: float, digits: int) -> str:
    if not np.isfinite(v):
        return "nan" if np.isnan(v) else ("inf" if v > 0 else "-inf")
    if v == 0 or 1e-4 <= abs(v) < 10.0 ** digits:
        return np.format_float_positional(v, precision=digits, unique=True,
                                          fractional=False, trim="-")
    return np.format_float_scientific(v, precision=digits - 1, unique=True,
                                      trim="-").replace(".e", "e")


def _floats(x: np.ndarray, digits: int) -> list[str]:
    return [_float(v, digits) for v in x.astype(np.float64).tolist()]


def to_bits(values, storage: str) -> np.ndarray:
    """The stored bit patterns, as unsigned integers."""
    a = _as_storage(values, storage)
    if storage == "bf16":
        return a
    return a.view(np.uint32)


def format_cells(values, storage: str, fmt: str) -> list[str]:
    """Text of each cell of `values` (stored as `storage`) in format `fmt`."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")
    a = _as_storage(np.ravel(values), storage)
    if fmt == "hex":
        width = 4 if storage == "bf16" else 8
        return [f"0x{v:0{width}X}" for v in to_bits(a, storage).tolist()]
    if storage == "bf16":
        if fmt == "int":
            return [str(v) for v in a.view(np.int16).tolist()]
        return _floats(numerics.bf16_bits_to_f32(a), 4 if fmt == "bf16" else 9)
    if storage == "fp32":
        if fmt == "int":
            return [str(v) for v in a.view(np.int32).tolist()]
        if fmt == "bf16":
            return _floats(numerics.bf16_bits_to_f32(numerics.f32_to_bf16_bits(a)), 4)
        return _floats(a, 9)
    # int32 storage
    if fmt == "int":
        return [str(v) for v in a.tolist()]
    if fmt == "fp32":
        return _floats(a.view(np.float32), 9)
    return _floats(numerics.bf16_bits_to_f32((a.view(np.uint32) >> 16).astype(np.uint16)), 4)


def format_scalar(value, storage: str, fmt: str) -> str:
    return format_cells(np.asarray([value]), storage, fmt)[0]


def next_format(fmt: str) -> str:
    return FORMATS[(FORMATS.index(fmt) + 1) % len(FORMATS)]


def cell_bytes(storage: str, fmt: str) -> int:
    """Memory elements per shown cell: 1, or the format's width for byte storage."""
    return CELL_BYTES[fmt] if storage == "u8" else 1


def format_bytes(raw, fmt: str) -> list[str]:
    """Bytes (a whole number of cells) as cells of format `fmt`."""
    b = np.ascontiguousarray(np.asarray(raw, dtype=np.uint8))
    if fmt == "bf16":
        return format_cells(b.view(np.uint16), "bf16", "bf16")
    if fmt == "fp32":
        return format_cells(b.view(np.float32), "fp32", "fp32")
    return format_cells(b.view(np.int32), "int32", fmt)
