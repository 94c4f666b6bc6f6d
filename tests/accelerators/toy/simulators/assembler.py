"""toy's assembler: `[label:] MNEMONIC op, op` lines, read with simulators/core/asmtext
and encoded from the ISA data's formats."""
from __future__ import annotations

from kernelcraft.isa.expr import ExprError, evaluate
from kernelcraft.simulators.core.asmtext import (Diagnostics, split_lines, split_operands,
                                                 take_labels)
from kernelcraft.simulators.core.program import Instr, Program

from ..isa import isa as toy_isa


def assemble(source: str, source_name: str = "<kernel>", config=None) -> Program:
    isa = toy_isa()
    diags = Diagnostics(source_name)
    labels: dict[str, int] = {}
    rows = []                        # (line, mnemonic, pieces, text)
    for line in split_lines(source):
        found, pos = take_labels(line.code)
        for name, col in found:
            if name in labels:
                diags.error(line, col, f"label '{name}' defined twice")
            labels[name] = len(rows)
        rest = line.code[pos:].strip()
        if not rest:
            continue
        col = line.code.index(rest) + 1
        mnemonic, _, ops = rest.partition(" ")
        pieces, problems = split_operands(ops, col + len(mnemonic) + 1) if ops.strip() else ([], [])
        for c, message in problems:
            diags.error(line, c, message)
        if mnemonic.upper() not in isa.instructions:
            diags.error(line, col, f"unknown instruction '{mnemonic}'",
                        "toy has " + ", ".join(isa.instructions))
            continue
        rows.append((line, mnemonic.upper(), pieces, rest))
    instrs, words = [], []
    for line, mn, pieces, text_of in rows:
        d = isa.instructions[mn]
        if len(pieces) != len(d.operands):
            diags.error(line, 1, f"{mn} takes {len(d.operands)} operand(s), got {len(pieces)}",
                        f"write `{d.syntax}`")
            continue
        values, word = {}, d.opcode << isa.opcode_lsb
        for op, piece in zip(d.operands, pieces):
            text = piece.text.strip()
            kind = op.kind
            if kind.is_register:
                n = text[len(kind.prefix):]
                if not (text.lower().startswith(kind.prefix) and n.isdigit() and int(n) < kind.count):
                    diags.error(line, piece.column, f"'{text}' is not a register r0..r{kind.count - 1}")
                    continue
                v = int(n)
            else:
                try:
                    v = evaluate(text, labels.get)
                except ExprError as e:
                    diags.error(line, piece.column + e.offset, e.message, e.hint)
                    continue
                if not kind.min <= v <= kind.max:
                    diags.error(line, piece.column, f"{op.name} = {v} is outside {kind.min}..{kind.max}")
                    continue
            values[op.name] = v
            lsb, width = d.format.fields[op.name]
            word |= (v & ((1 << width) - 1)) << lsb
        instrs.append(Instr(mn, values, line.number, text_of))
        words.append(word)
    diags.raise_if_any()
    return Program("toy", instrs, words, labels, source_name=source_name)


def disassemble(words: list[int]) -> str:
    isa = toy_isa()
    out = []
    for w in words:
        d = isa.by_opcode.get(w & ((1 << isa.opcode_width) - 1))
        if d is None:
            out.append(f".word 0x{w:08X}")
            continue
        ops = []
        for op in d.operands:
            lsb, width = d.format.fields[op.name]
            v = (w >> lsb) & ((1 << width) - 1)
            if op.kind.signed and v >> (width - 1):
                v -= 1 << width
            ops.append(f"{op.kind.prefix}{v}" if op.kind.is_register else str(v))
        out.append(f"{d.mnemonic} {', '.join(ops)}".strip())
    return "\n".join(out)
