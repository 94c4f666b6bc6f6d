"""conv_block: y = relu(bf16(bf16(conv * scale) + shift)): the conv2d template with the
folded batch norm and ReLU fused as its epilogue, on each output-channel chunk's rows
in Vector SRAM before they are stored (scale and shift are loaded once, one row per
chunk)."""
from __future__ import annotations

from .conv import transfer_rows
from .conv2d import Conv2d, plan
from .template import Template

PTR, SCALE, SHIFT, EPL = "gp9", "gp10", "gp11", "gp15"


def _plan(ctx, params):
    p = plan(ctx, params)
    amount = ctx.hw.HBM_V_PREFETCH_AMOUNT
    return type(p)(p.hw, p.img, p.cin, p.cout, p.early, extra_rows=2 * -(-p.coc // amount) * amount)


def _generate(ctx, asm, params):
    p = _plan(ctx, params)
    vlen, amount = p.hw.VLEN, p.hw.HBM_V_PREFETCH_AMOUNT
    half = p.extra_rows // 2 * vlen
    for k, name in enumerate(("scale", "shift")):
        asm.set_hbm_base("a3", ctx.addr(name), "gp6")
        transfer_rows(asm, "H_PREFETCH_V", "a3", p.extra_base + k * half, 0, max(p.coc, amount), amount, vlen,
                      ("gp7", "gp8", "gp14", "gp6"))

    def epilogue(conv, j, first, step):
        asm.li(PTR, first)
        asm.li(SCALE, p.extra_base + j * vlen)
        asm.li(SHIFT, p.extra_base + half + j * vlen)
        with asm.loop(EPL, p.img.outputs, f"batch norm and ReLU, channels of chunk {j}"):
            asm(f"V_MUL_VV {PTR}, {PTR}, {SCALE}, 0", "* scale")
            asm(f"V_ADD_VV {PTR}, {PTR}, {SHIFT}, 0", "+ shift")
            asm(f"V_MAX_VF {PTR}, {PTR}, f0, 0", "relu")
            asm.addi(PTR, PTR, step, scratch="gp6")
    Conv2d(ctx, asm, p, epilogue).run()


TEMPLATE = Template(task="conv_block", generate=_generate, params={"early": 0}, space={"early": (0, 1)},
                    doc=__doc__, check=lambda ctx, params: _plan(ctx, params).check())
