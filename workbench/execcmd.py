"""`kernelcraft exec`: run any program on a user-given memory image (or zeros) and
print or save what is asked for. For people bringing up kernels by hand."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from simulators import numerics
from simulators.core.backend import MemoryImage
from simulators.core.budget import Budget
from simulators.core.errors import AssemblyError

STORAGE = {"bf16": np.uint16, "fp32": np.float32, "int32": np.int32, "u8": np.uint8}


class ExecArgError(ValueError):
    """A command-line memory spec is malformed; the message names the option and the fix."""


def _resolve(addr: str, constants: dict[str, int], opt: str) -> int:
    """A number, or a name the program defines (.equ constant or label)."""
    addr = addr.strip()
    if addr in constants:
        return constants[addr]
    try:
        return int(addr, 0)
    except ValueError:
        known = ", ".join(sorted(constants)) or "none defined"
        raise ExecArgError(f"{opt}: address {addr!r} is neither a number nor a name the program "
                           f"defines (.equ constants and labels: {known})")


def _to_storage(mem: str, values: np.ndarray, memories: dict) -> np.ndarray:
    dtype = memories[mem].dtype
    if memories[mem].dtype == np.uint16:
        return numerics.f32_to_bf16_bits(np.asarray(values, dtype=np.float32))
    return np.asarray(values).astype(dtype)


def _check_mem(mem: str, memories: dict, opt: str) -> None:
    if mem not in memories:
        raise ExecArgError(f"{opt}: unknown memory {mem!r}; memories: {', '.join(memories)}")


def _read_values(path: str, opt: str) -> np.ndarray:
    p = Path(path)
    if not p.is_file():
        raise ExecArgError(f"{opt}: file not found: {path}")
    if p.suffix == ".npy":
        return np.load(p).reshape(-1)
    try:
        return np.array([float(v) for v in p.read_text().split()])
    except ValueError as e:
        raise ExecArgError(f"{opt}: {path} is not a .npy file or whitespace-separated numbers ({e})")


def _show(mem: str, values: np.ndarray, fmt: str, probe: dict) -> list:
    if fmt == "hex":
        width = values.dtype.itemsize * 2
        return [f"0x{int(v) & ((1 << (4 * width)) - 1):0{width}X}" for v in values]
    if probe[mem].dtype == np.uint16:
        return [float(v) for v in numerics.bf16_bits_to_f32(values)]
    return [v.item() for v in values]


def run_exec(args) -> int:
    from workbench.accel import get_accel
    from workbench.cli import _hw, _read_source
    accel = get_accel(args.accel)
    hw = _hw(accel, args.hw)
    try:
        program = accel.assemble(_read_source(args.program), source_name=args.program, config=hw)
    except AssemblyError as e:
        print(str(e))
        return 1
    backend = accel.backend()
    names = {**program.labels, **program.constants}
    probe = {name: np.zeros(0, dtype=STORAGE[dtype]) for name, (_, dtype) in hw.memories().items()}
    image = MemoryImage()
    for spec in args.load or []:
        parts = spec.split(":", 2)
        if len(parts) != 3:
            raise ExecArgError(f"--load {spec!r}: expected MEM:ADDR:FILE")
        mem, addr, path = parts
        _check_mem(mem, probe, "--load")
        image.put(mem, _resolve(addr, names, "--load"),
                  _to_storage(mem, _read_values(path, "--load"), probe))
    for spec in args.set or []:
        head, sep, vals = spec.partition("=")
        mem, _, addr = head.partition(":")
        if not sep or not addr:
            raise ExecArgError(f"--set {spec!r}: expected MEM:ADDR=v1,v2,...")
        _check_mem(mem, probe, "--set")
        try:
            values = np.array([float(v) for v in vals.split(",")])
        except ValueError:
            raise ExecArgError(f"--set {spec!r}: values must be numbers separated by commas")
        image.put(mem, _resolve(addr, names, "--set"), _to_storage(mem, values, probe))
    budget = Budget(max_instructions=args.max_instructions, wall_seconds=args.timeout)
    result = backend.run(program, image, hw, budget)

    out: dict = {"cycles": result.cycles, "retired": result.retired, "stop": result.stop,
                 "unit_busy": result.unit_busy, "stalls": result.stalls,
                 "error": str(result.error) if result.error else None, "dumps": {}}
    for spec in args.dump or []:
        parts = spec.split(":")
        if len(parts) != 3:
            raise ExecArgError(f"--dump {spec!r}: expected MEM:ADDR:LEN")
        mem, addr, length = parts
        _check_mem(mem, result.memories, "--dump")
        a, n = _resolve(addr, names, "--dump"), _resolve(length, names, "--dump")
        size = len(result.memories[mem])
        if a < 0 or n < 0 or a + n > size:
            raise ExecArgError(f"--dump {spec}: range {a}..{a + n} is outside {mem} (size {size})")
        out["dumps"][spec] = _show(mem, result.memories[mem][a:a + n], args.format, probe)
    for spec in args.save or []:
        parts = spec.split(":", 3)
        if len(parts) != 4:
            raise ExecArgError(f"--save {spec!r}: expected MEM:ADDR:LEN:FILE.npy")
        mem, addr, length, path = parts
        _check_mem(mem, result.memories, "--save")
        a, n = _resolve(addr, names, "--save"), _resolve(length, names, "--save")
        vals = result.memories[mem][a:a + n]
        np.save(path, numerics.bf16_bits_to_f32(vals) if probe[mem].dtype == np.uint16 else vals)
    if args.regs:
        out["registers"] = {k: (list(v) if hasattr(v, "__len__") else v)
                            for k, v in result.registers.items()}
    if args.json:
        print(json.dumps(out, indent=2, default=str))
    else:
        status = f"stopped: {result.stop}" + (f" -- {result.error}" if result.error else "")
        print(f"{status}\ncycles: {result.cycles}  instructions retired: {result.retired}")
        print("unit busy cycles: " + ", ".join(f"{k} {v}" for k, v in result.unit_busy.items()))
        for spec, vals in out["dumps"].items():
            print(f"{spec}:")
            for i in range(0, len(vals), 8):
                print("  " + " ".join(f"{v:>12}" if isinstance(v, str) else f"{v:>12.6g}"
                                      for v in vals[i:i + 8]))
        for k, v in out.get("registers", {}).items():
            print(f"{k}: {v}")
    return 0 if result.error is None else 1
