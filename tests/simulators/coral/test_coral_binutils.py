"""Our assembler against GNU binutils: a large corpus made from the ISA data (every
instruction and pseudo-instruction, random operands in every written form, data
directives) must give byte-identical .text and .data/.rodata.

GNU's side is `riscv64-unknown-elf-as -march=rv32imf_zve32f -mno-relax` linked with a
script that places sections as our assembler does. Debian's
`binutils-riscv64-unknown-elf` provides the tools (scripts/install-system-deps.sh
installs it; CI has it)."""
import shutil
import subprocess

import pytest
from corpus import corpus

from kernelcraft.isa.coral import default_config
from kernelcraft.simulators.coral.assembler import assemble
from kernelcraft.simulators.coral.tables import memory_base

TOOLS = ("riscv64-unknown-elf-as", "riscv64-unknown-elf-ld", "riscv64-unknown-elf-objcopy")
missing = [t for t in TOOLS if shutil.which(t) is None]
pytestmark = pytest.mark.skipif(
    bool(missing), reason=f"GNU RISC-V binutils not installed ({', '.join(missing)}): "
    "apt-get install binutils-riscv64-unknown-elf (scripts/install-system-deps.sh)")

# Big enough for the corpus (about 2,200 instructions per seed).
CFG = default_config(ITCM_SIZE=1 << 20, DTCM_BASE=1 << 20)


def gnu(src: str, tmp_path) -> tuple[bytes, bytes]:
    base = memory_base(CFG, "dtcm")
    (tmp_path / "c.s").write_text(src)
    (tmp_path / "l.ld").write_text(
        f"SECTIONS {{ . = 0; .text : {{ *(.text) }} . = {base:#x}; "
        ".data : { *(.data) *(.sdata) } .rodata : { *(.rodata) *(.srodata) } "
        ".bss : { *(.bss) *(.sbss) } }\n")
    run = lambda *cmd: subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=tmp_path)  # noqa: E731
    run(TOOLS[0], "-march=rv32imf_zve32f", "-mabi=ilp32f", "-mno-relax", "-o", "c.o", "c.s")
    run(TOOLS[1], "-m", "elf32lriscv", "-T", "l.ld", "-o", "c.elf", "c.o")
    run(TOOLS[2], "-O", "binary", "-j", ".text", "c.elf", "t.bin")
    run(TOOLS[2], "-O", "binary", "-j", ".data", "-j", ".rodata", "c.elf", "d.bin")
    return (tmp_path / "t.bin").read_bytes(), (tmp_path / "d.bin").read_bytes()


def first_difference(ours: bytes, theirs: bytes, program, src: str) -> str:
    lines = src.split("\n")
    for i in range(0, min(len(ours), len(theirs)), 4):
        if ours[i:i + 4] != theirs[i:i + 4]:
            ins = program.instrs[i // 4]
            return (f"at 0x{i:x}: ours {ours[i:i + 4][::-1].hex()}, GNU {theirs[i:i + 4][::-1].hex()}; "
                    f"line {ins.line}: {lines[ins.line - 1].strip()}")
    return f"lengths differ: ours {len(ours)}, GNU {len(theirs)}"


@pytest.mark.parametrize("seed", [1, 2])
def test_corpus_is_byte_identical_to_gnu_as(seed, tmp_path):
    src = corpus(seed)
    program = assemble(src, "corpus.s", CFG)
    text, data = gnu(src, tmp_path)
    ours = b"".join(w.to_bytes(4, "little") for w in program.words)
    # GNU pads the end of .text to the section's alignment with nops; nothing else.
    padding = text[len(ours):]
    assert len(padding) % 4 == 0 and padding == bytes.fromhex("13000000") * (len(padding) // 4)
    assert ours == text[:len(ours)], first_difference(ours, text, program, src)
    assert program.data[0][2] == data
    assert len(program.words) > 2000


def test_corpus_covers_every_instruction_and_pseudo():
    src = corpus(1)
    from kernelcraft.isa.coral import isa
    written = {line.split()[0] for line in src.split("\n") if line and not line.endswith(":")
               and not line.startswith(".")}
    written |= {line.split(":", 1)[1].split()[0] for line in src.split("\n") if ":" in line
                and line.split(":", 1)[1].strip() and not line.split(":", 1)[1].strip().startswith(".")}
    assert set(isa().instructions) <= written
    assert set(isa().pseudos) <= written
