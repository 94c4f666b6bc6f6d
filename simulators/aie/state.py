"""Architectural state of the aie functional model, and the only ways to change it.

Reads go straight to the containers (`m.r[i]`, `m.x16[i]`, `m.accf[i]`, `m.dm`...).
Every write goes through one of the write methods below, so `TracingState`
(tracing.py) can record each change and a bundle whose operations read each other's
results can defer its writes (machine.py). `access` checks a data-memory address
(range, alignment, data races with running DMA transfers) and notes its bank for the
timing model.

Storage: vector registers are one (16, 64) uint8 array with typed views (16-bit lanes
as uint16/int16, bytes as int8); accumulators a (8, 32) uint32 array viewed as int32
or float32; data memory bytes (uint8, with a uint16 view the DMA uses); external
memory 16-bit words.
"""
from __future__ import annotations

import numpy as np

from kernelcraft.simulators.core.backend import MemoryImage
from kernelcraft.simulators.core.errors import IllegalOperandError, MemoryAccessError

# Address generator fields, in GSET order, then its two counters.
G_FIELDS = ("INC", "N1", "J1", "N2", "J2")
INC, N1, J1, N2, J2, C1, C2 = range(7)
# Kinds of deferred bf16 multiply-accumulates (queue_mac), and MAC_STORE: an AST of the
# accumulator's value at that point of its queue (defer_store).
MAC_ADD, MAC_SUB, MAC_MATRIX, MAC_STORE = range(4)
_NO_STORES = (1 << 62, -(1 << 62))
WRITE_METHODS = ("set_r", "set_p", "set_m", "set_g", "set_x", "set_w", "set_acc", "set_rm",
                 "set_lock", "write_dm", "push_loop")


_U8, _U32 = np.dtype(np.uint8), np.dtype(np.uint32)


_MAC_TERMS: list = []     # semantics.vector's mac_terms and mac_terms_rows (it imports this module)


def _mac_terms() -> list:
    from .semantics.vector import mac_terms, mac_terms_rows
    _MAC_TERMS[:] = [mac_terms, mac_terms_rows]
    return _MAC_TERMS


def wrap32(v: int) -> int:
    return ((v + 0x80000000) & 0xFFFFFFFF) - 0x80000000


class AieState:
    def __init__(self, cfg, spec):
        self.cfg = cfg
        counts = {k.name: k.count for k in spec.isa.register_kinds()}
        self.r = [0] * counts["r"]
        self.p = [0] * counts["p"]
        self.m = [0] * counts["m"]
        self.g = [[0] * 7 for _ in range(counts["g"])]
        self.x = np.zeros((counts["x"], 64), dtype=np.uint8)
        self.x16 = self.x.view(np.uint16)
        self.xi16 = self.x.view(np.int16)
        self.xi8 = self.x.view(np.int8)
        self.y16 = self.x16.reshape(-1, 64)           # pairs of vector registers
        self.acc = np.zeros((counts["acc"], 32), dtype=np.uint32)
        self.acci = self.acc.view(np.int32)
        self.accf = self.acc.view(np.float32)
        self.rm = spec.state["RM"].initial
        self.locks = [0] * counts["lock"]
        self.dm = np.zeros(cfg.DM_SIZE, dtype=np.uint8)
        self.dm_size = cfg.DM_SIZE
        self.dm16 = self.dm.view(np.uint16)
        self.ext = np.zeros(cfg.EXT_SIZE, dtype=np.uint16)
        self.bank_shift = (cfg.DM_SIZE // cfg.DM_BANKS).bit_length() - 1
        self.banks: list[int] = []
        self.pending: list = []          # the DMA engine's pending transfers (race checks)
        self.dma = None
        self.loops: list[list[int]] = []  # [body start bundle, trips left]
        self.now = 0                      # issue cycle of the current bundle
        self.halted = False
        self.lock_max = spec.isa.kinds["lockval"].max
        self.shuffles = spec.shuffles
        self.tables = spec.tables
        self.descriptors: list[dict] = []
        self.descriptor_names: list[str] = []
        # bf16 multiply-accumulates wait here, per accumulator, until something else
        # touches it; then they are applied in order at once (flush_macs), which gives
        # the same bits as one at a time and is much faster. Tracing turns this off.
        self.defer_macs = True
        self.macs: list[list[int]] = [[] for _ in range(counts["acc"])]   # kinds, in order
        self.mac_a: list = [None] * counts["acc"]     # their operands (allocated on first use)
        self.mac_b: list = [None] * counts["acc"]
        self.mac_y: list = [None] * counts["acc"]
        # stores of accumulators with queued multiply-accumulates wait in the queue too
        # (their bytes land when it is applied): the addresses, per accumulator, and the
        # bytes [lo, hi) they may cover; any other access of those bytes lands them first
        self.mac_stores: list[list[int]] = [[] for _ in range(counts["acc"])]
        self.stored = list(_NO_STORES)

    # --- writes (TracingState overrides each of these) -----------------------------

    def set_r(self, i: int, v: int) -> None:
        if i:
            self.r[i] = ((v + 0x80000000) & 0xFFFFFFFF) - 0x80000000

    def set_p(self, i: int, v: int) -> None:
        self.p[i] = ((v + 0x80000000) & 0xFFFFFFFF) - 0x80000000

    def set_m(self, i: int, v: int) -> None:
        self.m[i] = ((v + 0x80000000) & 0xFFFFFFFF) - 0x80000000

    def set_g(self, i: int, values: list[int]) -> None:
        self.g[i] = list(values)

    def set_x(self, i: int, values: np.ndarray) -> None:
        """Vector register i = 64 bytes (a contiguous array of any dtype whose bytes are
        the new value)."""
        self.x[i] = values if values.dtype is _U8 else values.view(np.uint8)   # (is: a fast test; a view is right for every dtype)

    def set_w(self, i: int, values: np.ndarray) -> None:
        """Half vector register i (bytes 32*(i%2) .. of x[i//2]) = 32 bytes."""
        h = (i & 1) * 32
        self.x[i >> 1, h:h + 32] = np.ascontiguousarray(values).view(np.uint8)

    def set_acc(self, i: int, values: np.ndarray) -> None:
        """Accumulator i = 32 lanes of 32 bits (a contiguous int32, uint32 or float32 array)."""
        self.acc[i] = values if values.dtype is _U32 else values.view(np.uint32)

    def set_rm(self, v: int) -> None:
        self.rm = v

    def set_lock(self, i: int, v: int) -> None:
        self.locks[i] = v

    def write_dm(self, addr: int, data: np.ndarray) -> None:
        b = np.ascontiguousarray(data).view(np.uint8)
        self.dm[addr:addr + b.size] = b

    def push_loop(self, body: int, trips: int) -> None:
        if len(self.loops) >= self.cfg.LOOP_DEPTH:
            raise IllegalOperandError(f"hardware loops nest deeper than LOOP_DEPTH={self.cfg.LOOP_DEPTH}; "
                                      "close an inner loop first")
        self.loops.append([body, trips])

    def end_loop(self) -> int | None:
        """End of one iteration of the innermost loop: the bundle to go back to, or None
        when the loop is done (it is popped)."""
        top = self.loops[-1]
        if top[1] > 1:
            top[1] -= 1
            return top[0]
        self.loops.pop()
        return None


    # DMA writes (not core operations: never deferred)
    def dma_write(self, words: np.ndarray, values: np.ndarray) -> None:
        self.dm16[words] = values

    def ext_write(self, words: np.ndarray, values: np.ndarray) -> None:
        self.ext[words] = values

    # --- deferred multiply-accumulates ------------------------------------------------

    MAX_DEFERRED = 512

    def queue_mac(self, i: int, kind: int, a: np.ndarray, b: np.ndarray) -> None:
        """Note a bf16 multiply-accumulate into accumulator i (kind: MAC_ADD, MAC_SUB or
        MAC_MATRIX; a and b its operand lanes, copied here into per-accumulator buffers)."""
        q = self.macs[i]
        k = len(q)
        if not k and self.mac_a[i] is None:
            self.mac_buffers(i)
        self.mac_a[i][k] = a
        (self.mac_y if kind == MAC_MATRIX else self.mac_b)[i][k] = b
        q.append(kind)
        if k + 1 >= self.MAX_DEFERRED:
            self.flush_macs(i)

    def defer_store(self, i: int, a: int) -> None:
        """Note an AST of accumulator i (its queue not empty, the access checked) to
        data-memory byte a: its 128 bytes are written when the queue is applied, with
        the value the accumulator has at this point of it."""
        self.macs[i].append(MAC_STORE)
        self.mac_stores[i].append(a)
        box = self.stored
        if a < box[0]:
            box[0] = a
        if a + 128 > box[1]:
            box[1] = a + 128

    def flush_stores(self) -> None:
        """Apply the queues of every accumulator with a deferred store."""
        for i, addrs in enumerate(self.mac_stores):
            if addrs:
                self.flush_macs(i)
        self.stored[:] = _NO_STORES

    def mac_buffers(self, i: int) -> None:
        """Allocate the accumulators' operand buffers (once: they are never replaced), one
        array per operand with a row per accumulator, so a group flush of neighbouring
        accumulators reads its operands as one view."""
        if self.mac_a[i] is None:
            n, count = self.MAX_DEFERRED, len(self.macs)
            self._mac_all = (np.empty((count, n, 32), np.uint16), np.empty((count, n, 32), np.uint16),
                             np.empty((count, n, 64), np.uint16))
            for bufs, whole in zip((self.mac_a, self.mac_b, self.mac_y), self._mac_all):
                bufs[:] = list(whole)

    def flush_macs(self, i: int) -> None:
        """Apply accumulator i's deferred multiply-accumulates (and stores); and those of
        every other accumulator with the same kinds queued, in one batch (applying an
        accumulator's queue early gives the same bits: nothing else touched it since)."""
        macs = self.macs
        q = macs[i]
        if not q:
            return
        mac_terms, mac_terms_rows = _MAC_TERMS or _mac_terms()
        stored = self.mac_stores[i]
        if not stored and macs.count(q) == 1:     # (the usual case: no group, no store)
            macs[i] = []
            self.set_acc(i, mac_terms(self.accf[i], q, self.mac_a[i], self.mac_b[i], self.mac_y[i]))
            return
        group = [j for j, other in enumerate(macs) if other == q]
        for j in group:
            macs[j] = []
        g, first, last = len(group), group[0], group[-1]
        sel = slice(first, last + 1) if last - first + 1 == g else group
        whole_a, whole_b, whole_y = self._mac_all

        def terms(accs, start, end):              # the multiply-accumulates q[start:end]
            part = q[start:end]
            matrix = part.count(MAC_MATRIX)
            return mac_terms_rows(accs, part, whole_a[sel, start:end],
                                  whole_b[sel, start:end] if matrix < end - start else None,
                                  whole_y[sel, start:end] if matrix else None)
        accs = self.accf[sel]
        if not stored:
            accs = terms(accs, 0, len(q))
        else:
            stores, dm, start = [self.mac_stores[j] for j in group], self.dm, 0
            for s in range(len(stored)):
                end = q.index(MAC_STORE, start)
                if end > start:
                    accs = terms(accs, start, end)
                for j in range(g):                # the store's bytes: the value at this point
                    a = stores[j][s]
                    dm[a:a + 128] = accs[j].view(np.uint8)
                start = end + 1
            if start < len(q):
                accs = terms(accs, start, len(q))
            for j in group:
                self.mac_stores[j] = []
        if type(self) is AieState and type(sel) is slice:   # (no write method watched)
            self.accf[sel] = accs
        else:
            for j, row in zip(group, accs):
                self.set_acc(j, row)

    def flush_all_macs(self) -> None:
        for i in range(len(self.macs)):
            self.flush_macs(i)

    # --- checked accessors ------------------------------------------------------------

    def access(self, a: int, n: int, align: int, write: bool) -> int:
        """Check an access of n bytes at byte address a; return a."""
        if a < 0 or a + n > self.dm_size or a & (align - 1):
            if a < 0 or a + n > self.dm_size:
                raise MemoryAccessError(
                    f"data-memory access {a}..{a + n - 1} ({n} bytes) is outside data memory "
                    f"(0..{self.dm.size - 1}); check the pointer", memory="dm", address=a)
            raise MemoryAccessError(f"data-memory address {a} is not a multiple of {align} "
                                    f"(this operation moves {n} bytes)", memory="dm", address=a)
        if self.pending:
            self.dma.check(a, a + n - 1, write)
        if a < self.stored[1] and self.stored[0] < a + n:    # bytes a deferred store writes
            self.flush_stores()
        self.banks.append(a >> self.bank_shift)
        return a

    def post(self, i: int, pm: tuple[int, int]) -> None:
        """Post-modify pointer i: (0, step), (1, modifier number) or (2, generator number)."""
        mode, v = pm
        if mode == 0:
            if v:
                self.set_p(i, self.p[i] + v)
        elif mode == 1:
            self.set_p(i, self.p[i] + self.m[v])
        else:
            g = list(self.g[v])
            g[C1] += 1
            if g[C1] < g[N1]:
                step = g[INC]
            else:
                g[C1] = 0
                g[C2] += 1
                if g[C2] < g[N2]:
                    step = g[J1]
                else:
                    g[C2] = 0
                    step = g[J2]
            self.set_g(v, g)
            self.set_p(i, self.p[i] + step)

    # --- whole-state views ------------------------------------------------------------

    def load_image(self, image: MemoryImage) -> None:
        for memory, writes in image.writes.items():
            if memory not in ("ext", "dm"):
                raise MemoryAccessError(f"memory image names unknown memory {memory!r}; aie memories "
                                        "are ext (16-bit words) and dm (bytes)", memory=memory)
            for addr, values in writes.items():
                values = np.ascontiguousarray(np.asarray(values).ravel())
                if memory == "ext":
                    if values.dtype != np.uint16:
                        raise MemoryAccessError(
                            f"memory image for ext has dtype {values.dtype}; ext takes uint16 words "
                            "(bf16 bit patterns, convert with numerics.f32_to_bf16_bits)",
                            memory=memory, address=addr)
                    size, n = self.ext.size, values.size
                else:
                    size, n = self.dm.size, values.nbytes
                if addr < 0 or addr + n > size:
                    raise MemoryAccessError(f"memory image writes {memory} {addr}..{addr + n - 1}, "
                                            f"outside 0..{size - 1}; fix the memory image",
                                            memory=memory, address=addr)
                if memory == "ext":
                    self.ext[addr:addr + n] = values
                else:
                    self.dm[addr:addr + n] = values.view(np.uint8)

    def memories(self) -> dict[str, np.ndarray]:
        self.flush_stores()
        return {"ext": self.ext, "dm": self.dm}

    def registers(self) -> dict:
        from kernelcraft.simulators.numerics import canon
        self.flush_all_macs()
        return {"r": list(self.r), "p": list(self.p), "m": list(self.m),
                "g": [dict(zip(G_FIELDS + ("C1", "C2"), g)) for g in self.g],
                "x": self.x.copy(), "acc": self.acc.copy(),
                "acc_f32": canon(self.accf.copy()), "RM": self.rm, "locks": list(self.locks),
                "LOOPS": [list(lp) for lp in self.loops]}

    def illegal(self, message: str) -> IllegalOperandError:
        return IllegalOperandError(message)
