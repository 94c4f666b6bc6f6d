"""Getting things out of the workbench, free of any UI: a kernel saved to a file, a
run exported as Markdown or JSON lines (what `kernelcraft export` writes), and which
kernel a diff compares against (another version of the run, or the task's baseline).
Nothing is ever overwritten: a name already taken gets -2, -3, ... before its suffix."""
from __future__ import annotations

from pathlib import Path

from .trace import RunTrace

EXPORT_FORMATS = ("md", "jsonl")


class TakeoutError(ValueError):
    """What was asked for cannot be written or found; the message says why."""


def free_path(directory: str | Path, name: str) -> Path:
    """`directory/name`, or the first of name-2, name-3, ... not taken yet."""
    d = Path(directory)
    p = d / name
    stem, suffix = p.stem, p.suffix
    n = 2
    while p.exists():
        p = d / f"{stem}-{n}{suffix}"
        n += 1
    return p


def save_kernel(source: str, run_id: int, version: int, directory: str | Path = ".") -> Path:
    path = free_path(directory, f"run{run_id}-v{version}.asm")
    try:
        path.write_text(source, encoding="utf-8")
    except OSError as e:
        raise TakeoutError(f"cannot write {path}: {e.strerror}") from None
    return path


def export_run(store, run_id: int, fmt: str, directory: str | Path = ".") -> Path:
    """The run as `kernelcraft export` writes it: Markdown (the whole transcript) or JSON
    lines (every event, verifiable)."""
    fmt = fmt.strip().lower().lstrip(".")
    if fmt not in EXPORT_FORMATS:
        raise TakeoutError(f"export format {fmt!r}: choose {' or '.join(EXPORT_FORMATS)}")
    path = free_path(directory, f"run{run_id}.{fmt}")
    try:
        with open(path, "w", encoding="utf-8") as fh:
            if fmt == "jsonl":
                store.export_jsonl(run_id, fh)
            else:
                from kernelcraft.workbench.agent.transcript import markdown
                fh.write(markdown(store, run_id, full=True))
    except OSError as e:
        raise TakeoutError(f"cannot write {path}: {e.strerror}") from None
    return path


def diff_base(trace: RunTrace, against: str, source_of, baseline_of) -> tuple[str, str]:
    """(old source, its name) to diff the shown kernel against: `against` is a version
    number of the run or "baseline"; `source_of(hash)` reads a stored kernel,
    `baseline_of()` makes the task's baseline."""
    a = against.strip().lower().lstrip("v")
    if a in ("b", "baseline", "base"):
        return baseline_of(), "the baseline"
    try:
        version = int(a)
    except ValueError:
        raise TakeoutError(f"{against!r}: compare with a kernel version (1.."
                           f"{len(trace.kernels)}) or 'baseline'") from None
    ref = next((k for k in trace.kernels if k.version == version), None)
    if ref is None:
        raise TakeoutError(f"this run has no kernel version {version}; versions 1.."
                           f"{len(trace.kernels)}")
    source = source_of(ref.hash)
    if source is None:
        raise TakeoutError(f"kernel version {version} is not in the store")
    return source, f"version {version}"
