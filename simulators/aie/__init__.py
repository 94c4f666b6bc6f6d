"""aie: a VLIW SIMD tile after AMD's AI Engine, with DMA channels and locks (isa/aie/)."""
