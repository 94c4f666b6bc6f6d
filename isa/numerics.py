"""Constants of the ISA's numerics (the manual prints them; simulators/numerics.py and
the RTL compute with them): exp(x) = 2**n * 2**f with n = floor(x * LOG2E), ln 2 in two
parts for the reduction, 2**f on [0, 1) by a degree-6 polynomial (least-squares fit of
the relative error, coefficients rounded to fp32) evaluated with Horner's rule in fp32."""
from __future__ import annotations

import numpy as np

F32 = np.float32

LOG2E = np.uint32(0x3FB8AA3B).view(F32)
# ln 2 split in two: LN2_HI has 15 significant bits, so n * LN2_HI is exact for |n| < 512.
LN2_HI = np.uint32(0x3F317200).view(F32)
LN2_LO = np.uint32(0x35BFBE8E).view(F32)
EXP2_COEFFS = tuple(np.uint32(h).view(F32) for h in (
    0x3F800000, 0x3F317215, 0x3E75FECD, 0x3D6342B1, 0x3C1E9275, 0x3AA3180E, 0x39637149,
))
