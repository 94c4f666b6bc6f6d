"""Assembler directives of coral: sections, constants, data and alignment.

Sizes are fixed in pass 1 (`directive_pass1`); bytes are written in pass 2
(`emit_data`). Part of `_Assembler` (assembler.py)."""
from __future__ import annotations

from kernelcraft.simulators.core import asmtext
from kernelcraft.simulators.core.asmtext import Piece, clip, suggest
from kernelcraft.simulators.core.program import Instr

from .source import float_bits, parse_string

NOP = 0x00000013
SECTIONS = {".text": "text", ".data": "data", ".sdata": "data", ".rodata": "rodata",
            ".srodata": "rodata", ".bss": "bss", ".sbss": "bss"}
DATA_ORDER = ("data", "rodata", "bss")
DATA_SIZES = {".byte": 1, ".half": 2, ".short": 2, ".2byte": 2, ".word": 4, ".long": 4,
              ".4byte": 4, ".float": 4}
IGNORED = (".globl", ".global", ".local", ".type", ".size", ".file", ".ident", ".attribute",
           ".weak", ".hidden", ".cfi_startproc", ".cfi_endproc", ".addrsig")
DIRECTIVES = (".text", ".data", ".rodata", ".bss", ".section", ".equ", ".set", ".byte", ".half",
              ".short", ".2byte", ".word", ".long", ".4byte", ".float", ".zero", ".space", ".skip",
              ".string", ".asciz", ".ascii", ".fill", ".align", ".p2align", ".balign", ".option") + IGNORED


class DirectiveMixin:
    def directive_pass1(self, item, name: str, args: str) -> str:
        line, section = item.stmt.line, item.section
        at = item.args_at
        if name in SECTIONS or name == ".section":
            target = name
            if name == ".section":
                words = args.split(",")[0].strip()
                target = words
                if target not in SECTIONS:
                    self.diags.error(line, at + 1, f"unknown section '{clip(target)}'",
                                     "sections: .text (ITCM), .data, .rodata, .bss (DTCM)")
                    return section
            return SECTIONS[target]
        if name not in DIRECTIVES:
            near = suggest(name, DIRECTIVES)
            self.diags.error(line, item.pos + 1, f"unknown directive '{clip(name)}'",
                             (f"did you mean {near[0]}? " if near else "") +
                             "see the manual's 'Assembler syntax' for the directives coral supports")
            item.kind = "bad"
            return section
        pieces, problems = asmtext.split_operands(args, at) if name not in (".string", ".asciz", ".ascii") \
            else (self.string_pieces(args, at), [])
        for pc, msg in problems:
            self.diags.error(line, pc, msg, f"{name} takes comma-separated values")
        item.pieces = pieces
        item.offset = self.loc[section]
        if name in (".equ", ".set"):
            if len(pieces) != 2:
                self.diags.error(line, item.pos + 1, f"{name} takes a name and a value",
                                 f"write `{name} NAME, expression`")
            else:
                self.later_constants.setdefault(pieces[0].text, line.number)
                self.define_constant(item, pieces[0].text, pieces[0].column, pieces[1])
            return section
        if name in IGNORED:
            return section
        if name == ".option":
            opt = args.strip().lower()
            if opt == "rvc":
                self.diags.error(line, at + 1, "compressed instructions are not supported",
                                 "coral has no C extension: remove `.option rvc`")
            elif opt not in ("norvc", "push", "pop", "relax", "norelax", "pic", "nopic"):
                self.diags.error(line, at + 1, f"unknown .option '{clip(opt)}'",
                                 "accepted: norvc, push, pop, relax, norelax, pic, nopic")
            return section
        size = self.data_size(item, name, pieces, section)
        item.size = size
        self.loc[section] += size
        return section

    def string_pieces(self, args: str, at: int) -> list[Piece]:
        out, i, n = [], 0, len(args)
        while i < n:
            while i < n and args[i] in " \t,":
                i += 1
            if i >= n:
                break
            j = i
            if args[i] == '"':
                j = i + 1
                while j < n and args[j] != '"':
                    j += 2 if args[j] == "\\" else 1
                j += 1
            else:
                while j < n and args[j] != ",":
                    j += 1
            out.append(Piece(args[i:j].strip(), at + i))
            i = j
        return out

    def data_size(self, item, name: str, pieces: list[Piece], section: str) -> int:
        line = item.stmt.line
        if section == "text" and name not in (".word", ".4byte", ".long", ".fill", ".align", ".p2align", ".balign"):
            self.diags.error(line, item.pos + 1, f"{name} in .text",
                             "only instructions, .word and alignment belong in .text: put data in .data "
                             "or .rodata")
            item.kind = "bad"
            return 0
        if section == "bss" and name not in (".zero", ".space", ".skip", ".fill", ".align", ".p2align", ".balign"):
            self.diags.error(line, item.pos + 1, f"{name} in .bss",
                             ".bss holds only zero-filled space (.zero N): put initialised data in .data")
            item.kind = "bad"
            return 0
        if name in DATA_SIZES:
            if not pieces:
                self.diags.error(line, item.pos + 1, f"{name} needs at least one value", f"e.g. `{name} 1, 2, 3`")
            return DATA_SIZES[name] * len(pieces)
        if name == ".fill":
            return self.fill_size(item, pieces, section)
        if name in (".string", ".asciz", ".ascii"):
            total = 0
            for p in pieces:
                data, problem = parse_string(p.text)
                if data is None:
                    self.diags.error(line, p.column, problem, f'e.g. {name} "text"')
                    continue
                total += len(data) + (name != ".ascii")
            return total
        if name in (".zero", ".space", ".skip"):
            if len(pieces) not in (1, 2) or (name == ".zero" and len(pieces) != 1):
                self.diags.error(line, item.pos + 1, f"{name} takes a size" + (", fill" if name != ".zero" else ""),
                                 f"e.g. `{name} 64`")
                return 0
            n = self.expression(line, pieces[0])
            if n is None:
                return 0
            if n < 0 or n > 1 << 26:
                self.diags.error(line, pieces[0].column, f"{name} size {n} is not in 0..{1 << 26}", "")
                return 0
            return n
        # alignment
        if not 1 <= len(pieces) <= 2:
            self.diags.error(line, item.pos + 1, f"{name} takes an alignment", f"e.g. `{name} 2`")
            return 0
        n = self.expression(line, pieces[0])
        if n is None:
            return 0
        if name == ".balign":
            if n <= 0 or n & (n - 1):
                self.diags.error(line, pieces[0].column, f".balign {n}: the alignment must be a power of two",
                                 "e.g. .balign 16")
                return 0
            boundary = n
        else:
            if not 0 <= n <= 16:
                self.diags.error(line, pieces[0].column, f"{name} {n}: give the power of two (0..16)",
                                 f"`{name} 4` aligns to 16 bytes")
                return 0
            boundary = 1 << n
        self.align[section] = max(self.align[section], boundary)
        off = self.loc[section]
        return -off % boundary

    def fill_args(self, item, pieces: list[Piece]) -> tuple[int, int, int] | None:
        """(repeat, size, value) of `.fill repeat[, size[, value]]`, GNU's defaults size 1, value 0."""
        line = item.stmt.line
        if not 1 <= len(pieces) <= 3:
            self.diags.error(line, item.pos + 1, ".fill takes repeat[, size[, value]]", "e.g. `.fill 16, 4, 0xdeadbeef`")
            return None
        vals = [self.expression(line, p) for p in pieces]
        if any(v is None for v in vals):
            return None
        repeat, size, value = (vals + [1, 0][len(vals) - 1:])[:3]
        if not 0 <= repeat <= 1 << 24:
            self.diags.error(line, pieces[0].column, f".fill repeat {repeat} is not in 0..{1 << 24}", "")
            return None
        if not 0 <= size <= 8:
            self.diags.error(line, pieces[1].column, f".fill size {size} is not in 0..8", "")
            return None
        if not -(1 << 31) <= value < 1 << 32:
            self.diags.error(line, pieces[2].column, f".fill value {value} does not fit 32 bits", "")
            return None
        return repeat, size, value

    def fill_size(self, item, pieces: list[Piece], section: str) -> int:
        args = self.fill_args(item, pieces)
        if args is None:
            return 0
        repeat, size, value = args
        line = item.stmt.line
        if section == "text" and repeat * size % 4:
            self.diags.error(line, item.pos + 1, f".fill of {repeat * size} bytes in .text",
                             "in .text fill whole 4-byte words, e.g. `.fill 4, 4, 0x00000013`")
            return 0
        if section == "bss" and value & ((1 << 8 * min(size, 4)) - 1):
            self.diags.error(line, item.pos + 1, ".fill with a non-zero value in .bss",
                             ".bss holds only zero-filled space: put initialised data in .data")
            return 0
        return repeat * size

    def define_constant(self, item, name: str, col: int, value: Piece) -> None:
        line = item.stmt.line
        bad = self.name_problem(name)
        if bad:
            self.diags.error(line, col, f"bad constant name: {bad}", "write `.equ NAME, expression`")
            return
        if name in self.labels:
            self.diags.error(line, col, f"'{name}' is already a label (line {self.label_lines[name]})",
                             "each name may be defined once")
            return
        v = self.expression(line, value, item.seq)
        if v is not None:
            self.constants[name] = v        # .set may redefine; the last definition wins
            self.constant_lines.setdefault(name, line.number)

    def emit_data(self, item) -> None:
        name, line = item.name, item.stmt.line
        if item.size == 0 and name not in DATA_SIZES:
            return
        section = item.section
        if name in (".align", ".p2align", ".balign"):
            fill = 0
            if len(item.pieces) == 2:
                fill = self.expression(line, item.pieces[1]) or 0
            if section == "text":
                for _ in range(item.size // 4):
                    self.add_word(NOP, Instr("addi", {"rd": 0, "rs1": 0, "imm": 0}, line.number,
                                             "nop  (alignment)"))
            else:
                self.put(section, item.offset, bytes([fill & 0xFF]) * item.size)
            return
        if name in (".zero", ".space", ".skip"):
            if len(item.pieces) == 2 and section != "bss":
                fill = self.expression(line, item.pieces[1]) or 0
                self.put(section, item.offset, bytes([fill & 0xFF]) * item.size)
            return
        if name in (".string", ".asciz", ".ascii"):
            out = bytearray()
            for p in item.pieces:
                data, _ = parse_string(p.text)
                if data is not None:
                    out += data + (b"\0" if name != ".ascii" else b"")
            self.put(section, item.offset, bytes(out))
            return
        out = bytearray()
        if name == ".fill":
            repeat, size, value = self.fill_args(item, item.pieces)
            # GNU: each copy is the low `size` bytes of an 8-byte number whose high 4 bytes are 0.
            out += ((value & 0xFFFFFFFF).to_bytes(8, "little")[:size]) * repeat
            if section == "bss":
                return
            self.emit_bytes(section, item, line, out)
            return
        width = DATA_SIZES[name]
        for p in item.pieces:
            self.here = self.base[section] + item.offset + len(out)
            if name == ".float":
                bits = float_bits(p.text)
                if bits is None:
                    self.error(line, p.column, f"'{clip(p.text)}' is not a floating-point number",
                               "write a decimal number, e.g. 1.5, -2e-3, 6.02e23, inf or nan")
                    bits = 0
                out += bits.to_bytes(4, "little")
                continue
            v = self.expression(line, p)
            lo, hi = -(1 << (8 * width - 1)), (1 << 8 * width) - 1
            if v is not None and not lo <= v <= hi:
                self.error(line, p.column, f"{name} value {v} does not fit {8 * width} bits ({lo}..{hi})", "")
                v = None
            out += ((v or 0) & ((1 << 8 * width) - 1)).to_bytes(width, "little")
        self.emit_bytes(section, item, line, out)

    def emit_bytes(self, section: str, item, line, out: bytes) -> None:
        """Data bytes at the item's place; in .text each word is decoded (or kept as .word)."""
        if section == "text":
            from .encoding import decode
            for k in range(0, len(out), 4):
                w = int.from_bytes(out[k:k + 4], "little")
                try:
                    ins = decode(w, len(self.words))
                    self.add_word(w, Instr(ins.mnemonic, ins.ops, line.number, f"{ins.text}  (.word)"))
                except Exception:
                    self.add_word(w, Instr(".word", {"value": w}, line.number, f".word 0x{w:08x}"))
        else:
            self.put(section, item.offset, bytes(out))

    def put(self, section: str, offset: int, data: bytes) -> None:
        self.bytes[section][offset:offset + len(data)] = data
