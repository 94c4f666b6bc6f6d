"""Writes the coral RTL's decode constants from isa/coral/ (the single source):

    rtl/coral/coral_isa.vh   major opcodes, the scalar instructions' fixed fields (funct3,
                             funct7, the rs2 selector, whole words), the CSR numbers, OP-V's
                             funct3 categories, funct6 and selectors, the vector loads' and
                             stores' widths, mop, lumop and sumop, and the fused multiply-add
                             group as a function of the instruction word

The RTL's hardware parameters (coral_top's ITCM_SIZE, DTCM_BASE, ... ) are set per build
from the configuration (simulators/coral_rtl/build.py), and its timing classes are held
against hardware.toml there: neither is generated.

Run from the repository root:

    python3 -m kernelcraft.simulators.coral_rtl.generate            # rewrite the header
    python3 -m kernelcraft.simulators.coral_rtl.generate --check    # exit 1 if it is out of date

tests/rtl/coral/test_generated.py regenerates it and fails on any difference, and reads
the constants back with pyverilog.
"""
from __future__ import annotations

import sys
from pathlib import Path

from kernelcraft.isa.loader import ISA, InstrDef, get_isa
from kernelcraft.simulators.rtl.verilog import generate_main, stale_files

RTL_DIR = Path(__file__).resolve().parents[2] / "rtl" / "coral"
ISA_VH = RTL_DIR / "coral_isa.vh"
GENERATOR = "simulators/coral_rtl/generate.py"
MODULE = "kernelcraft.simulators.coral_rtl.generate"

# RISC-V's major opcodes by their names in the opcode map, each taken from the record of
# one of its instructions; every instruction's opcode must be one of them.
MAJOR = {"LOAD": "lw", "LOAD_FP": "flw", "MISC_MEM": "fence", "OP_IMM": "addi", "AUIPC": "auipc",
         "STORE": "sw", "STORE_FP": "fsw", "OP": "add", "LUI": "lui", "MADD": "fmadd.s",
         "MSUB": "fmsub.s", "NMSUB": "fnmsub.s", "NMADD": "fnmadd.s", "OP_FP": "fadd.s",
         "OP_V": "vadd.vv", "BRANCH": "beq", "JALR": "jalr", "JAL": "jal", "SYSTEM": "ecall"}
# OP-V's funct3: the operand categories of the vector specification, from one record each.
OPV_CATEGORIES = {"OPIVV": "vadd.vv", "OPFVV": "vfadd.vv", "OPMVV": "vmul.vv", "OPIVI": "vadd.vi",
                  "OPIVX": "vadd.vx", "OPFVF": "vfadd.vf", "OPMVX": "vmul.vx", "OPCFG": "vsetvli"}
# Vector loads and stores: the element width field by EEW, mop by addressing mode, and
# lumop/sumop by kind, each from one record (every record of that kind must agree).
VEC_WIDTHS = {"VW_E8": "vle8.v", "VW_E16": "vle16.v", "VW_E32": "vle32.v"}
VEC_MOPS = {"MOP_UNIT": "vle8.v", "MOP_UIDX": "vluxei8.v", "MOP_STRIDED": "vlse8.v",
            "MOP_OIDX": "vloxei8.v"}
# Whole-register accesses: the nf field by register count, from vl<n>re8.v (every
# vl<n>re<eew>.v and vs<n>r.v must agree).
VEC_WHOLE = {"NF_WHOLE1": "vl1re8.v", "NF_WHOLE2": "vl2re8.v", "NF_WHOLE4": "vl4re8.v",
             "NF_WHOLE8": "vl8re8.v"}
VEC_UMOPS = {"LUMOP_UNIT": "vle8.v", "LUMOP_WHOLE": "vl1re8.v", "LUMOP_MASK": "vlm.v",
             "LUMOP_FF": "vle8ff.v", "SUMOP_UNIT": "vse8.v", "SUMOP_WHOLE": "vs1r.v",
             "SUMOP_MASK": "vsm.v"}
# Fixed fields of the scalar records, as the header's prefixes.
FIELD_PREFIX = {"funct3": "F3", "funct7": "F7", "sel": "SEL", "top": "TOP"}
# ... and those the RTL reads otherwise: the whole word (INSN_*) of an instruction fixed in
# every bit, the fused multiply-adds' format (FMT_S, isa_fma), zimm's reserved bits.
FIELD_OTHERWISE = {"rd", "rs1", "fm", "funct12", "fmt", "zimm_hi"}
SCALAR_GROUPS = ("rv32i", "rv32m", "rv32f", "zicsr", "rvv_config")
VECTOR_MEMORY_GROUPS = ("rvv_memory", "rvv_segment")


def ident(mnemonic: str) -> str:
    return mnemonic.upper().replace(".", "_")


def _lit(width: int, value: int) -> str:
    if width in (5, 6):         # the register-field selectors and funct6: in binary, as the specification
        return f"{width}'b{value:0{width}b}"
    return f"{width}'h{value:0{(width + 3) // 4}X}" if width > 4 else f"{width}'d{value}"


def _width(d: InstrDef, field: str) -> int:
    return d.format.fixed[field][1]


def _one_value(isa: ISA, field: str, members: list[InstrDef], what: str) -> int:
    values = {d.fixed[field] for d in members}
    if len(values) != 1:
        raise ValueError(f"{what}: the records disagree on {field} ({sorted(values)}); "
                         f"the RTL decodes one value")
    return values.pop()


def majors(isa: ISA) -> dict[str, int]:
    out = {name: isa.instructions[m].opcode for name, m in MAJOR.items()}
    unnamed = {d.mnemonic: d.opcode for d in isa.instructions.values() if d.opcode not in out.values()}
    if unnamed:
        raise ValueError(f"major opcodes the RTL's decode does not name: {unnamed}")
    return out


def fma_group(isa: ISA) -> list[InstrDef]:
    """The fused multiply-adds: the R4 format, one major opcode each."""
    return [d for d in isa.instructions.values() if d.format.name == "R4"]


def opv_funct6(isa: ISA) -> dict[str, int]:
    """OP-V's funct6 by mnemonic stem (vadd for vadd.vv/.vx/.vi); where a stem's forms
    differ (vwadd.vv and vwadd.wv), by full mnemonic."""
    stems: dict[str, list[InstrDef]] = {}
    for d in isa.instructions.values():
        if d.opcode == majors(isa)["OP_V"] and "funct6" in d.fixed:
            stems.setdefault(d.mnemonic.rsplit(".", 1)[0], []).append(d)
    out: dict[str, int] = {}
    for stem, ds in stems.items():
        if len({d.fixed["funct6"] for d in ds}) == 1:
            out[ident(stem)] = ds[0].fixed["funct6"]
        else:
            out.update((ident(d.mnemonic), d.fixed["funct6"]) for d in ds)
    return out


def render_isa(isa: ISA) -> str:
    ins = isa.instructions
    ow = isa.opcode_width
    out = [f"// Generated by {GENERATOR} from isa/coral/*.toml; do not edit.",
           "// Decode constants of coral, included inside the body of each module that decodes",
           "// instruction words. Not every module uses every constant.",
           "/* verilator lint_off UNUSEDPARAM */",
           "",
           "// Major opcodes (bits [6:0]), named as in RISC-V's opcode map."]
    for name, value in majors(isa).items():
        out.append(f"localparam [{ow - 1}:0] OPC_{name} = {_lit(ow, value)};")

    out += ["", "// The scalar instructions' fixed fields: <field>_<mnemonic> (F3 funct3, F7 funct7,",
            "// SEL the rs2 field that selects the operation, TOP vsetvli's and vsetivli's top bits)."]
    for d in ins.values():
        if d.group not in SCALAR_GROUPS:
            continue
        for field, value in d.fixed.items():
            if field in FIELD_OTHERWISE:
                continue
            if field not in FIELD_PREFIX:
                raise ValueError(f"{d.mnemonic}: fixed field {field} has no name in the header")
            out.append(f"localparam [{_width(d, field) - 1}:0] {FIELD_PREFIX[field]}_{ident(d.mnemonic)} = "
                       f"{_lit(_width(d, field), value)};")
    out += ["", "// Instructions every bit of which is fixed: the whole word."]
    for d in ins.values():
        if d.group in SCALAR_GROUPS and d.mask == (1 << isa.word_bits) - 1:
            out.append(f"localparam [{isa.word_bits - 1}:0] INSN_{ident(d.mnemonic)} = "
                       f"{_lit(isa.word_bits, d.match)};")

    out += ["", "// CSR numbers (the csr operand's names)."]
    for name, value in isa.kinds["csr"].names:
        out.append(f"localparam [11:0] CSR_{name.upper()} = {_lit(12, value)};")

    out += ["", "// Rounding modes (the rm operand's names; the values between rmm and dyn are reserved)."]
    for name, value in isa.kinds["rm"].names:
        out.append(f"localparam [2:0] RM_{name.upper()} = {_lit(3, value)};")

    out += ["", "// OP-V's funct3: the operand categories."]
    for name, m in OPV_CATEGORIES.items():
        out.append(f"localparam [2:0] {name} = {_lit(3, ins[m].fixed['funct3'])};")
    out += ["", "// OP-V's funct6: F6_<mnemonic stem> (the full mnemonic where its forms differ)."]
    for name, value in opv_funct6(isa).items():
        out.append(f"localparam [5:0] F6_{name} = {_lit(6, value)};")
    out += ["", "// OP-V's selectors in the vs1 or vs2 field (the unary groups, the moves):",
            "// SEL_<mnemonic>, and SEL2_ for vid.v's second (vs2)."]
    for d in ins.values():
        if d.opcode == majors(isa)["OP_V"]:
            for field in ("sel", "sel2"):
                if field in d.fixed:
                    out.append(f"localparam [4:0] {field.upper()}_{ident(d.mnemonic)} = "
                               f"{_lit(5, d.fixed[field])};")

    mem = [d for d in ins.values() if d.group in VECTOR_MEMORY_GROUPS]
    out += ["", "// Vector loads and stores (LOAD-FP / STORE-FP): the width field by EEW, mop by",
            "// addressing mode, lumop / sumop by kind."]
    def eew(d: InstrDef) -> str:    # vle8.v, vlse16.v, vsseg2e32.v, vl1re8.v: the digits after the last e
        # (an indexed access's "ei16" gives "i16": its width is the offsets', left out)
        return d.mnemonic.split(".")[0].rstrip("ff").rsplit("e", 1)[1]
    for name, m in VEC_WIDTHS.items():
        same = [d for d in mem if d.format.name not in ("VLM", "VSM", "VSR") and eew(d) == eew(ins[m])]
        out.append(f"localparam [2:0] {name} = {_lit(3, _one_value(isa, 'width', same, name))};")
    for name, m in VEC_MOPS.items():
        kind = ("ux" if "ux" in m else "ox") if ins[m].format.name == "VLX" else ""
        same = [d for d in mem if d.format.name[2] == ins[m].format.name[2] and kind in d.mnemonic]
        out.append(f"localparam [1:0] {name} = {_lit(2, _one_value(isa, 'mop', same, name))};")
    for name, m in VEC_WHOLE.items():
        n = m[2]
        same = [d for d in mem if d.format.name in ("VLR", "VSR") and
                (d.mnemonic.startswith(f"vl{n}re") or d.mnemonic == f"vs{n}r.v")]
        out.append(f"localparam [2:0] {name} = {_lit(3, _one_value(isa, 'nf', same, name))};")
    for name, m in VEC_UMOPS.items():
        field = "lumop" if name.startswith("L") else "sumop"
        fmt = ins[m].format.name
        same = [d for d in mem if d.format.name == fmt and d.fixed.get(field) == ins[m].fixed[field]]
        if fmt in ("VLR", "VSR", "VLM", "VSM"):     # every record of the format has it
            same = [d for d in mem if d.format.name == fmt]
        out.append(f"localparam [4:0] {name} = {_lit(5, _one_value(isa, field, same, name))};")

    fmas = fma_group(isa)
    fmt_lsb, fmt_w = fmas[0].format.fixed["fmt"]
    fmt = _one_value(isa, "fmt", fmas, "the fused multiply-adds")
    opc_name = {v: f"OPC_{k}" for k, v in majors(isa).items()}
    out += ["", "// The fused multiply-adds' format field: single (binary32).",
            f"localparam [{fmt_w - 1}:0] FMT_S = {_lit(fmt_w, fmt)};"]
    out += ["", "// pyverilog (tests/rtl/coral/test_generated.py) reads the constants above, not the",
            "// functions below.",
            "`ifndef CORAL_CONSTANTS_ONLY",
            "",
            "/* verilator lint_off UNUSEDSIGNAL */     // a function reads only some bits of the word",
            "",
            "// The fused multiply-adds' major opcodes (the R4 format).",
            f"function automatic isa_fma_opc(input [{ow - 1}:0] opc);",
            "    isa_fma_opc = " + " || ".join(f"opc == {opc_name[d.opcode]}" for d in fmas) + ";",
            "endfunction",
            "",
            "// A fused multiply-add of binary32 (its opcode, and the format field single).",
            "function automatic isa_fma(input [31:0] word);",
            f"    isa_fma = isa_fma_opc(word[{isa.opcode_lsb + ow - 1}:{isa.opcode_lsb}]) && "
            f"word[{fmt_lsb + fmt_w - 1}:{fmt_lsb}] == FMT_S;",
            "endfunction",
            "",
            "/* verilator lint_on UNUSEDSIGNAL */",
            "`endif",
            "/* verilator lint_on UNUSEDPARAM */",
            ""]
    return "\n".join(out)


def rendered() -> dict[Path, str]:
    return {ISA_VH: render_isa(get_isa("coral"))}


def stale() -> list[Path]:
    """Generated files whose contents differ from what the ISA data gives now."""
    return stale_files(rendered())


def main(argv: list[str]) -> int:
    return generate_main(argv, rendered, MODULE)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
