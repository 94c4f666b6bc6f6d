"""Data-memory ports the DMA's beats hold, cycle by cycle, and the core's wait for them.

Each bank of data memory is four macros of 32-byte rows (row r in macro r mod 4), each
macro with two ports (rtl/aie/README.md). A core access uses port A of the macros of
the bank it starts in and port B for the rows of a tail crossing into the next bank. A
DMA beat (up to DMA_BW bytes of its transfer's words in order, gathered across runs,
ending before a word that would take its rows past a span of four: beat_starts) is one
access of the consecutive rows from its lowest word's to its highest's; those rows take
port B of their macros, or port A when another beat has B (a
third beat on one macro in one cycle is not arbitrated: the RTL reports it). As in the
AI Engine's memory module, a requester that finds its port taken waits a cycle and
retries; here the DMA always has the port, so its beats run on the schedule the DMA
timing gives (dma.py) and only the core waits (stall cause `dma_port`):
  - a bundle whose first accesses (one per bank) would meet a beat does not issue;
  - a later access of a bank-conflicting bundle that would meet one is held a cycle,
    and the scoreboard holds with it (nothing counts down while the memory stage is
    held), so a held load's result is not read early.
The RTL (aie_dm, aie_core) does exactly this; this module is the model's side.

Macros are bits of an int: bit 4 * bank + row mod 4.
"""
from __future__ import annotations

import numpy as np


class DmaPorts:
    def __init__(self, cfg):
        self.shift = (cfg.DM_SIZE // cfg.DM_BANKS).bit_length() - 1    # bytes -> bank
        self.size = cfg.DM_SIZE
        self.beat_words = cfg.DMA_BW // 2
        # per cycle from `base`: the macros with a beat (port B taken), with two (A too);
        # int64 masks when the macros fit one, else Python ints
        self.wide = cfg.DM_BANKS * 4 > 62
        dtype = object if self.wide else np.int64
        self.one = np.zeros(1024, dtype=dtype)
        self.two = np.zeros(1024, dtype=dtype)
        self.base = 0
        self.until = -1                      # last cycle any beat holds a port
        self.until2 = -1                     # ... two beats hold one macro (its port A)
        # (descriptor, first word) -> (beats, (the macros each holds: _macros_per_beat,
        # all of them))
        self._beats: dict[tuple, tuple] = {}
        self._recent: list[tuple[int, int]] = []   # (last cycle, macros) of claims not yet past

    def beats(self, tr) -> tuple[int, tuple | None]:
        """(number of beats, (the mask of macros each uses, all of them) or None if it has
        no word) of transfer `tr`: a beat takes up to DMA_BW / 2 words in order and ends early before a
        word that would make its rows span more than four (one access of consecutive
        rows, one per macro of a bank; beat_starts). A descriptor and its base word fix
        them."""
        key = (tr.bd, tr.loc_base)
        got = self._beats.get(key)
        if got is None:
            starts = beat_starts(tr.loc, self.beat_words)
            held = None
            if tr.loc_pat.size:
                masks = self._macros_per_beat(tr.loc, starts)[1]
                held = (masks, int(np.bitwise_or.reduce(masks)))
            got = self._beats[key] = (starts.size, held)
        return got

    def claim(self, held: tuple | None, first: int, now: int | None = None) -> None:
        """Note the macros a transfer's beats use (`held`: beats): beat k in cycle
        first + k. `now`: no cycle before it will be asked about again (the DMA engine's
        time, at most the core's; no claim starts before it)."""
        if held is None:
            return
        masks, macros = held
        if now is not None:
            self._recent = [r for r in self._recent if r[0] >= now]
        s = first - self.base
        end = s + masks.size                  # beats are 0, 1, ... (every beat has a word)
        if end > self.one.size and now is not None and now - self.base > self.one.size // 2:
            self._prune(now)                  # (rather than grow past what is left behind)
            s, end = first - self.base, first - self.base + masks.size
        if end > self.one.size:
            grow = max(end, 2 * self.one.size) - self.one.size
            self.one = np.concatenate([self.one, np.zeros(grow, dtype=self.one.dtype)])
            self.two = np.concatenate([self.two, np.zeros(grow, dtype=self.two.dtype)])
        # a transfer's beats take consecutive cycles: slices, not an index array
        one = self.one[s:end]
        # (else no beat holds a port in these cycles, or none of these macros)
        if self.until >= first and any(m & macros and last >= first for last, m in self._recent):
            k = self.until - first + 1        # (none holds one after `until`)
            both = one[:k] & masks[:k]
            if (np.count_nonzero(both) if self.wide else both.any()):   # (object masks: count)
                self.two[s:s + both.size] |= both
                self.until2 = max(self.until2, s + int(np.flatnonzero(both)[-1]) + self.base)
        one |= masks
        self._recent.append((end - 1 + self.base, macros))
        if end - 1 + self.base > self.until:
            self.until = end - 1 + self.base

    def may_hold(self, t: int, addrs, n: int) -> bool:
        """Could an access of n bytes at any of `addrs` (an array) wait from cycle t on? Only
        if two beats will hold a macro's port A, or beats at all and one of them crosses
        into the next bank (its tail needs port B). (Loops run all at once ask.)"""
        if self.until2 >= t:
            return True
        return self.until >= t and bool(np.any((addrs >> self.shift) != ((addrs + n - 1) >> self.shift)))

    def macros(self, a: int, n: int) -> tuple[int, int]:
        """(macros on port A, macros on port B) of a core access of n bytes at byte a."""
        sb = a >> self.shift
        on_a = on_b = 0
        for r in range(a >> 5, (a + n + 31) >> 5):
            bank = (r << 5) >> self.shift
            if bank == sb:
                on_a |= 1 << (bank * 4 + (r & 3))
            else:
                on_b |= 1 << (bank * 4 + (r & 3))
        return on_a, on_b

    def _macros_per_beat(self, loc, starts) -> tuple[np.ndarray, np.ndarray]:
        """(beats, the mask of macros each uses) of a transfer of the data-memory words loc
        whose beats start at `starts`. A beat takes every row from its lowest word's to
        its highest word's, rows without a word of it included (the RTL's beat is one
        access of consecutive rows, at most four)."""
        byte = loc.astype(np.int64) * 2
        beat = np.zeros(byte.size, dtype=np.int64)
        beat[starts[1:]] = 1
        beat = np.cumsum(beat)
        lo = np.minimum.reduceat(byte >> 5, starts)
        hi = np.maximum.reduceat(byte >> 5, starts)
        span = hi - lo
        if span.max() > 0:
            fits = span < 4
            rows, which = [byte[~fits[beat]] >> 5], [beat[~fits[beat]]]
            for d in range(int(min(span.max(), 3)) + 1):
                on = fits & (span >= d)
                rows.append(lo[on] + d)
                which.append(np.flatnonzero(on))
            byte, beat = np.concatenate(rows) << 5, np.concatenate(which)
        macro = (byte >> self.shift) * 4 + ((byte >> 5) & 3)
        nm = int(macro.max()) + 1
        pairs = np.unique(beat * nm + macro)              # (beat, macro), beat by beat
        beats, macros = pairs // nm, pairs % nm
        cut = np.flatnonzero(np.concatenate(([True], beats[1:] != beats[:-1])))
        if self.wide:
            bits = np.array([1 << m for m in macros.tolist()], dtype=object)
        else:
            bits = np.left_shift(np.int64(1), macros)
        beats = beats[cut]
        assert beats.size == beats[-1] + 1      # (claim relies on it: one mask per beat, in order)
        return beats, np.bitwise_or.reduceat(bits, cut)

    def _taken(self, c: int, want: list[int]) -> bool:
        i = c - self.base
        if i >= self.one.size:
            return False
        return bool(want[0] & int(self.two[i]) or want[1] & int(self.one[i]))

    def core_wait(self, st, accesses: tuple, t: int) -> tuple[int, list[int]]:
        """(issue cycle >= t, cycles a later access of the bundle is held) of a bundle whose
        memory accesses are `accesses` ((pointer, bytes, alignment), slot order ld0, ld1,
        st) with the pointers' values now. Accesses that start in one bank go in
        successive cycles (slot order); out-of-range or misaligned ones take no port (the
        bundle fails on them)."""
        if t - self.base > 65536:
            self._prune(t)
        phases: list[list[int]] = []
        banks: list[int] = []
        for ptr, n, align in accesses:
            a = int(st.p[ptr])
            bank = a >> self.shift
            ph = banks.count(bank)
            banks.append(bank)
            while len(phases) <= ph:
                phases.append([0, 0])
            if a >= 0 and a + n <= self.size and not a % align:
                on_a, on_b = self.macros(a, n)
                phases[ph][0] |= on_a
                phases[ph][1] |= on_b
        c = t
        while self._taken(c, phases[0]):
            c += 1
        issue, holds = c, []
        for want in phases[1:]:
            c += 1
            while self._taken(c, want):
                holds.append(c)
                c += 1
        return issue, holds

    @staticmethod
    def freeze(holds: list[int], ready: list, macready: list, horizon: list) -> None:
        """The scoreboard holds in each cycle of `holds`: every result not yet readable then
        becomes readable a cycle later."""
        for c in holds:
            for board in (ready, macready):
                for u, r in enumerate(board):
                    if r > c:
                        board[u] = r + 1
            if horizon[0] > c:
                horizon[0] += 1

    def _prune(self, t: int) -> None:
        """Forget the cycles before t (the core never asks about them again)."""
        k = t - self.base
        self.one, self.two = self.one[k:].copy(), self.two[k:].copy()
        self.base = t


def beat_starts(loc: np.ndarray, beat_words: int) -> np.ndarray:
    """Where the beats of a transfer of data-memory words `loc` (in transfer order) start:
    DMA_BW / 2 words each, or fewer when the next word would take the beat's rows past a
    span of four. Transfers whose every full-size beat fits (all of the Level-1 baselines')
    get ceil(words / beat_words) beats without a walk."""
    n = loc.size
    starts = np.arange(0, n, beat_words)
    if n == 0:
        return starts
    rows = loc.astype(np.int64) >> 4                # 16-bit words -> 32-byte rows
    if int((np.maximum.reduceat(rows, starts) - np.minimum.reduceat(rows, starts)).max()) < 4:
        return starts
    out, i, r = [], 0, rows.tolist()
    while i < n:
        out.append(i)
        lo = hi = r[i]
        j = i + 1
        while j < n and j - i < beat_words:
            lo2, hi2 = min(lo, r[j]), max(hi, r[j])
            if hi2 - lo2 > 3:
                break
            lo, hi = lo2, hi2
            j += 1
        i = j
    return np.array(out, dtype=np.int64)
