"""The aie tile in the debugger, stepped bundle by bundle: the next bundle with every
slot (filled or empty), how long it waits and for what, the stall cycles so far by
cause, slot use so far and over the program; the DMA engine's channels (the transfer
each runs or waits on, its progress) and the locks; register pages of scalar, pointer,
modifier and address-generator registers, vector registers as lanes and accumulators.

The per-bundle facts come from simulators/aie/inspect.py (the model's traced run,
watched); registers and memories from the trace like every accelerator."""
from __future__ import annotations

import textwrap

import numpy as np

from kernelcraft.simulators.aie.inspect import STALLS, traced_run

from ..formats import format_cells
from .base import Line, MachineView, Page, PaneSpec, Seg

STALL_WORDS = {"data_hazard": "data", "dma_wait": "DMA wait", "dma_queue": "DMA queue",
               "bank_conflict": "bank", "dma_port": "DMA port"}
# lanes of a 64-byte vector register / 32-lane accumulator per format: (dtype, storage)
X_LANES = {"bf16": (np.uint16, "bf16"), "fp32": (np.float32, "fp32"),
           "int": (np.int16, None), "hex": (np.uint32, "int32")}
BAR = 8
LANE_WIDTH = {"bf16": 8, "fp32": 14, "int": 6, "hex": 10}      # characters per lane
ACC_WIDTH = {"bf16": 8, "fp32": 14, "int": 11, "hex": 10}


def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:.0f}%" if d else "-"


class AieView(MachineView):
    step_noun = "bundle"
    break_words = "the program's own HALT"
    register_height = 14
    unit_spaces = frozenset({"x", "acc", "g"})
    paged = True
    panes = (PaneSpec("bundle", "bundle", 14), PaneSpec("dma", "DMA", 7))

    def traced_run(self, backend, program, image, hw, budget):
        return traced_run(program, image, hw, budget)

    # ------------------------------------------------------------------ panes
    def pane(self, key: str, session, width: int) -> list[Line]:
        if key == "bundle":
            return self.bundle_lines(session, width)
        if key == "dma":
            return self.dma_lines(session)
        return super().pane(key, session, width)

    def bundle_lines(self, session, width: int = 60) -> list[Line]:
        info, tl = session.inspection, session.main
        k, step = tl.position, tl.current()
        out: list[Line] = []
        error = tl.result.error
        failed = getattr(getattr(error, "where", None), "index", -1) if step is None else -1
        if step is not None or 0 <= failed < len(session.program.bundles):
            # the next bundle, or at the end of a failed run the bundle that failed
            b = step.pc if step is not None else failed
            line = step.line if step is not None else session.program.bundles[b].line
            out.append([Seg(f"bundle {b}", "title"), Seg(f" (line {line}) ", "dim")] +
                       ([Seg("issues at cycle ", "dim"), Seg(f"{step.cycle:,}", "")] if step
                        else [Seg(f"failed: {error.kind}", "bad")]))
            ops = dict(zip(info.bundle_slots(b), session.program.bundle_ops(b)))
            for slot in info.slots:
                op = ops.get(slot)
                out.append([Seg(f"{slot:<4}", "label"),
                            Seg(op.text, "busy") if op is not None else Seg("·", "empty")])
            rec = info.records[k] if k < len(info.records) else None
            if rec is None and error is not None:
                message = getattr(error, "message", str(error))
                out += [[Seg(part, "bad")] for part in textwrap.wrap(message, max(20, width))[:2]]
            else:
                out.append([Seg("waits ", "label"), Seg(rec.waited, "warn") if rec.waited
                            else Seg("nothing: issues the cycle after the last", "good")])
        else:
            out.append([Seg("no bundle left: ", "title"), Seg(session.stop_reason, "dim")])
        done = info.stalls_before(k)
        total = sum(done.values())
        out.append([Seg("stalls so far ", "label"), Seg(f"{total:,}", "warn" if total else ""),
                    Seg(f" of {session.cycle():,} cycles:", "dim")])
        line: Line = [Seg("  ", "")]
        for name in STALLS:
            line += [Seg(f"{STALL_WORDS[name]} ", "dim"), Seg(f"{done[name]:,}  ", "")]
        out.append(line)
        # slot use: of the bundles issued so far, and of the program's bundles
        used, prog = info.slots_used_before(k), info.program_slots()
        n = len(info.code.rows) if info.code else 0
        w = max(5, *(len(x) + 1 for x in info.slots))
        out.append([Seg(f"{'slot use':<12}", "label")] + [Seg(f"{x:>{w}}", "label") for x in info.slots])
        out.append([Seg(f"{f'run ({k})':<12}", "dim")] +
                   [Seg(f"{_pct(used[x], k):>{w}}", "") for x in info.slots])
        out.append([Seg(f"{f'program ({n})':<12}", "dim")] +
                   [Seg(f"{_pct(prog[x], n):>{w}}", "") for x in info.slots])
        return out

    def dma_lines(self, session) -> list[Line]:
        info, tl = session.inspection, session.main
        k = tl.position
        prev = tl.previous()
        now = prev.cycle if prev is not None else 0
        transfers = info.dma[k - 1] if 0 < k <= len(info.dma) else ()
        out: list[Line] = [[Seg("DMA", "title"),
                            Seg(f" after bundle {k - 1}, cycle {now:,}" if prev else
                                " before the first bundle", "dim")]]
        locks = tl.registers["locks"]
        for ch in info.channels:
            mine = [t for t in transfers if t.channel == ch]
            line: Line = [Seg(f"{ch:<5}", "label")]
            if not mine:
                line.append(Seg("idle", "empty"))
            else:
                t = mine[0]
                phase, frac = t.progress(now)
                line.append(Seg(f"{t.name} {t.nbytes:,}B ", ""))
                if phase == "waiting":
                    line.append(Seg(f"waits for l{t.acq} >= {t.acq_n} (now {locks[t.acq]})", "warn"))
                elif phase == "queued":
                    line.append(Seg(f"starts at cycle {t.start:,}", "dim"))
                else:
                    fill = int(round(frac * BAR))
                    line += [Seg("█" * fill, "good"), Seg("░" * (BAR - fill), "empty"),
                             Seg(f" {frac:>4.0%}", ""),
                             Seg(f" till {t.done:,}" if phase != "done" else " done", "dim")]
                if t.rel is not None:
                    line.append(Seg(f" →l{t.rel}+{t.rel_n}", "dim"))
                if len(mine) > 1:
                    line.append(Seg(f" +{len(mine) - 1} queued", "warn"))
            out.append(line)
        used = {d[f] for d in session.program.descriptors for f in ("acq", "rel")
                if d.get(f) is not None}
        shown = [i for i, v in enumerate(locks) if v or i in used]
        line = [Seg("locks ", "label")]
        for i in shown:
            line.append(Seg(f"l{i}={locks[i]} ", "changed" if tl.touched.has("lock", i) else ""))
        rest = len(locks) - len(shown)
        line.append(Seg((f" ({rest} others 0)" if shown else f"all {rest} are 0") if rest else "",
                        "dim"))
        out.append(line)
        return out

    # ------------------------------------------------------------------ registers
    def register_pages(self, session, timeline, fmt: str, width: int) -> list[Page]:
        regs, touched = timeline.registers, timeline.touched
        return [Page("scalar", self._scalars(regs, touched, fmt, width)),
                self._lanes(timeline, "x", fmt, width), self._lanes(timeline, "acc", fmt, width)]

    def _scalars(self, regs, touched, fmt: str, width: int) -> list[Line]:
        out: list[Line] = []
        for name, per in (("r", 4), ("p", 4), ("m", 4)):
            values = regs[name]
            per = max(2, min(per, width // 18))
            for start in range(0, len(values), per):
                line: Line = []
                for i in range(start, min(len(values), start + per)):
                    v = int(values[i])
                    text = f"0x{v & 0xFFFFFFFF:08X}" if fmt == "hex" else str(v)
                    line += [Seg(f"{f'{name}{i}':>4}=", "label"),
                             Seg(f"{text:<12}", "changed" if touched.has(name, i) else "")]
                out.append(line)
        for i, g in enumerate(regs["g"]):
            line = [Seg(f"  g{i} ", "label")]
            for field, v in g.items():
                line += [Seg(f"{field}=", "dim"), Seg(f"{v} ", "changed" if touched.has("g", i) else "")]
            out.append(line)
        loops = regs["LOOPS"]
        out.append([Seg("  RM=", "label"), Seg(str(regs["RM"]), "changed" if touched.has("RM") else ""),
                    Seg("  loops ", "label"),
                    Seg(" ".join(f"[bundle {b}, {n} left]" for b, n in loops) or "none",
                        "changed" if touched.has("LOOPS") else "")])
        return out

    def _lanes(self, timeline, name: str, fmt: str, width: int) -> Page:
        """Every register of file `name` as rows of lanes, made only when shown; lanes
        have a fixed width per format so the columns stay put while stepping."""
        values = np.asarray(timeline.registers[name])
        if name == "acc":
            lanes, w = values.shape[1], ACC_WIDTH[fmt]
        else:
            lanes, w = values.shape[1] // np.dtype(X_LANES[fmt][0]).itemsize, LANE_WIDTH[fmt]
        per = max(1, (width - 6) // (w + 1))
        rows = -(-lanes // per)

        def make() -> list[Line]:
            step = timeline.previous() if timeline.touched.steps == 1 else None
            written = {ch.address: np.asarray(ch.old) for ch in (step.changes if step else ())
                       if ch.space == name}
            out: list[Line] = []
            for i in range(values.shape[0]):
                cells = _lane_cells(values[i], name, fmt)
                diff = None
                if i in written:
                    diff = [a != b for a, b in zip(_lane_cells(written[i], name, fmt), cells)]
                for start in range(0, len(cells), per):
                    label = f"{name}{i}" if start == 0 else f"[{start}]"
                    line: Line = [Seg(f"{label:>5} ", ("changed" if timeline.touched.has(name, i)
                                                       else "label") if start == 0 else "dim")]
                    for j in range(start, min(len(cells), start + per)):
                        line.append(Seg(f"{cells[j]:>{w}} ", "changed" if diff and diff[j] else ""))
                    out.append(line)
            return out
        return Page(name, block=rows, make=make, size=rows * values.shape[0])


def _lane_cells(raw: np.ndarray, name: str, fmt: str) -> list[str]:
    """Lanes of one register: a vector register's 64 bytes as 32 bf16 / 16 fp32 / 32
    int16 lanes or 16 hex words; an accumulator's 32 lanes of 32 bits as fp32 (rounded
    to bf16 for bf16), int32 or hex."""
    raw = np.ascontiguousarray(raw)
    if name == "acc":
        bits = raw.astype(np.uint32, copy=False)
        return format_cells(bits.view(np.float32), "fp32", fmt)
    dtype, storage = X_LANES[fmt]
    lanes = raw.view(np.uint8).view(dtype)
    if storage is None:
        return [str(v) for v in lanes.tolist()]
    return format_cells(lanes, storage, fmt)


VIEW = AieView
