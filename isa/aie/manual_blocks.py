"""Generated blocks of the aie manual that only aie has (isa/manual.py places them where
manual_intro.md has a `<!-- manual:NAME -->` marker): slots, bundle rules, register
files, the bundle header, DMA descriptor fields, shuffle modes and function tables."""
from __future__ import annotations

from kernelcraft.isa.loader import HardwareConfig, ISA
from kernelcraft.isa.manual import _hex32, _table

from .model import get_spec


def slots_block(isa: ISA, config: HardwareConfig) -> str:
    spec = get_spec()
    rows = []
    for s in spec.slots:
        ops = [mn for mn, info in spec.ops.items() if info.slot == s.cls]
        rows.append([f"`{s.name}`", f"`{s.cls}`", s.doc, ", ".join(f"`{o}`" for o in ops)])
    return _table(["slot", "class", "what it does", "operations of its class"], rows)


def rules_block(isa: ISA, config: HardwareConfig) -> str:
    spec = get_spec()
    rows = [["`slots`", "at most one operation per slot: "
             + ", ".join(f"{n} {c}" for c, n in spec.slot_classes().items()), "the bundle has that many units"]]
    for r in spec.rules:
        what = (f"at most {r.limit} register {r.count} of {'/'.join(f'`{f}`' for f in r.files)}"
                if r.count else "no register written twice")
        rows.append([f"`{r.name}`", what, r.doc])
    return _table(["rule", "limit", "why"], rows)


def files_block(isa: ISA, config: HardwareConfig) -> str:
    spec = get_spec()
    kinds = {k.name: k for k in isa.register_kinds()}
    rows = []
    for name, f in spec.files.items():
        k = kinds[name]
        alias = {"half": f"halves of `{f.units}`", "pair": f"pairs of `{f.units}`"}.get(f.alias, "")
        rows.append([f"`{k.prefix}0`..`{k.prefix}{k.count - 1}`", str(k.count), k.doc, alias or "-"])
    return _table(["registers", "count", "what", "alias of"], rows)


def header_block(isa: ISA, config: HardwareConfig) -> str:
    spec = get_spec()
    f = spec.header_fields
    bits = lambda lsb, w: f"[{lsb + w - 1}:{lsb}]"
    return (f"Bundle header: {bits(*f['ops'])} `ops` = operation words that follow (1..{spec.max_ops}), "
            f"{bits(*f['ends'])} `ends` = hardware loops that end after this bundle; all other bits 0. "
            "The operation words follow in slot order.")


def dma_block(isa: ISA, config: HardwareConfig) -> str:
    spec = get_spec()
    rows = []
    for f in spec.dma_fields:
        rng = ""
        if f.min is not None or f.max is not None:
            rng = f"{'' if f.min is None else f.min}..{'' if f.max is None else f.max}"
        if f.even:
            rng = (rng + ", " if rng else "") + "even"
        if f.kind == "lock":
            rng = "`l0`..`l15` or `none`"
        rows.append([f"`{f.name}`", rng or "any integer", f"`{f.default}`" if f.default else "required", f.doc])
    ch = spec.dma_channels
    return (f"Channels: {ch['in']} input (`DMAIN`), {ch['out']} output (`DMAOUT`); a program holds up to "
            f"{spec.descriptors} descriptors.\n\n" + _table(["field", "values", "default", "meaning"], rows))


def shuffles_block(isa: ISA, config: HardwareConfig) -> str:
    spec = get_spec()
    rows = [[f"`{m.name}`", str(m.value), str(m.bits), f"`{m.src}`", m.doc] for m in spec.shuffles.values()]
    return _table(["mode", "value", "lane bits", "src(i)", "result"], rows)


def functions_block(isa: ISA, config: HardwareConfig) -> str:
    spec = get_spec()
    out = []
    for fn, (off, slope, doc) in spec.tables.items():
        out += [f"**{fn}** ({off.size} segments; {doc}). OFF[j], SLOPE[j] as fp32 bit patterns, "
                "eight entries per row starting at the entry number shown:", ""]
        rows = []
        for j in range(0, off.size, 8):
            rows.append([str(j), " ".join(_hex32(v) for v in off[j:j + 8]),
                         " ".join(_hex32(v) for v in slope[j:j + 8])])
        out += [_table(["j", "OFF[j..j+7]", "SLOPE[j..j+7]"], rows), ""]
    return "\n".join(out).rstrip("\n")


def access_block(isa: ISA, config: HardwareConfig) -> str:
    spec = get_spec()
    rows = [[f"`{mn}`", info.slot, str(info.bytes), str(info.align)]
            for mn, info in spec.ops.items() if info.bytes]
    return _table(["operation", "slot", "bytes", "address multiple of"], rows)


BLOCKS = {"aie-access": access_block, "aie-slots": slots_block, "aie-rules": rules_block, "aie-files": files_block,
          "aie-header": header_block, "aie-dma": dma_block, "aie-shuffles": shuffles_block,
          "aie-functions": functions_block}
