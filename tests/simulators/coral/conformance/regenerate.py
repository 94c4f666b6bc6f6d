"""Regenerate expected.json from Spike (riscv-isa-sim), the independent reference.

    python tests/simulators/coral/conformance/regenerate.py --spike PATH/TO/spike [--check]

A developer tool, not a test or CI dependency: CI compares our model against the
committed expected.json. Needs GNU binutils for RISC-V (riscv64-unknown-elf-as, -ld;
scripts/install-system-deps.sh) and a Spike build. Building Spike once:

    # a checkout of riscv-software-src/riscv-isa-sim, then in it:
    apt-get install device-tree-compiler && mkdir build && cd build
    ../configure --prefix=$HOME/.cache/kernelcraft/spike && make -j2 && make install

(well over half an hour on 2 cores; keeping only the instruction lists coral needs in
riscv/riscv.mk.in, i c f m a v and priv, and building with CXXFLAGS=-O0 cuts it to about
twenty minutes). `--check` compares our model with Spike directly and writes nothing.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from harness import (DATA_BASE, EXPECTED, SPIKE_ISA, SPIKE_TEXT, bodies, differences,  # noqa: E402
                     run_model, signature_fields, wrap)

LINK = (f"ENTRY(_start) SECTIONS {{ . = {SPIKE_TEXT:#x}; .text : {{ *(.text) }} . = {DATA_BASE:#x}; "
        ".data : { *(.data) *(.sdata) } .rodata : { *(.rodata) *(.srodata) } "
        ".bss : { *(.bss) *(.sbss) } }\n")


def body_hash(body: str) -> str:
    return hashlib.sha256(body.encode()).hexdigest()[:16]


def run_spike(spike: str, body: str, name: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "p.s").write_text(wrap(body, "spike"))
        (d / "l.ld").write_text(LINK)
        sh = lambda *cmd: subprocess.run(cmd, cwd=d, capture_output=True, text=True, timeout=60)  # noqa: E731
        for cmd in (("riscv64-unknown-elf-as", "-march=rv32imf_zicsr_zve32f", "-mabi=ilp32f",
                     "-mno-relax", "-o", "p.o", "p.s"),
                    ("riscv64-unknown-elf-ld", "-m", "elf32lriscv", "-T", "l.ld", "-o", "p.elf", "p.o")):
            r = sh(*cmd)
            if r.returncode:
                raise RuntimeError(f"{name}: {cmd[0]} failed:\n{r.stderr}")
        r = sh(spike, f"--isa={SPIKE_ISA}", f"-m{DATA_BASE:#x}:0x100000,{SPIKE_TEXT:#x}:0x100000",
               "+signature=sig.txt", "+signature-granularity=4", "p.elf")
        if r.returncode or not (d / "sig.txt").exists():
            raise RuntimeError(f"{name}: spike failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
        words = [int(line, 16) for line in (d / "sig.txt").read_text().split()]
        return signature_fields(b"".join(w.to_bytes(4, "little") for w in words))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spike", required=True, help="path of the spike executable")
    ap.add_argument("--check", action="store_true", help="compare our model with Spike, write nothing")
    ap.add_argument("names", nargs="*", help="only these programs (default: all)")
    args = ap.parse_args(argv)
    programs = bodies()
    names = args.names or list(programs)
    expected = json.loads(EXPECTED.read_text()) if EXPECTED.exists() else {}
    bad = 0
    for name in names:
        body = programs[name]
        ref = run_spike(args.spike, body, name)
        ours = run_model(wrap(body, "model"), name)
        diff = differences(ours, ref)
        print(f"{name}: {'agrees' if not diff else 'DIFFERS'}")
        for line in diff:
            print("   ", line)
        bad += bool(diff)
        expected[name] = {"body_sha256": body_hash(body), "signature": ref}
    if not args.check:
        expected = {k: expected[k] for k in programs if k in expected}
        EXPECTED.write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")
        print(f"wrote {EXPECTED} ({len(expected)} programs)")
    print(f"{len(names) - bad} of {len(names)} programs agree with Spike")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
