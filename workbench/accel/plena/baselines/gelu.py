"""gelu (tanh form): y = x / (1 + exp(-c1 * (x + c2 * x^3))), in place row by row."""
from __future__ import annotations

from .elementwise import elementwise_template


def body(asm, row, tmps, f):
    t = tmps[0]
    asm(f"V_MUL_VV {t}, {row}, {row}, 0", "x^2")
    asm(f"V_MUL_VF {t}, {t}, {f['gelu_c2']}, 0", "c2 x^2")
    asm(f"V_ADD_VF {t}, {t}, {f['one']}, 0", "1 + c2 x^2")
    asm(f"V_MUL_VV {t}, {t}, {row}, 0", "x + c2 x^3")
    asm(f"V_MUL_VF {t}, {t}, {f['neg_gelu_c1']}, 0", "-c1 (x + c2 x^3)")
    asm(f"V_EXP_V {t}, {t}, 0")
    asm(f"V_ADD_VF {t}, {t}, {f['one']}, 0")
    asm(f"V_RECI_V {t}, {t}, 0", "sigmoid(c1 (x + c2 x^3))")
    asm(f"V_MUL_VV {row}, {row}, {t}, 0")


TEMPLATE = elementwise_template("gelu", body=body, constants=("one", "gelu_c2", "neg_gelu_c1"))
