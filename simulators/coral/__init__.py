"""coral: a RISC-V RV32IMF + RVV (Zve32f) core after Google's Coral NPU (isa/coral/)."""
