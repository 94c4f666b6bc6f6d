"""toy's assembler and functional model (on simulators/core's run loop)."""
