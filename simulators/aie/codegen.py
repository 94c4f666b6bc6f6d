"""One generated Python function per bundle: the timing model's checks and updates with
the bundle's register units and latencies written in as constants, and its operations
as direct calls of their semantics functions, one call per line.

`step(tn) -> tn'` issues the bundle at the first cycle >= tn (the next free issue
cycle) that the interlocks allow, runs its operations and returns the next free issue
cycle. It does exactly what the run loop of machine.py describes, in the same order:
  1. wait for registers read (ready), accumulate inputs (macready) and results that a
     write must not overtake -> data_hazard;
  2. an ACQ's lock -> dma_wait; room in a DMA queue -> dma_queue; `state.now` = issue;
  3. advance the DMA engine to the issue cycle; land deferred multiply-accumulates of
     accumulators the bundle touches otherwise;
  4. the operations; bank conflicts among its memory accesses -> bank_conflict;
  5. mark written units ready at issue + latency.
Stall counts add up in `stalls` (a list in STALLS order). Because each operation is on
its own line, an error's traceback line names the operation that raised it
(`failing_op`).
"""
from __future__ import annotations

from types import CodeType

from .predecode import Code, Row

FILENAME = "<aie bundle {}>"
_COMPILED: dict[tuple[int, str], CodeType] = {}     # (bundle, source) -> code; runs repeat programs
_MAX_COMPILED = 20000


def _literal(v) -> str | None:
    """Source text for an argument that is a plain constant, else None."""
    if v is None or isinstance(v, (bool, int, str)):
        return repr(v)
    if isinstance(v, tuple) and all(isinstance(x, (int, bool)) for x in v):
        return repr(v)
    return None


def _bundle_source(b: int, row: Row, ns: dict, fwd: int) -> tuple[str, dict[int, int]]:
    """(source of `def step(tn)`, generated line -> operation slot index)."""
    out = ["def step(tn):", "    t = tn"]
    for u in row.reads:
        out += [f"    x = ready[{u}]", "    if x > t: t = x"]
    for u in row.macr:
        out += [f"    x = macready[{u}]", "    if x > t: t = x"]
    for u, lat, _ in row.writes:                  # no result may overtake an older one
        out += [f"    x = ready[{u}] - {lat - 1}", "    if x > t: t = x"]
    if row.reads or row.macr or row.writes:
        out.append("    if t != tn: stalls[0] += t - tn")
    if row.ctrl:
        out.append("    st.now = t")              # an error while waiting is at this cycle
        if row.acq is not None:
            out += [f"    t2 = dma.wait_lock({row.acq[0]}, {row.acq[1]}, t)",
                    "    stalls[1] += t2 - t", "    t = t2"]
        if row.dmaq is not None:
            d, c = row.dmaq
            out += [f"    if dma.queue_full({d!r}, {c}):", f"        t2 = dma.wait_queue({d!r}, {c}, t)",
                    "        stalls[2] += t2 - t", "        t = t2"]
    out += ["    st.now = t", "    e = dma.next_event", "    if e is not None and e <= t: dma.advance(t)"]
    for i in row.flush:
        out.append(f"    if macs[{i}]: st.flush_macs({i})")
    lines = {}
    for k, (fn, target, args, op) in enumerate(row.calls):
        names = [f"f{k}", f"s{k}"]
        ns[f"f{k}"], ns[f"s{k}"] = fn, target
        for j, a in enumerate(args):
            lit = _literal(a)
            if lit is None:
                ns[f"a{k}_{j}"] = a
                lit = f"a{k}_{j}"
            names.append(lit)
        lines[len(out) + 1] = op
        out.append(f"    {names[0]}({', '.join(names[1:])})")
    extra = "0"
    if row.mem:
        if row.mem > 1:
            # the most accesses to one bank, minus one; with at most three accesses that
            # is the number of accesses minus the number of distinct banks
            count = ("len(banks) - len(set(banks))" if row.mem <= 3
                     else "max(banks.count(k) for k in banks) - 1")
            out += [f"    extra = {count} if len(banks) > 1 else 0",
                    "    if extra: stalls[3] += extra"]
            extra = "extra"
        out.append("    banks.clear()")
    written = [u for u, _, _ in row.writes]
    for u, lat, forwarded in row.writes:
        out.append(f"    ready[{u}] = t + {lat}")
        out.append(f"    macready[{u}] = t + {fwd if forwarded else lat}")
    if len(set(written)) < len(written):         # the run's horizon is max(ready) otherwise
        out.append(f"    if t + {max(l for _, l, _ in row.writes)} > horizon[0]: "
                   f"horizon[0] = t + {max(l for _, l, _ in row.writes)}")
    out.append(f"    return t + 1 + {extra}" if extra != "0" else "    return t + 1")
    return "\n".join(out) + "\n", lines


def compile_bundles(code: Code, state, dma, ready: list, macready: list, stalls: list,
                    horizon: list, fwd: int) -> tuple[list, list[dict[int, int]]]:
    """The step function of every bundle, and for each the map from its source lines to
    the slot index of the operation called there."""
    common = {"ready": ready, "macready": macready, "stalls": stalls, "horizon": horizon,
              "st": state, "dma": dma, "banks": state.banks, "macs": state.macs}
    steps, line_maps = [], []
    for b, row in enumerate(code.rows):
        ns = dict(common)
        src, lines = _bundle_source(b, row, ns, fwd)
        co = _COMPILED.get((b, src))
        if co is None:
            if len(_COMPILED) >= _MAX_COMPILED:
                _COMPILED.clear()
            co = _COMPILED[(b, src)] = compile(src, FILENAME.format(b), "exec")
        exec(co, ns)
        steps.append(ns["step"])
        line_maps.append(lines)
    return steps, line_maps


def failing_op(error: BaseException, b: int, line_maps: list[dict[int, int]]) -> int | None:
    """The slot index of the operation of bundle b whose call raised `error`, if known."""
    name = FILENAME.format(b)
    tb = error.__traceback__
    while tb is not None:
        co: CodeType = tb.tb_frame.f_code
        if co.co_filename == name:
            return line_maps[b].get(tb.tb_lineno)
        tb = tb.tb_next
    return None
