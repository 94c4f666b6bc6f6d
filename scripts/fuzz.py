"""Fuzz what users and models feed KernelCraft: the three assemblers (and, for what
assembles, a short run on the functional model), `kernelcraft exec` options, and agent
tool calls. Each case comes from its own seed, so a campaign is reproducible and a
finding is replayed by its seed.

    python scripts/fuzz.py --cases 200             # a fixed seed budget per target
    python scripts/fuzz.py --seconds 300           # a timed campaign, split over the targets
    python scripts/fuzz.py --target asm --seed 1234 --cases 1   # replay one case

What must hold (issue 16): no traceback and no hang. A case fails when it raises
anything but the errors a bad input is answered with (AssemblyError for source,
SystemExit or a non-zero status with a message for exec, an ok=False result for a
tool call), when an error message is empty, or when it runs longer than its limit.
Exit status 1 if any case failed; each finding is printed with its seed.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import signal
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ACCELS = ("plena", "coral", "aie")
CASE_SECONDS = {"asm": 10.0, "exec": 30.0, "tools": 60.0}
NUMBERS = ["0", "-1", "1", "7", "255", "256", "65535", "2147483647", "2147483648", "-2147483649",
           str(2 ** 63), str(10 ** 30), "0x" + "f" * 20, "0b102", "1e400", "-0", "nan", "inf",
           "1.5", "0x", "9" * 5000, "--3", "(1<<62)", "1/0", "3 % 0", "2**64"]
JUNK = ["", " ", ",", ",,", "A B", "gp99", "x" * 300, "(" * 60, ")" * 3, "[", "]", "{", ";",
        "#", "//", "\t", "\x00", "\x7f", "\u00e9", "\U0001f600", "\ud800", "\u202e", "'",
        '"', "\\", ".equ", ".bd", ".set", "||", ":", "::", "@", "$", "%", "LOOP", "ENDLOOP"]


@dataclass
class Finding:
    target: str
    seed: int
    what: str
    case: str

    def format(self) -> str:
        return f"[{self.target} seed {self.seed}] {self.what}\n    case: {self.case[:400]}"


@dataclass
class Report:
    cases: dict = field(default_factory=dict)        # target -> cases run
    outcomes: dict = field(default_factory=dict)     # target -> {outcome: count}
    findings: list = field(default_factory=list)
    slowest: dict = field(default_factory=dict)      # target -> (seconds, seed)

    def note(self, target: str, outcome: str, seconds: float, seed: int) -> None:
        self.cases[target] = self.cases.get(target, 0) + 1
        o = self.outcomes.setdefault(target, {})
        o[outcome] = o.get(outcome, 0) + 1
        if seconds > self.slowest.get(target, (0.0, 0))[0]:
            self.slowest[target] = (seconds, seed)


class Hang(BaseException):
    """A case ran past its time limit (BaseException: no `except Exception` hides it)."""


@contextlib.contextmanager
def time_limit(seconds: float):
    def alarm(signum, frame):
        raise Hang(f"still running after {seconds:g} s")
    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


# ----------------------------------------------------------------------- corpus

def corpus() -> dict[str, list[str]]:
    """Valid kernels to mutate: two baselines per accelerator, on their default hardware."""
    from kernelcraft.workbench.accel import get_accel
    out = {}
    for name in ACCELS:
        accel = get_accel(name)
        hw = accel.default_config()
        kernels = []
        for task in ("relu", "softmax", "gemv"):
            if task in accel.baseline_templates():
                config = "C1"
                kernels.append(accel.baseline(task, config, hw))
        out[name] = kernels
    return out


def mutate(rng: random.Random, source: str) -> str:
    lines = source.splitlines() or [""]
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(lines))
        line = lines[i]
        op = rng.randrange(11)
        if op == 0 and "," in line:                                  # drop a comma
            k = rng.choice([j for j, c in enumerate(line) if c == ","])
            lines[i] = line[:k] + line[k + 1:]
        elif op == 1:                                                # a number swapped
            toks = line.replace(",", " , ").split()
            nums = [j for j, t in enumerate(toks) if t.lstrip("-").isdigit()]
            if nums:
                toks[rng.choice(nums)] = rng.choice(NUMBERS)
                lines[i] = " ".join(toks)
        elif op == 2:                                                # a token swapped
            toks = line.split()
            if toks:
                toks[rng.randrange(len(toks))] = rng.choice(JUNK)
                lines[i] = " ".join(toks)
        elif op == 3:
            lines.insert(i, lines[rng.randrange(len(lines))])       # a line duplicated
        elif op == 4 and len(lines) > 1:
            del lines[i]
        elif op == 5:
            k = rng.randrange(len(line) + 1)
            lines[i] = line[:k] + rng.choice(JUNK) + line[k:]
        elif op == 6:
            lines[i] = line[:rng.randrange(len(line) + 1)]           # cut short
        elif op == 7:
            lines.insert(i, rng.choice([".equ A, B", ".equ B, A", ".equ X, X + 1",
                                        "L: L:", "lbl:", ".equ Q, " + "(" * 200 + "1" + ")" * 200,
                                        ".bd A B, ext=0, loc=0, n0=1", ".equ N, 1 << 62"]))
        elif op == 8:
            lines[i] = line * rng.choice([2, 50])
        elif op == 9:
            lines.insert(i, "".join(chr(rng.randrange(1, 0x3000)) for _ in range(rng.randint(1, 40))))
        else:
            lines[i] = rng.choice(["LOOP 100000", "LOOP 0", "C_LOOP_START gp1, 0",
                                   "C_LOOP_START gp1, 65535", "j .", "beq x0, x0, 0", "ENDLOOP"])
    text = "\n".join(lines)
    if rng.random() < 0.05:
        text = text.replace("\n", rng.choice(["\r\n", "\r", "\x0b"]))
    return text


# ----------------------------------------------------------------------- targets

def case_asm(rng: random.Random, ctx: dict) -> tuple[str, str]:
    """Assemble a mutated kernel; if it assembles, run it briefly on zeroed memory."""
    from kernelcraft.simulators.core.backend import MemoryImage
    from kernelcraft.simulators.core.budget import Budget
    from kernelcraft.simulators.core.errors import AssemblyError
    from kernelcraft.workbench.accel import get_accel
    name = rng.choice(ACCELS)
    source = mutate(rng, rng.choice(ctx["corpus"][name]))
    accel = get_accel(name)
    hw = ctx["hw"][name]
    ctx["case"] = f"{name}: {source!r}"
    try:
        program = accel.assemble(source, source_name="fuzz.asm", config=hw)
    except AssemblyError as e:
        if not e.diagnostics or not all(d.message.strip() for d in e.diagnostics):
            raise AssertionError("an assembly error without a message") from None
        return "assembly_error", source
    r = accel.backend().run(program, MemoryImage(), hw, Budget(max_instructions=20_000,
                                                               wall_seconds=3.0))
    if r.error is not None and not str(r.error).strip():
        raise AssertionError("a run error without a message")
    return ("run_error" if r.error is not None else "ran"), source


def exec_argv(rng: random.Random, files: dict) -> list[str]:
    good = lambda p: rng.random() < p           # most options valid, so cases get far
    accel = rng.choice(ACCELS) if good(0.95) else "nope"
    mems = {"plena": ["hbm", "vsram", "int_mem", "fp_mem"], "coral": ["dtcm", "itcm"],
            "aie": ["dm", "ext"]}.get(accel, ["x"])
    prog = files.get(f"{accel}.asm") if rng.random() < 0.8 else rng.choice(
        [files["empty.asm"], files["latin1.asm"], "/nonexistent.asm", files["dir"]])
    argv = ["exec", "--accel", accel, prog or files["empty.asm"],
            "--max-instructions", rng.choice(["1000", "20000"]) if good(0.9) else
            rng.choice(["1", "0", "-5", "x"]),
            "--timeout", "5" if good(0.9) else rng.choice(["0", "nan", "inf", "-1", "1e400", "0.5"])]
    addr = lambda: rng.choice(["0", "16", "0x10000", "0x10010", "64"]) if good(0.8) else \
        rng.choice(["1", "-1", "65536", "OUT", "0x", "9" * 40])
    for _ in range(rng.randint(0, 3)):
        opt = rng.randrange(7)
        mem = rng.choice(mems) if good(0.95) else "nope"
        if opt == 0:
            argv += ["--set", f"{mem}:{addr()}=" + ",".join(rng.choice(["1", "-2", "0.5", "100"]
                                                                      if good(0.8) else NUMBERS[:20])
                                                           for _ in range(rng.randint(1, 5)))]
        elif opt == 1:
            argv += ["--load", f"{mem}:{addr()}:{rng.choice(list(files.values()))}"]
        elif opt == 2:
            argv += ["--dump", rng.choice([f"{mem}:{addr()}:{rng.choice(['1', '4', '0', '-1', '99999999'])}",
                                           "garbage", mem, "a:b:c:d"])]
        elif opt == 3:
            argv += ["--save", f"{mem}:{addr()}:{rng.choice(['1', '4'])}:" + rng.choice(
                [files["out.npy"], "/nonexistent/x.npy", files["dir"], "/proc/version",
                 "/proc/version.npy", files["out.txt"]])]
        elif opt == 4:
            param = rng.choice(["MLEN", "HBM_SIZE", "DM_SIZE", "DTCM_SIZE", "VLEN", "NOPE", "X"])
            argv += ["--hw", f"{param}={rng.choice(['0', '-1', '3', '64', '1024', '4096', 'x', str(2 ** 40), str(2 ** 62)])}"]
        elif opt == 5:
            argv += ["--as", rng.choice(["u8", "i8", "i16", "u16", "i32", "u32", "f32", "f64"])]
        else:
            argv += [rng.choice(["--regs", "--json", "--format", "--format=hex", "--nope"])]
    return argv


def case_exec(rng: random.Random, ctx: dict) -> tuple[str, str]:
    from kernelcraft.workbench.cli import main
    argv = exec_argv(rng, ctx["files"])
    ctx["case"] = json.dumps(argv)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as e:
            rc = e.code
            if isinstance(rc, str):
                err.write(rc)
                rc = 1
    text = err.getvalue()
    if "Traceback" in text or "internal error" in text or rc == 3:
        raise AssertionError(f"a traceback or an internal error was printed: {text[-300:]}")
    if rc not in (0, None) and not (text.strip() or out.getvalue().strip()):
        raise AssertionError(f"status {rc} with no message")
    return ("ok" if rc in (0, None) else f"refused (status {rc})"), json.dumps(argv)


TOOL_NAMES = ("write_code", "check_syntax", "run_eval", "view_output", "grep_docs",
              "get_inst_size", "submit", "run_rtl")


PATTERNS = [r"(.*.*)*Q", r"(\w+\s?)*$", r"(a|aa)+$", r"(x+x+)+y", r"(.*a){12}", "(?i)v_add", "[", r"\1",
            "x" * 500, "", "(((((((((((a)))))))))))", "\\", r"\p{L}+", "V_ADD", "loop", "(?=a)"]


def tool_arguments(rng: random.Random, name: str, kernels: list[str]) -> str:
    if rng.random() < 0.6:          # arguments meant for this tool, good or bad
        if name == "grep_docs":
            return json.dumps({"pattern": rng.choice(PATTERNS)})
        if name == "view_output":
            return json.dumps({"max_rows": rng.choice([1, 12, 64, 0, 65, -1, 2 ** 70, "3"])})
        if name == "run_rtl":
            return json.dumps({"version": rng.choice([1, 0, 99, -1, "1"])})
        if name == "submit":
            return json.dumps({"summary": rng.choice(["done", "", "s" * 20_000])})
    kind = rng.randrange(12)
    if kind == 0:
        return "[" * rng.choice([10, 1000, 5000]) + "]" * rng.choice([0, 10, 1000])
    if kind == 1:
        return '{"max_rows": ' + "9" * rng.choice([20, 5000]) + "}"
    if kind == 2:
        return rng.choice(["", " ", "null", "[]", "1", '"x"', "{", '{"code": ', "{'code': 1}",
                           '{"code": "\\ud800"}', '{"pattern": "\\u0000"}', "\x00"])
    if kind == 3:
        return json.dumps({"pattern": rng.choice(PATTERNS)})
    if kind == 4:
        return json.dumps({k: rng.choice([None, 1, "x", [], {}, 2 ** 70, -1, 1.5, True])
                           for k in rng.sample(["code", "pattern", "max_rows", "version",
                                                "summary", "x" * 100, ""], rng.randint(1, 4))})
    if kind == 5:
        return json.dumps({"code": "x" * rng.choice([10, 300_000])})
    if kind == 6:
        return json.dumps({"summary": "s" * rng.choice([10, 20_000])})
    # a real kernel, mutated or not, sent to write_code (then the other tools act on it)
    code = rng.choice(kernels)
    return json.dumps({"code": mutate(rng, code) if rng.random() < 0.7 else code})


def case_tools(rng: random.Random, ctx: dict) -> tuple[str, str]:
    """A tool call as a model might send it, through the workspace the loop uses; then
    its echo into the conversation (history_message)."""
    from kernelcraft.workbench.agent.loop import history_message
    from kernelcraft.workbench.agent.workspace import Workspace
    from kernelcraft.workbench.llm import Reply, ToolCall
    accel = rng.choice(ACCELS)
    ws = ctx["workspaces"].get(accel)
    if ws is None:
        task = "relu"
        ws = ctx["workspaces"][accel] = Workspace(accel, task, "C1", ctx["hw"][accel],
                                                  seeds=ctx["seeds"], n_seeds=1)
    calls = []
    for i in range(rng.randint(1, 3)):
        name = rng.choice(TOOL_NAMES + ("grep_docs",)) if rng.random() < 0.9 else rng.choice(
            ["", "x" * rng.choice([65, 1_000_000]), "run eval", "\ud800", "writeCode"])
        if rng.random() < 0.3:
            name, args = "write_code", tool_arguments(rng, "write_code", ctx["corpus"][accel])
        else:
            args = tool_arguments(rng, name, ctx["corpus"][accel])
        # run_eval and view_output are the slow ones: not every case runs them
        if name in ("run_eval", "view_output") and rng.random() < 0.7:
            name = "check_syntax"
        calls.append(ToolCall(f"c{i}", name, args))
    ctx["case"] = f"{accel}: " + json.dumps([(c.name[:80], c.arguments[:300]) for c in calls])
    outcomes = [ws.execute(c) for c in calls]
    for o in outcomes:
        if not o.text.strip():
            raise AssertionError(f"{o.name}: an empty answer")
        if len(o.text) > 100_000:
            raise AssertionError(f"{o.name}: a {len(o.text):,}-character answer")
    msg = history_message(Reply(tool_calls=calls))
    size = len(json.dumps(msg))
    if size > 2 * 600_000:
        raise AssertionError(f"the echo of the calls is {size:,} characters")
    return ("ok" if all(o.ok for o in outcomes) else "refused"), json.dumps(
        [(c.name[:80], c.arguments[:300]) for c in calls])


TARGETS = {"asm": case_asm, "exec": case_exec, "tools": case_tools}


class FixedSeeds:
    """Evaluation seeds for the tool target: fixed, so a case replays exactly."""

    def take(self, tool, config, n):
        return list(range(1, n + 1))


def context(tmp: Path) -> dict:
    import numpy as np
    from kernelcraft.workbench.accel import get_accel
    files = {"empty.asm": tmp / "empty.asm", "latin1.asm": tmp / "latin1.asm",
             "ok.npy": tmp / "ok.npy", "bad.npy": tmp / "bad.npy", "obj.npy": tmp / "obj.npy",
             "vals.txt": tmp / "vals.txt", "out.npy": tmp / "out.npy", "out.txt": tmp / "out.txt",
             "dir": tmp / "adir"}
    files["empty.asm"].write_text("")
    files["latin1.asm"].write_bytes(b"NOP ; caf\xe9\n")
    np.save(files["ok.npy"], np.arange(8, dtype=np.float32))
    files["bad.npy"].write_text("not an array")
    np.save(files["obj.npy"], np.array([{"a": 1}], dtype=object))
    files["vals.txt"].write_text("1 2 3 nan 1e400 x")
    files["dir"].mkdir(exist_ok=True)
    kernels = corpus()
    for name in ACCELS:
        files[f"{name}.asm"] = tmp / f"{name}.asm"
        files[f"{name}.asm"].write_text(kernels[name][0])
    return {"corpus": kernels, "files": {k: str(v) for k, v in files.items()},
            "hw": {n: get_accel(n).default_config() for n in ACCELS},
            "workspaces": {}, "seeds": FixedSeeds()}


def run_case(target: str, seed: int, ctx: dict, report: Report) -> None:
    rng = random.Random(f"{target}:{seed}")
    t0 = time.perf_counter()
    case = ctx["case"] = ""
    try:
        with time_limit(CASE_SECONDS[target]):
            outcome, case = TARGETS[target](rng, ctx)
    except Hang as e:
        outcome = "HANG"
        report.findings.append(Finding(target, seed, str(e), ctx["case"]))
    except BaseException as e:  # noqa: BLE001 -- every escape is a finding
        if isinstance(e, KeyboardInterrupt):
            raise
        outcome = "TRACEBACK"
        tb = traceback.format_exception(type(e), e, e.__traceback__)
        where = next((line.strip() for line in reversed(tb) if line.strip().startswith("File")), "")
        report.findings.append(Finding(target, seed, f"{type(e).__name__}: {str(e)[:300]} ({where})",
                                       ctx["case"]))
    report.note(target, outcome, time.perf_counter() - t0, seed)


def campaign(cases: int | None = None, seconds: float | None = None, seed: int = 0,
             targets: tuple[str, ...] = tuple(TARGETS), progress=None) -> Report:
    """`cases` seeds per target from `seed` on, or as many as fit in `seconds` (split
    evenly over the targets)."""
    report = Report()
    with tempfile.TemporaryDirectory(prefix="kc-fuzz-") as tmp:
        old = os.getcwd()
        os.chdir(tmp)        # exec --save of a relative path writes here
        try:
            ctx = context(Path(tmp))
            for target in targets:
                t_end = time.monotonic() + seconds / len(targets) if seconds else None
                s = seed
                while (cases is None or s < seed + cases) and (t_end is None or time.monotonic() < t_end):
                    run_case(target, s, ctx, report)
                    s += 1
                if progress:
                    progress(target, report)
        finally:
            os.chdir(old)
    return report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, help="seeds per target (default 50 unless --seconds)")
    ap.add_argument("--seconds", type=float, help="time budget of the whole campaign")
    ap.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    ap.add_argument("--target", action="append", choices=tuple(TARGETS),
                    help="only this target (repeatable; default all)")
    args = ap.parse_args(argv)
    cases = args.cases if args.cases is not None or args.seconds else 50
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    t0 = time.monotonic()

    def progress(target, report):
        print(f"{target}: {report.cases.get(target, 0)} cases, "
              f"{dict(sorted(report.outcomes.get(target, {}).items()))}, slowest "
              f"{report.slowest.get(target, (0, 0))[0]:.2f} s (seed "
              f"{report.slowest.get(target, (0, 0))[1]})", flush=True)

    report = campaign(cases, args.seconds, args.seed, tuple(args.target or TARGETS), progress)
    print(f"{sum(report.cases.values())} cases in {time.monotonic() - t0:.0f} s; "
          f"{len(report.findings)} finding(s)")
    for f in report.findings:
        print(f.format())
    return 1 if report.findings else 0


if __name__ == "__main__":
    sys.exit(main())
