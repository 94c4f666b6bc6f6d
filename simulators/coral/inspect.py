"""What a debugger shows of the coral vector unit at any traced state: the vector
configuration decoded from a vtype value (SEW, LMUL, tail/mask policies, VLMAX), by
the model's own decoding (CoralState.decode_vtype / vtype_text), because a trace
records the raw vtype and vl only (tracing.CSR_NAMES)."""
from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

from .state import LMUL_NAMES, CoralState


@dataclass(frozen=True)
class VectorConfig:
    vtype: int
    vl: int
    vill: bool
    sew: int                 # element width in bits (8 when vill)
    lmul: str                # "m1", "mf2", ... ("" when vill)
    lmul_num: int
    lmul_den: int
    tail_agnostic: bool
    mask_agnostic: bool
    vlmax: int
    text: str                # "e32, m8, ta, ma" or "vill"

    def group(self, reg: int) -> tuple[int, int]:
        """(first register of the group `reg` belongs to, element index of reg's first
        element in that group) under the current LMUL (a fractional LMUL: itself, 0)."""
        n = self.lmul_num if self.lmul_den == 1 else 1
        return reg - reg % n, (reg % n)


def vector_config(vtype: int, vl: int, vlen: int) -> VectorConfig:
    s = SimpleNamespace(vtype=int(vtype), VLEN=int(vlen))
    CoralState.decode_vtype(s)
    return VectorConfig(int(vtype), int(vl), s.vill, s.sew, "" if s.vill else LMUL_NAMES[s.vtype & 7],
                        s.lmul_num, s.lmul_den, bool(s.vta), bool(s.vma), s.vlmax,
                        CoralState.vtype_text(s))
