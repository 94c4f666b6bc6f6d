"""`kernelcraft exec`: run any program on a user-given memory image (or zeros) and
print or save what is asked for. For people bringing up kernels by hand."""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from kernelcraft.simulators import numerics
from kernelcraft.simulators.core.backend import MemoryImage
from kernelcraft.simulators.core.budget import Budget
from kernelcraft.simulators.core.errors import AssemblyError, ConfigError

STORAGE = {"bf16": np.uint16, "fp32": np.float32, "int32": np.int32, "u8": np.uint8}
# Element types of --as for memories addressed by byte address from a base (coral's DTCM).
TYPES = {"f32": np.float32, "i32": np.int32, "u32": np.uint32, "i16": np.int16, "u16": np.uint16,
         "i8": np.int8, "u8": np.uint8}


def based_memories(hw) -> dict[str, int]:
    """Memories whose table gives a base address: there ADDR is a byte address (a label
    works), values are --as elements, and --dump LABEL prints a labelled range."""
    from kernelcraft.isa.loader import eval_expr
    tables = hw.isa.hardware.get("memories", {})
    return {name: eval_expr(m["base"], hw.values) for name, m in tables.items() if "base" in m}


def _labelled_range(program, label: str, base: int, size: int) -> tuple[int, int]:
    """(address, bytes) of a label: up to the next label above it in the same memory,
    else to the end of the program's data there."""
    start = program.labels[label]
    ends = [a for a in program.labels.values() if start < a < base + size and a >= base]
    ends += [addr + len(blob) for _, addr, blob in program.data if addr <= start < addr + len(blob)]
    return start, (min(ends) if ends else start + 4) - start


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


BF16_MAX = 3.3895313892515355e38


def check_lossless(values: np.ndarray, dtype, what: str, opt: str, spec: str) -> None:
    """Refuse values the memory's element type cannot hold (NaN or infinity or a
    fraction in an integer memory, 300 as u8, 1e39 as f32): they would be stored as
    something else without a word. `what` names the type for the message."""
    v = np.asarray(values, dtype=np.float64)
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        with np.errstate(invalid="ignore"):
            bad = ~np.isfinite(v) | (v != np.round(v)) | (v < info.min) | (v > info.max)
        allowed = f"whole numbers from {info.min} to {info.max}"
    else:
        top = BF16_MAX if what == "bf16" else float(np.finfo(dtype).max)
        bad = np.isfinite(v) & (np.abs(v) > top)
        allowed = f"numbers of magnitude up to {top:.4g}, inf, -inf or nan"
    if bad.any():
        i = int(np.argmax(bad))
        raise ExecArgError(f"{opt} {spec}: value {float(v[i])!r} (element {i}) does not fit {what} "
                           f"memory; allowed: {allowed}")


def parse_number(text: str, opt: str, spec: str) -> float:
    """A literal of --set: an integer (decimal, 0x, 0b, 0o), a float, inf or nan; a float
    beyond float64 (1e400) is refused rather than read as infinity."""
    text = text.strip()
    try:
        return int(text, 0)
    except ValueError:
        pass
    try:
        v = float(text)
    except ValueError:
        raise ExecArgError(f"{opt} {spec}: {text!r} is not a number; values are numbers "
                           f"separated by commas, e.g. 1,2.5,-3,0x10,inf") from None
    if np.isinf(v) and "inf" not in text.lower():
        raise ExecArgError(f"{opt} {spec}: {text} is beyond the range of a float (about "
                           f"1.8e308); write inf if you mean infinity")
    return v


def _check_mem(mem: str, memories: dict, opt: str) -> None:
    if mem not in memories:
        raise ExecArgError(f"{opt}: unknown memory {mem!r}; memories: {', '.join(memories)}")


def _read_values(path: str, opt: str) -> np.ndarray:
    p = Path(path)
    if not p.is_file():
        raise ExecArgError(f"{opt}: file not found: {path}")
    if p.suffix == ".npy":
        try:
            values = np.load(p, allow_pickle=False)
        except (ValueError, OSError, EOFError) as e:
            raise ExecArgError(f"{opt}: {path} is not a readable .npy array of numbers "
                               f"({str(e).splitlines()[0][:200] if str(e) else type(e).__name__})") from None
        if values.dtype.kind not in "biuf":
            raise ExecArgError(f"{opt}: {path} holds {values.dtype} values; give an array of "
                               f"integers or floats")
        return values.reshape(-1)
    try:
        return np.array([float(v) for v in p.read_text(encoding="utf-8").split()])
    except UnicodeDecodeError as e:
        raise ExecArgError(f"{opt}: {path} is neither a .npy file nor text (byte "
                           f"0x{e.object[e.start]:02x} at offset {e.start} is not UTF-8)") from None
    except ValueError as e:
        raise ExecArgError(f"{opt}: {path} is not a .npy file or whitespace-separated numbers ({e})")


def _check_save_path(path: str, spec: str) -> None:
    """Before the run: a --save that cannot be written is refused, not found out after."""
    p = Path(path)
    if p.suffix != ".npy":
        raise ExecArgError(f"--save {spec}: the file must end in .npy, got {path!r}")
    if p.is_dir():
        raise ExecArgError(f"--save {spec}: {path} is a folder; give a file name ending in .npy")
    parent = p.parent
    if not parent.is_dir():
        raise ExecArgError(f"--save {spec}: folder {parent} does not exist; create it first")
    if not os.access(parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise ExecArgError(f"--save {spec}: {path} is not writable")




def _show(mem: str, values: np.ndarray, fmt: str, probe: dict) -> list:
    if fmt == "hex":
        width = values.dtype.itemsize * 2
        return [f"0x{int(v) & ((1 << (4 * width)) - 1):0{width}X}" for v in values]
    if probe[mem].dtype == np.uint16:
        return [float(v) for v in numerics.bf16_bits_to_f32(values)]
    return [v.item() for v in values]


def exec_image(args, hw, program) -> MemoryImage:
    """The memory image of --load MEM:ADDR:FILE and --set MEM:ADDR=v1,... (zeros
    elsewhere); addresses may be the program's .equ constants and labels. `exec` and
    `debug` read the same options. Values a memory's type cannot hold exactly, and
    ranges that do not fit, are refused naming the option."""
    names = {**program.labels, **program.constants}
    probe = {name: np.zeros(0, dtype=STORAGE[dtype]) for name, (_, dtype) in hw.memories().items()}
    bases = based_memories(hw)
    sizes = {name: size for name, (size, _) in hw.memories().items()}
    as_name = getattr(args, "as_type", None) or "f32"
    as_type = TYPES[as_name]

    def storage(mem, values, opt, spec, address):
        """Values in the memory's storage, refused if the type cannot hold them or they
        do not fit the memory at `address`."""
        kind = hw.memories()[mem][1]
        what, dtype = ((as_name, as_type) if mem in bases else
                       (kind, np.float32 if kind == "bf16" else probe[mem].dtype))
        check_lossless(values, dtype, what, opt, spec)
        out = np.asarray(values).astype(as_type) if mem in bases else _to_storage(mem, values, probe)
        lo, n = (bases[mem], out.nbytes) if mem in bases else (0, len(out))
        if address < lo or address - lo + n > sizes[mem]:
            unit = "bytes" if mem in bases else "elements"
            raise ExecArgError(f"{opt} {spec}: {n} {unit} at {address} do not fit {mem} "
                               f"({unit} {lo}..{lo + sizes[mem] - 1})")
        return out

    image = MemoryImage()
    for spec in getattr(args, "load", None) or []:
        parts = spec.split(":", 2)
        if len(parts) != 3:
            raise ExecArgError(f"--load {spec!r}: expected MEM:ADDR:FILE")
        mem, addr, path = parts
        _check_mem(mem, probe, "--load")
        a = _resolve(addr, names, "--load")
        image.put(mem, a, storage(mem, _read_values(path, "--load"), "--load", spec, a))
    for spec in getattr(args, "set", None) or []:
        head, sep, vals = spec.partition("=")
        mem, _, addr = head.partition(":")
        if not sep or not addr:
            raise ExecArgError(f"--set {spec!r}: expected MEM:ADDR=v1,v2,...")
        _check_mem(mem, probe, "--set")
        values = np.array([parse_number(v, "--set", spec) for v in vals.split(",")],
                          dtype=np.float64)
        a = _resolve(addr, names, "--set")
        image.put(mem, a, storage(mem, values, "--set", spec, a))
    return image


def run_exec(args) -> int:
    from kernelcraft.workbench.accel import get_accel
    from kernelcraft.workbench.cliargs import hardware, read_source
    accel = get_accel(args.accel)
    hw = hardware(accel, args.hw)
    try:
        program = accel.assemble(read_source(args.program), source_name=args.program, config=hw)
    except AssemblyError as e:
        print(str(e))
        return 1
    if getattr(args, "bulk", False) and not getattr(args, "rtl", False):
        raise ConfigError("exec: --bulk is a mode of the RTL run; add --rtl")
    if getattr(args, "rtl", False):
        from kernelcraft.workbench.rtlcheck import rtl_backend
        backend = rtl_backend(args.accel, bulk=getattr(args, "bulk", False))
    else:
        backend = accel.backend()
    names = {**program.labels, **program.constants}
    probe = {name: np.zeros(0, dtype=STORAGE[dtype]) for name, (_, dtype) in hw.memories().items()}
    bases = based_memories(hw)
    sizes = {name: size for name, (size, _) in hw.memories().items()}
    as_type = TYPES[getattr(args, "as_type", None) or "f32"]
    image = exec_image(args, hw, program)

    def parse(spec: str, opt: str, form: str) -> tuple[str, str, str | None]:
        parts = spec.split(":")
        if len(parts) == 3:
            return parts[0], parts[1], parts[2]
        if len(parts) == 1 and spec in program.labels:
            addr = program.labels[spec]
            mem = next((m for m, b in bases.items() if b <= addr < b + sizes[m]), None)
            if mem is not None:
                return mem, spec, None
        labels = [k for k, a in program.labels.items() if any(b <= a < b + sizes[m] for m, b in bases.items())]
        raise ExecArgError(f"{opt} {spec!r}: expected {form}" +
                           (f" or a label ({', '.join(sorted(labels))})" if labels else ""))

    def select(spec: str, mem: str, addr: str, length: str | None, opt: str,
               memories: dict) -> np.ndarray:
        _check_mem(mem, memories, opt)
        data = memories[mem]
        if mem not in bases:
            a, n = _resolve(addr, names, opt), _resolve(length, names, opt)
            if a < 0 or n < 0 or a + n > len(data):
                raise ExecArgError(f"{opt} {spec}: range {a}..{a + n} is outside {mem} (size {len(data)})")
            return data[a:a + n]
        if length is None:
            a, nbytes = _labelled_range(program, addr, bases[mem], sizes[mem])
            nbytes -= nbytes % as_type().itemsize
        else:
            a, nbytes = _resolve(addr, names, opt), _resolve(length, names, opt) * as_type().itemsize
        o = a - bases[mem]
        if o < 0 or nbytes < 0 or o + nbytes > len(data):
            raise ExecArgError(f"{opt} {spec}: bytes 0x{a:x}..0x{a + nbytes:x} are outside {mem} "
                               f"(0x{bases[mem]:x}..0x{bases[mem] + len(data):x})")
        if o % as_type().itemsize:
            raise ExecArgError(f"{opt} {spec}: address 0x{a:x} is not a multiple of {as_type().itemsize} "
                               f"(--as {getattr(args, 'as_type', None) or 'f32'})")
        return data[o:o + nbytes].view(as_type)

    # Every --dump and --save is checked on empty memories before the run.
    empty = {name: np.zeros(size, dtype=np.uint8 if name in bases else probe[name].dtype)
             for name, size in sizes.items()}
    saves = []
    for spec in args.save or []:
        head, _, path = spec.rpartition(":")
        if not head or not path:
            raise ExecArgError(f"--save {spec!r}: expected MEM:ADDR:LEN:FILE.npy")
        select(head, *parse(head, "--save", "MEM:ADDR:LEN:FILE.npy"), "--save", empty)
        _check_save_path(path, spec)
        saves.append((spec, head, path))
    for spec in args.dump or []:
        select(spec, *parse(spec, "--dump", "MEM:ADDR:LEN"), "--dump", empty)
    del empty

    # The model's limit is CPU time (wall clock ten times that as a backstop); the RTL
    # runs in another process and keeps to the wall clock.
    budget = (Budget(max_instructions=args.max_instructions, wall_seconds=args.timeout)
              if getattr(args, "rtl", False) else
              Budget(max_instructions=args.max_instructions, cpu_seconds=args.timeout,
                     wall_seconds=10 * args.timeout))
    result = backend.run(program, image, hw, budget)
    out: dict = {"cycles": result.cycles, "retired": result.retired, "stop": result.stop,
                 "unit_busy": result.unit_busy, "stalls": result.stalls,
                 "error": str(result.error) if result.error else None, "dumps": {}}
    if getattr(args, "rtl", False):
        out["backend"] = result.backend
    for spec in args.dump or []:
        mem, addr, length = parse(spec, "--dump", "MEM:ADDR:LEN")
        vals = select(spec, mem, addr, length, "--dump", result.memories)
        out["dumps"][spec] = _show(mem, vals, args.format, probe) if mem not in bases else \
            _show(mem, vals, args.format, {mem: vals})
    for spec, head, path in saves:
        mem, addr, length = parse(head, "--save", "MEM:ADDR:LEN:FILE.npy")
        vals = select(head, mem, addr, length, "--save", result.memories)
        try:
            np.save(path, numerics.bf16_bits_to_f32(vals) if probe[mem].dtype == np.uint16
                    and mem not in bases else vals)
        except OSError as e:
            raise ExecArgError(f"--save {spec}: cannot write {path} ({e.strerror or e})") from None
    if args.regs:
        out["registers"] = {k: (v.tolist() if isinstance(v, np.ndarray) else list(v)
                                if isinstance(v, (list, tuple)) else v)
                            for k, v in result.registers.items()}
    if args.json:
        print(json.dumps(out, indent=2, default=str))
    else:
        status = f"stopped: {result.stop}" + (f" -- {result.error}" if result.error else "")
        if "backend" in out:
            status = f"backend: {out['backend']}\n{status}"
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
