"""Shared template of the attention tasks: scaled_dot_product, flash_attention, mha, gqa, mqa.

Output columns go a VLEN chunk at a time; the query heads whose D columns lie in the
chunk are computed together, VLEN query rows (one query block) at a time. The keys and
values of a head come into Matrix SRAM as MLEN x MLEN tiles of MLEN keys straight from
the k/v tensors (STRIDE = Hkv*D): key/value head g is never copied, and every query
head of its group reads the same tiles (gqa, mqa). Tiles stay resident while the next
chunk's heads use them.

Heads narrower than VLEN (D = 16, 32) share a chunk. A K tile starts at head g's first
column, so a query row is shifted down to column 0 (V_SHFT_V) and masked to its D
columns; a V tile starts oq columns before head g (oq = the query head's column in its
output chunk), so P @ V lands where the output goes, and a 0/1 head mask keeps those
D columns. Columns outside a head multiply zeros (guard rows or neighbouring data).

Per query row, with q scaled by 1/sqrt(D) and rounded to bf16 first:
- strategy "rows": all live scores of the row (bf16, MV_ACC rounded once per MLEN keys),
  fp32 maximum and sum, e = bf16(exp(s - max)), P @ V accumulated in fp32 over all key
  chunks and rounded once, times 1/sum. Every K and V tile of the group is resident.
- strategy "online" (flash attention): key blocks of MLEN keys, per row a running maximum
  and sum in FP_MEM (fp32), alpha = exp(m_old - m_new), acc = bf16(bf16(acc * alpha) +
  bf16(e @ V_block)); only one block's K and V tiles are resident (two with `ahead`,
  which fetches the next block's while this one is computed).
`ahead = 1` also double-buffers the q and out blocks: the next query block's q is in
flight while this one is computed, and its outputs leave while the next is computed.
Causal tasks skip key blocks above the diagonal and add a 0/-inf mask row (a window of
an FP_MEM pattern) on the diagonal block. A position bias (T5's decoder block) is added
to each bf16 score chunk before the mask (strategy "rows"), its rows fetched per query
block and head.
"""
from __future__ import annotations

from dataclasses import dataclass

from .asm import Asm
from .consttile import Patterns, ones
from .template import Ctx, Template

SCR, QS, SC, KT, VT, PV, OUT, MSK, MROW, HOFF = (f"gp{i}" for i in range(1, 11))
ACC, FPP = "gp14", "gp15"           # online strategy: accumulator row, FP_MEM state pointer
ROWL, CHL, XFER = "gp11", "gp12", "gp13"
F_SCALE, F_NEG, F_M, F_SUM, F_R, F_A, F_NEW = "f1", "f2", "f3", "f4", "f5", "f6", "f7"


@dataclass(frozen=True)
class Io:
    """HBM addresses of one attention (bias [Hq, S, S] optional) and the name of the
    task constant that scales q."""
    q: int
    k: int
    v: int
    o: int
    bias: int | None = None
    scale: str = "scale"


def task_io(ctx: Ctx) -> Io:
    return Io(ctx.addr("q"), ctx.addr("k"), ctx.addr("v"), ctx.addr("o"))


@dataclass(frozen=True)
class Geo:
    s: int
    hq: int
    hkv: int
    dh: int
    causal: bool
    vlen: int
    tile: int
    bias: bool = False

    @property
    def wq(self) -> int:
        return self.hq * self.dh

    @property
    def wkv(self) -> int:
        return self.hkv * self.dh

    @property
    def blocks(self) -> int:
        return self.s // self.vlen

    @property
    def out_chunks(self) -> int:
        return -(-self.wq // self.vlen)

    def heads(self, cq: int) -> list[int]:
        return [h for h in range(self.hq) if (h * self.dh) // self.vlen == cq]

    def group(self, h: int) -> int:
        return h // (self.hq // self.hkv)

    def oq(self, h: int) -> int:
        return (h * self.dh) % self.vlen

    def live(self, qb: int) -> int:
        return qb + 1 if self.causal else self.blocks


def task_geo(ctx: Ctx) -> Geo:
    d = ctx.dims
    return Geo(d["S"], d["Hq"], d["Hkv"], d["D"], ctx.task.causal, ctx.hw.VLEN, ctx.hw.MLEN * ctx.hw.MLEN)


# Vector SRAM rows (in units of VLEN): q block, out block, qs block, acc block, then single rows.
def _rows(g: Geo) -> dict[str, int]:
    b = g.vlen                          # a query block has VLEN rows, a key block VLEN keys
    r = {"q": 0, "q2": b, "out": 2 * b, "out2": 3 * b, "qs": 4 * b, "acc": 5 * b, "sc": 6 * b}
    r["pv"] = r["sc"] + g.blocks
    r["mrow"] = r["pv"] + 1
    r["tmp"] = r["mrow"] + 1
    r["hmask"] = r["tmp"] + 1            # row hmask + o // D: ones at columns o .. o + D - 1
    r["bias"] = r["hmask"] + g.vlen // g.dh   # key chunk c of query row r at bias + c*VLEN + r
    r["end"] = r["bias"] + (g.blocks * g.vlen if g.bias else 0)
    return r


def _tiles_needed(g: Geo, cq: int) -> list[tuple]:
    keys = []
    for h in g.heads(cq):
        for key in (("k", g.group(h), 0), ("v", g.group(h), g.oq(h))):
            if key not in keys:
                keys.append(key)
    return keys


def check(ctx: Ctx, p: dict, g: Geo | None = None) -> str | None:
    hw, g = ctx.hw, g or task_geo(ctx)
    if p["strategy"] not in ("rows", "online"):
        return f"strategy={p['strategy']!r} must be 'rows' or 'online'"
    if p["ahead"] not in (0, 1):
        return f"ahead={p['ahead']!r} must be 0 or 1"
    if hw.VLEN != hw.MLEN:
        return f"needs VLEN == MLEN (VLEN={hw.VLEN}, MLEN={hw.MLEN})"
    if g.vlen % g.dh or g.s % g.vlen:
        return f"D={g.dh} must divide VLEN={g.vlen} and S={g.s} must be a multiple of it"
    if g.vlen % hw.HBM_V_PREFETCH_AMOUNT or g.vlen % hw.HBM_V_WRITEBACK_AMOUNT:
        return f"query blocks of VLEN={g.vlen} rows must be whole transfers"
    if _rows(g)["end"] > hw.VSRAM_ROWS:
        return f"needs {_rows(g)['end']} Vector SRAM rows; VSRAM_ROWS={hw.VSRAM_ROWS}"
    if g.bias and p["strategy"] != "rows":
        return "a position bias needs strategy 'rows'"
    if p["strategy"] == "rows":
        most = max(len(_tiles_needed(g, cq)) for cq in range(g.out_chunks)) * g.blocks
        if most > hw.MSRAM_TILES:
            return (f"strategy 'rows' keeps every key/value tile of a chunk's heads resident: {most} "
                    f"tiles, MSRAM_TILES={hw.MSRAM_TILES}; use strategy 'online'")
    elif 2 * (1 + p["ahead"]) > hw.MSRAM_TILES:
        return f"strategy 'online' needs {2 * (1 + p['ahead'])} tiles per head; MSRAM_TILES={hw.MSRAM_TILES}"
    if len(ctx.layout.constants) + 6 * g.vlen + g.dh > hw.FP_MEM_SIZE:
        return f"masks and row statistics need more than FP_MEM_SIZE={hw.FP_MEM_SIZE} entries"
    return None


class Kernel:
    def __init__(self, ctx: Ctx, a: Asm, p: dict, io: Io | None = None, g: Geo | None = None):
        self.ctx, self.a, self.p = ctx, a, p
        self.io, self.g = io or task_io(ctx), g or task_geo(ctx)
        self.vlen = self.g.vlen
        self.r = {k: v * self.vlen for k, v in _rows(self.g).items()}
        self.stride_now = None

    # ---- set-up --------------------------------------------------------------------
    def constants(self) -> None:
        a, g, ctx = self.a, self.g, self.ctx
        a(f"S_LD_FP {F_SCALE}, gp0, {ctx.const(self.io.scale)}", f"scale q by {self.io.scale}")
        a(f"S_LD_FP {F_NEG}, gp0, {ctx.const('neg_max')}", "lowest fp32")
        ones(a, F_R)
        pat = Patterns(a, ctx, SCR)
        vlen = self.vlen
        # causal: zeros(VLEN) | neg x VLEN-1: the window at VLEN-1-r is 0 for j <= r, -inf above
        self.causal_base = pat.pattern(2 * vlen, {vlen + i: F_NEG for i in range(vlen - 1)}) \
            if g.causal else 0
        if g.dh < vlen:
            # zeros(VLEN) | ones(D) | zeros(VLEN): the window at VLEN - o has ones at o .. o+D-1
            heads = pat.pattern(2 * vlen + g.dh, {vlen + i: F_R for i in range(g.dh)})
            for o in range(0, vlen, g.dh):
                a.li(MROW, self.hmask(o))
                pat.row(MROW, heads + vlen - o)
        self.state = pat.next                   # online: m at state + r, sum at state + VLEN + r
        a.set_hbm_base("a0", self.io.q, SCR)
        a.set_hbm_base("a3", self.io.o, SCR)

    def stride(self, n: int) -> None:
        if self.stride_now != n:
            self.a.li(SCR, n)
            self.a(f"C_SET_STRIDE_REG {SCR}", f"STRIDE = {n}")
            self.stride_now = n

    def hmask(self, o: int) -> int:
        """Vector SRAM address of the head mask with ones at columns o .. o + D - 1."""
        return self.r["hmask"] + (o // self.g.dh) * self.vlen

    def tile_bases(self, key: tuple) -> None:
        """a1 = k or v + the column where this tile set starts."""
        kind, grp, o = key
        col = grp * self.g.dh - o
        self.a.set_hbm_base("a1", getattr(self.io, kind) + col, SCR)

    def load_tiles(self, key: tuple, slot: int, first: int, count: int) -> None:
        """Key blocks first .. first+count-1 of a tile set into slots slot.."""
        a, g = self.a, self.g
        self.tile_bases(key)
        self.stride(g.wkv)
        a.li(KT, slot * g.tile)
        a.li(HOFF, first * self.vlen * g.wkv)
        with a.loop(XFER, count, f"{key[0]} tiles of head {key[1]}"):
            a(f"H_PREFETCH_M {KT}, {HOFF}, a1, 1, 0")
            a(f"S_ADDI_INT {KT}, {KT}, {g.tile}")
            a.addi(HOFF, HOFF, self.vlen * g.wkv, scratch=SCR)

    def block_io(self, qb: int, cq: int, store: bool) -> None:
        """Query block qb (VLEN rows) of chunk cq: q into the q block, or the out block to o."""
        a, g = self.a, self.g
        self.stride(g.wq)
        n = self.ctx.hw.HBM_V_WRITEBACK_AMOUNT if store else self.ctx.hw.HBM_V_PREFETCH_AMOUNT
        a.li(PV, self.obuf if store else self.qbuf)
        a.li(HOFF, qb * self.vlen * g.wq + cq * self.vlen)
        op = "H_STORE_V {}, {}, a3, 1, 0" if store else "H_PREFETCH_V {}, {}, a0, 1, 0"
        with a.loop(XFER, self.vlen // n, "store the out block" if store else "fetch the q block"):
            a(op.format(PV, HOFF))
            a(f"S_ADDI_INT {PV}, {PV}, {n * self.vlen}")
            a.addi(HOFF, HOFF, n * g.wq, scratch=SCR)

    def prepare_q(self, h: int) -> None:
        """qs rows = bf16(q * scale) of head h, moved to column 0 and masked to D columns."""
        a, g = self.a, self.g
        a.li(PV, self.qbuf)
        a.li(QS, self.r["qs"])
        if g.dh < self.vlen:
            a.li(MSK, g.oq(h))
            a.li(MROW, self.hmask(0))
        with a.loop(ROWL, self.vlen, f"q of head {h}: scaled, at column 0"):
            a(f"V_MUL_VF {QS}, {PV}, {F_SCALE}, 0")
            if g.dh < self.vlen:
                if g.oq(h):
                    a(f"V_SHFT_V {QS}, {QS}, {MSK}")
                a(f"V_MUL_VV {QS}, {QS}, {MROW}, 0")
            a(f"S_ADDI_INT {PV}, {PV}, {self.vlen}")
            a(f"S_ADDI_INT {QS}, {QS}, {self.vlen}")

    def finish_row(self, src: str, h: int, first: bool) -> None:
        """out row OUT (+)= bf16(src * F_R) masked to head h's columns."""
        a, g = self.a, self.g
        if g.dh == self.vlen:
            a(f"V_MUL_VF {OUT}, {src}, {F_R}, 0", "normalise")
            return
        a(f"V_MUL_VF {src}, {src}, {F_R}, 0", "normalise")
        a.li(SCR, self.hmask(g.oq(h)))
        if first:
            a(f"V_MUL_VV {OUT}, {src}, {SCR}, 0", "this head's columns")
        else:
            a(f"V_MUL_VV {src}, {src}, {SCR}, 0", "this head's columns")
            a(f"V_ADD_VV {OUT}, {OUT}, {src}, 0")

    # ---- strategy "rows" -------------------------------------------------------------
    def rows_head(self, qb: int, h: int, first: bool, slots: dict) -> None:
        a, g, vlen = self.a, self.g, self.vlen
        live = g.live(qb)
        kslot, vslot = slots[("k", g.group(h), 0)], slots[("v", g.group(h), g.oq(h))]
        if g.bias:
            self.load_bias(qb, h, live)
            a.li(FPP, self.r["bias"])
        a.li(QS, self.r["qs"])
        a.li(OUT, self.obuf)
        a.li(PV, self.r["pv"])
        if g.causal:
            a.li(MSK, self.causal_base + vlen - 1)
            a.li(MROW, self.r["mrow"])
        with a.loop(ROWL, vlen, f"query rows of head {h}"):
            a.li(KT, kslot * g.tile)
            a.li(SC, self.r["sc"])
            a(f"S_ADD_FP {F_M}, {F_NEG}, f0", "running max = lowest")
            plain = live - 1 if g.causal else live

            if g.bias:
                a(f"S_ADDI_INT {ACC}, {FPP}, 0")

            def score():
                a(f"M_TMV gp0, {KT}, {QS}")
                a(f"M_MV_WO {SC}, 0", "a key block of scores, bf16")
                if g.bias:
                    a(f"V_ADD_VV {SC}, {SC}, {ACC}, 0", "+ position bias")
                    a.addi(ACC, ACC, vlen * vlen, scratch=SCR)
            if plain:
                with a.loop(CHL, plain, "key chunks"):
                    score()
                    a(f"V_RED_MAX {F_M}, {SC}, 0")
                    a(f"S_ADDI_INT {KT}, {KT}, {g.tile}")
                    a(f"S_ADDI_INT {SC}, {SC}, {vlen}")
            if g.causal:
                score()
                a(f"S_MAP_V_FP {MROW}, {MSK}, 0", "causal mask of this row")
                a(f"V_ADD_VV {SC}, {SC}, {MROW}, 0")
                a(f"V_RED_MAX {F_M}, {SC}, 0")
                a(f"S_ADDI_INT {MSK}, {MSK}, -1")
            a.li(SC, self.r["sc"])
            a.li(VT, vslot * g.tile)
            a(f"S_ADD_FP {F_SUM}, f0, f0")
            with a.loop(CHL, live, "exp, sum and P @ V"):
                a(f"V_SUB_VF {SC}, {SC}, {F_M}, 0, 0")
                a(f"V_EXP_V {SC}, {SC}, 0")
                a(f"V_RED_SUM {F_SUM}, {SC}")
                a(f"M_MV gp0, {VT}, {SC}")
                a(f"S_ADDI_INT {VT}, {VT}, {g.tile}")
                a(f"S_ADDI_INT {SC}, {SC}, {vlen}")
            a(f"M_MV_WO {PV}, 0", "P @ V, bf16")
            a(f"S_RECI_FP {F_R}, {F_SUM}")
            self.finish_row(PV, h, first)
            a(f"S_ADDI_INT {QS}, {QS}, {vlen}")
            a(f"S_ADDI_INT {OUT}, {OUT}, {vlen}")
            if g.bias:
                a(f"S_ADDI_INT {FPP}, {FPP}, {vlen}")

    def load_bias(self, qb: int, h: int, live: int) -> None:
        """bias[h, query block qb, key chunks 0..live-1] into the bias rows."""
        a, g, vlen = self.a, self.g, self.vlen
        n = self.ctx.hw.HBM_V_PREFETCH_AMOUNT
        a.set_hbm_base("a2", self.io.bias + h * g.s * g.s + qb * vlen * g.s, SCR)
        self.stride(g.s)
        for c in range(live):
            a.li(PV, self.r["bias"] + c * vlen * vlen)
            a.li(HOFF, c * vlen)
            with a.loop(XFER, vlen // n, f"bias of head {h}, key chunk {c}"):
                a(f"H_PREFETCH_V {PV}, {HOFF}, a2, 1, 0")
                a(f"S_ADDI_INT {PV}, {PV}, {n * vlen}")
                a.addi(HOFF, HOFF, n * g.s, scratch=SCR)

    # ---- strategy "online" -----------------------------------------------------------
    def online_rows(self, diag: bool) -> None:
        """One key block (tiles at KT, VT) for the rows of the query block."""
        a, vlen = self.a, self.vlen
        a.li(QS, self.r["qs"])
        a.li(ACC, self.r["acc"])
        a.li(FPP, self.state)
        if diag:
            a.li(MSK, self.causal_base + vlen - 1)
        with a.loop(ROWL, vlen, "query rows" + (" (diagonal block)" if diag else "")):
            a(f"M_TMV gp0, {KT}, {QS}")
            a(f"M_MV_WO {SC}, 0", "a key block of scores, bf16")
            if diag:
                a(f"S_MAP_V_FP {MROW}, {MSK}, 0", "causal mask of this row")
                a(f"V_ADD_VV {SC}, {SC}, {MROW}, 0")
                a(f"S_ADDI_INT {MSK}, {MSK}, -1")
            a(f"S_LD_FP {F_M}, {FPP}, 0", "m_old")
            a(f"S_ADD_FP {F_NEW}, {F_M}, f0")
            a(f"V_RED_MAX {F_NEW}, {SC}, 0", "m_new")
            a(f"S_SUB_FP {F_A}, {F_M}, {F_NEW}")
            a(f"S_EXP_FP {F_A}, {F_A}", "alpha = exp(m_old - m_new)")
            a(f"S_ST_FP {F_NEW}, {FPP}, 0")
            a(f"V_SUB_VF {SC}, {SC}, {F_NEW}, 0, 0")
            a(f"V_EXP_V {SC}, {SC}, 0")
            a(f"S_LD_FP {F_SUM}, {FPP}, {vlen}")
            a(f"S_MUL_FP {F_SUM}, {F_SUM}, {F_A}")
            a(f"V_RED_SUM {F_SUM}, {SC}", "sum = sum * alpha + sum(e)")
            a(f"S_ST_FP {F_SUM}, {FPP}, {vlen}")
            a(f"M_MV gp0, {VT}, {SC}")
            a(f"M_MV_WO {PV}, 0", "e @ V_block, bf16")
            a(f"V_MUL_VF {ACC}, {ACC}, {F_A}, 0", "acc * alpha (0 on the first block)")
            a(f"V_ADD_VV {ACC}, {ACC}, {PV}, 0")
            a(f"S_ADDI_INT {QS}, {QS}, {vlen}")
            a(f"S_ADDI_INT {ACC}, {ACC}, {vlen}")
            a(f"S_ADDI_INT {FPP}, {FPP}, 1")

    def online_head(self, qb: int, h: int, first: bool) -> None:
        a, g, vlen = self.a, self.g, self.vlen
        live = g.live(qb)
        kkey, vkey = ("k", g.group(h), 0), ("v", g.group(h), g.oq(h))
        a.li(FPP, self.state)
        with a.loop(ROWL, vlen, "row statistics: max = lowest, sum = 0"):
            a(f"S_ST_FP {F_NEG}, {FPP}, 0")
            a(f"S_ST_FP f0, {FPP}, {vlen}")
            a(f"S_ADDI_INT {FPP}, {FPP}, 1")
        a.li(SC, self.r["sc"])
        a.li(PV, self.r["pv"])
        a.li(MROW, self.r["mrow"])
        pairs = 2 if self.p["ahead"] else 1
        # tiles: pair i at slots 2i (K), 2i+1 (V); the k and v sets use HBM bases a1 and a2
        self.tile_bases(kkey)
        a.set_hbm_base("a2", self.io.v + vkey[1] * g.dh - vkey[2], SCR)
        self.stride(g.wkv)

        def fetch(pair_reg: str, off_reg: str) -> None:
            a(f"H_PREFETCH_M {pair_reg}, {off_reg}, a1, 1, 0")
            a(f"S_ADDI_INT {SCR}, {pair_reg}, {g.tile}")
            a(f"H_PREFETCH_M {SCR}, {off_reg}, a2, 1, 0")

        a(f"S_ADDI_INT {KT}, gp0, 0")
        a(f"S_ADDI_INT {HOFF}, gp0, 0")
        fetch(KT, HOFF)

        def block(diag: bool, more: bool) -> None:
            if more and pairs == 2:
                a.li(SCR, 2 * g.tile)
                a(f"S_SUB_INT {VT}, {SCR}, {KT}", "the other pair")
                a.addi(HOFF, HOFF, self.vlen * g.wkv, scratch=SCR)
                fetch(VT, HOFF)
            a(f"S_ADDI_INT {VT}, {KT}, {g.tile}")
            self.online_rows(diag)
            if more:
                if pairs == 2:
                    a.li(SCR, 2 * g.tile)
                    a(f"S_SUB_INT {KT}, {SCR}, {KT}")
                else:
                    a.addi(HOFF, HOFF, self.vlen * g.wkv, scratch=SCR)
                    fetch(KT, HOFF)
        if live > 1:
            with a.loop(CHL, live - 1, "key blocks"):
                block(False, True)
        block(g.causal, False)
        a.li(ACC, self.r["acc"])
        a.li(OUT, self.obuf)
        a.li(FPP, self.state)
        with a.loop(ROWL, vlen, f"normalise head {h}"):
            a(f"S_LD_FP {F_SUM}, {FPP}, {vlen}")
            a(f"S_RECI_FP {F_R}, {F_SUM}")
            self.finish_row(ACC, h, first)
            a(f"S_ADDI_INT {ACC}, {ACC}, {vlen}")
            a(f"S_ADDI_INT {OUT}, {OUT}, {vlen}")
            a(f"S_ADDI_INT {FPP}, {FPP}, 1")

    # ---- whole kernel ------------------------------------------------------------------
    def buffers(self, n: int) -> tuple[int, int]:
        """(q buffer, out buffer) of the n-th block; ahead alternates two pairs."""
        if self.p["ahead"] and n % 2:
            return self.r["q2"], self.r["out2"]
        return self.r["q"], self.r["out"]

    def fetch_q(self, n: int) -> None:
        g = self.g
        self.qbuf = self.buffers(n)[0]
        self.block_io(n % g.blocks, n // g.blocks, store=False)

    def run(self) -> None:
        """Blocks n = (chunk cq, query block qb) in order. A block's q is fetched first (or,
        with ahead, was fetched during the block before), then the chunk's K/V tiles that
        are not resident, then (ahead) the next block's q."""
        a, g = self.a, self.g
        self.constants()
        resident: dict[tuple, int] = {}
        blocks = g.out_chunks * g.blocks
        for n in range(blocks):
            cq, qb = divmod(n, g.blocks)
            heads = g.heads(cq)
            a.comment(f"output chunk {cq}, query block {qb}")
            if n == 0 or not self.p["ahead"]:
                self.fetch_q(n)
            if self.p["strategy"] == "rows" and qb == 0:
                needed = _tiles_needed(g, cq)
                keep = {k: s for k, s in resident.items() if k in needed}
                free = [s for s in range(0, self.ctx.hw.MSRAM_TILES, g.blocks)
                        if s not in keep.values() and s + g.blocks <= self.ctx.hw.MSRAM_TILES]
                for key in needed:
                    if key not in keep:
                        keep[key] = free.pop(0)
                        self.load_tiles(key, keep[key], 0, g.blocks)
                resident = keep
            if self.p["ahead"] and n + 1 < blocks:
                self.fetch_q(n + 1)
            self.qbuf, self.obuf = self.buffers(n)
            for i, h in enumerate(heads):
                self.prepare_q(h)
                if self.p["strategy"] == "rows":
                    self.rows_head(qb, h, i == 0, resident)
                else:
                    self.online_head(qb, h, i == 0)
            self.block_io(qb, cq, store=True)


PARAMS = {"strategy": "rows", "ahead": 0}
SPACE = {"strategy": ("rows", "online"), "ahead": (0, 1)}


def attention_template(task: str, strategy: str) -> Template:
    def generate(ctx: Ctx, a: Asm, p: dict) -> None:
        Kernel(ctx, a, p).run()
    return Template(task=task, generate=generate, params={**PARAMS, "strategy": strategy},
                    space=dict(SPACE), doc=__doc__, check=check)
