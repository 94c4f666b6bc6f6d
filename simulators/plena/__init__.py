"""plena: assembler, functional model and timing model of the PLENA-style matrix NPU."""
