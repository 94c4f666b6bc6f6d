"""Generated Python for runs of bundles: the timing model's checks and updates with each
bundle's register units and latencies written in as constants, and its operations as
direct calls of their semantics functions, one call per line (in an untraced fast run,
the most frequent ones as the statements of inline.py, with the call as fallback).

A run is a straight-line stretch of bundles that control enters only at its first
(`blocks_of`); `step(tn) -> tn'` executes it. For each bundle, from tn (the next free
issue cycle) and exactly as the README's timing model says, in this order:
  1. wait for registers read (ready), accumulate inputs (macready) and results that a
     write must not overtake -> data_hazard;
  2. an ACQ's lock -> dma_wait; room in a DMA queue -> dma_queue (control bundles set
     `state.now`, the issue cycle, which their operations read); the data-memory ports
     of its first accesses, while DMA beats hold them -> dma_port (ports.py);
  3. advance the DMA engine to the issue cycle; land deferred multiply-accumulates of
     accumulators the bundle touches otherwise (not those of an accumulator only an
     AST touches: inline.py's statements may queue its store behind them);
  4. the operations; bank conflicts among its memory accesses -> bank_conflict;
  5. mark written units ready at issue + latency (held later accesses hold the
     scoreboard: dma_port); tn = issue + 1 + conflict and held cycles.
Stall counts add up in `stalls` (a list in machine.STALLS order). Each operation is
called on its own line, so the traceback of an error names its bundle and operation
and holds its issue cycle (`Compiler.failing`).
"""
from __future__ import annotations

from . import lanes
from .inline import Writer
from .predecode import Code, Row, deferring

FILENAME = "<aie bundle {}>"


def _literal(v) -> str | None:
    """Source text for an argument that is a plain constant, else None."""
    if v is None or isinstance(v, (bool, int, str)):
        return repr(v)
    if isinstance(v, tuple) and all(isinstance(x, (int, bool)) for x in v):
        return repr(v)
    return None


def _bundle_lines(b: int, row: Row, ns: dict, fwd: int, out: list[str], lines: dict,
                  mac_units: set, now: bool, pos: int, known: dict, timing_only: bool = False,
                  inline=None) -> None:
    """Append the statements of bundle b (from `tn`, the next free issue cycle, to the
    new `tn`) to `out`; note in `lines` which line calls which operation. `macready` is
    kept only for units some bundle reads as a multiply-accumulate input; `state.now`
    is set for control operations (or for every bundle if `now`).

    b is the run's bundle number `pos` (from 0). `known[u] = (position, latency,
    accumulate latency)` of the last earlier bundle of the run that wrote unit u: it
    issued at least (pos - position) cycles before this one, so a check that its
    result is ready is left out when it cannot fail. With `inline` (an inline.Writer for
    the run's state), operations it has statements for are written as those statements."""
    def gap(u, which):                 # cycles after this bundle's issue the unit is ready, at most
        if u not in known:
            return None
        at, lat, mac = known[u]
        return (lat if which == "ready" else mac) - (pos - at)

    out.append("    t = tn")
    checks = 0
    for u in row.reads:
        g = gap(u, "ready")
        if g is None or g > 0:
            out += [f"    x = ready[{u}]", "    if x > t: t = x"]
            checks += 1
    for u in row.macr:
        g = gap(u, "mac")
        if g is None or g > 0:
            out += [f"    x = macready[{u}]", "    if x > t: t = x"]
            checks += 1
    for u, lat, _ in row.writes:       # no result may overtake an older one
        if u in row.reads:             # (implied by waiting until it is ready)
            continue
        g = gap(u, "ready")
        if g is None or g - lat + 1 > 0:
            out += [f"    x = ready[{u}] - {lat - 1}", "    if x > t: t = x"]
            checks += 1
    if checks:
        out.append("    if t != tn: stalls[0] += t - tn")
    if row.ctrl:
        out.append("    st.now = t")
        # a deadlock raised by the wait names the operation waiting (its slot), as the RTL does
        if row.acq is not None:
            lines[len(out) + 1] = (b, row.waits)
            out += [f"    t2 = dma.wait_lock({row.acq[0]}, {row.acq[1]}, t)",
                    "    stalls[1] += t2 - t", "    t = t2"]
        if row.dmaq is not None:
            d, c = row.dmaq
            lines[len(out) + 2] = (b, row.waits)
            out += [f"    if dma.queue_full({d!r}, {c}):", f"        t2 = dma.wait_queue({d!r}, {c}, t)",
                    "        stalls[2] += t2 - t", "        t = t2"]
    held = bool(row.acc) and not timing_only      # (fast-forwarded loops run without DMA beats)
    if held:
        out += ["    holds = ()", "    if ports.until >= t:",
                f"        t2, holds = ports.core_wait(st, {row.acc!r}, t)",
                "        stalls[4] += t2 - t", "        t = t2"]
    if row.ctrl or now:
        out.append("    st.now = t")
    out += ["    e = dma.next_event", "    if e is not None and e <= t: dma.advance(t)"]
    # an AST of an accumulator no other operation of the bundle touches may defer its
    # store behind the accumulator's queue (inline.py): that queue is left
    defer = {}
    if inline is not None and not timing_only:
        for fn, deferred, args, op in row.calls:
            s = None if deferred or op is None else inline.deferrable_store(fn, args)
            if s is not None and not any(("acc", s) in r + w for j, (r, w) in enumerate(row.units)
                                         if j != op):
                defer[op] = s
    for i in row.flush:
        if i not in defer.values():
            out.append(f"    if macs[{i}]: st.flush_macs({i})")
    for k, (fn, deferred, args, op) in enumerate(() if timing_only else row.calls):
        f = f"f{b}_{k}"
        ns[f] = fn
        names = ["sd" if deferred else "st"]
        for j, a in enumerate(args):
            lit = _literal(a)
            if lit is None:
                lit = f"a{b}_{k}_{j}"
                ns[lit] = a
            names.append(lit)
        call = f"{f}({', '.join(names)})"
        stmts = None if deferred or inline is None else inline.statements(fn, args, call, op in defer)
        for text in stmts or (call,):
            lines[len(out) + 1] = (b, op)
            out.append(f"    {text}")
    extra = ""
    if row.mem and timing_only:        # the caller knows each iteration's bank conflicts
        if row.mem > 1:
            out += [f"    extra = E[{pos}][i]", "    if extra: stalls[3] += extra"]
            extra = " + extra"
    elif row.mem:
        if row.mem > 1:
            # the most accesses to one bank, minus one (every memory operation that
            # returned noted one bank); with two or three accesses that is the number of
            # accesses minus the number of distinct banks
            count = {2: "int(banks[0] == banks[1])", 3: "3 - len(set(banks))"}.get(
                row.mem, "max(banks.count(k) for k in banks) - 1")
            out += [f"    extra = {count}", "    if extra: stalls[3] += extra"]
            extra = " + extra"
        out.append("    banks.clear()")
    written = [u for u, _, _ in row.writes]
    for u, lat, forwarded in row.writes:
        out.append(f"    ready[{u}] = t + {lat}")
        if u in mac_units:
            out.append(f"    macready[{u}] = t + {fwd if forwarded else lat}")
        known[u] = (pos, lat, fwd if forwarded else lat)
    if len(set(written)) < len(written):         # the run's horizon is max(ready) otherwise
        top = max(lat for _, lat, _ in row.writes)
        out.append(f"    if t + {top} > horizon[0]: horizon[0] = t + {top}")
    if held:                  # later accesses held by DMA beats: the scoreboard holds too
        out += ["    if holds:", "        stalls[4] += len(holds)",
                "        ports.freeze(holds, ready, macready, horizon)"]
        extra += " + len(holds)"
    out.append(f"    tn = t + 1{extra}")


def block_source(code: Code, first: int, last: int, ns: dict, fwd: int, mac_units: set,
                 now: bool = False, timing_only: bool = False, inline=None) -> tuple[str, dict]:
    """(source of `def step(tn)` running bundles first..last in order, generated line ->
    (bundle, slot index of the operation called there, or None)). The function leaves
    the last bundle's issue cycle in `state.now`; an error inside it has the failing
    bundle's issue cycle in the local `t`. With `timing_only`, `step(tn, i, E)` only
    keeps time: no operations; the bank conflicts of the run's bundle number pos (from
    0) with several memory operations are E[pos][i]."""
    out, lines = ["def step(tn, i, E):" if timing_only else "def step(tn):"], {}
    start = len(out) + 1
    known: dict = {}
    for b in range(first, last + 1):
        _bundle_lines(b, code.rows[b], ns, fwd, out, lines, mac_units, now, b - first, known,
                      timing_only, inline)
        for n in range(start, len(out) + 1):
            lines.setdefault(n, (b, None))
        start = len(out) + 1
    out += ["    st.now = t", "    return tn"]
    return "\n".join(out) + "\n", lines


def blocks_of(code: Code) -> list[tuple[int, int]]:
    """Straight-line runs of bundles (first, last): control enters a run only at its first
    bundle (the program's start, a loop body's start, the bundle after a loop end or a
    HALT) and leaves it only after its last."""
    nb = len(code.rows)
    lead = [False] * (nb + 1)
    lead[0] = lead[nb] = True
    for b, row in enumerate(code.rows):
        if row.ends or row.halt or row.loop:
            lead[b + 1] = True                 # after a loop end or HALT; after LOOP: its body
    out, first = [], 0
    for b in range(1, nb + 1):
        if lead[b]:
            out.append((first, b - 1))
            first = b
    return out


class Compiler:
    """Compiles runs of bundles of a Code for one run, sharing the run's scoreboard. The
    generated code is cached on the Code (a program's runs share it)."""

    def __init__(self, code: Code, state, dma, ready: list, macready: list, stalls: list,
                 horizon: list, fwd: int, now: bool = False, inline: bool = False):
        self.code, self.fwd, self.now = code, fwd, now
        self.common = {"ready": ready, "macready": macready, "stalls": stalls, "horizon": horizon,
                       "st": state, "dma": dma, "banks": state.banks, "macs": state.macs,
                       "ports": dma.ports}
        # operations as statements (inline.py): their source depends on the state's
        # sizes, whether it defers multiply-accumulates and whether lanes.c is there,
        # so those are in the key
        self.inline = Writer(state, lanes.module()) if inline else None
        self.variant = self.inline.key() if inline else None
        if inline:
            self.common.update(self.inline.namespace())
        if any(deferred for row in code.rows for _, deferred, _, _ in row.calls):
            self.common["sd"] = deferring(state)
        self.lines: dict[str, dict] = {}             # generated file name -> its line map

    def compile(self, first: int, last: int, timing_only: bool = False):
        """The step function of bundles first..last."""
        key = (first, last, self.now, self.fwd, timing_only, self.variant)
        made = self.code.compiled.get(key)
        if made is None:
            consts: dict = {}
            mac_units = {u for row in self.code.rows for u in row.macr}
            src, lines = block_source(self.code, first, last, consts, self.fwd, mac_units, self.now,
                                      timing_only, self.inline)
            name = FILENAME.format(f"{first}..{last}" if last > first else first)
            made = self.code.compiled[key] = (compile(src, name, "exec"), name, lines, consts)
        co, name, lines, consts = made
        ns = {**self.common, **consts}
        exec(co, ns)
        self.lines[name] = lines
        return ns["step"]

    def failing(self, error: BaseException) -> tuple[int, int | None, int] | None:
        """(bundle, slot index of its operation or None, issue cycle) where `error` was
        raised inside generated code, or None if it was not."""
        tb = error.__traceback__
        while tb is not None:
            lines = self.lines.get(tb.tb_frame.f_code.co_filename)
            if lines is not None and tb.tb_lineno in lines:
                b, op = lines[tb.tb_lineno]
                return b, op, tb.tb_frame.f_locals.get("t", 0)
            tb = tb.tb_next
        return None
