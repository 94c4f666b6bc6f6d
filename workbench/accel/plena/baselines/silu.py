"""silu: y = x / (1 + exp(-x)), computed in place row by row."""
from __future__ import annotations

from .elementwise import elementwise_template


def body(asm, row, tmps, f):
    t = tmps[0]
    asm(f"V_MUL_VF {t}, {row}, {f['neg_one']}, 0", "-x")
    asm(f"V_EXP_V {t}, {t}, 0", "exp(-x)")
    asm(f"V_ADD_VF {t}, {t}, {f['one']}, 0", "1 + exp(-x)")
    asm(f"V_RECI_V {t}, {t}, 0", "sigmoid(x)")
    asm(f"V_MUL_VV {row}, {row}, {t}, 0", "x * sigmoid(x)")


TEMPLATE = elementwise_template("silu", body=body, constants=("one", "neg_one"))
