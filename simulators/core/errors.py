"""The project's errors, defined in isa/errors.py (the lowest layer, which the ISA
loader also raises from); simulators import them from here."""
from kernelcraft.isa.errors import (AsmDiagnostic, AssemblyError, BudgetExceeded, ConfigError,
                                    DecodeError, IllegalOperandError, KernelCraftError,
                                    MemoryAccessError, SimError, TimeLimitExceeded, Where)

__all__ = ["AsmDiagnostic", "AssemblyError", "BudgetExceeded", "ConfigError", "DecodeError",
           "IllegalOperandError", "KernelCraftError", "MemoryAccessError", "SimError",
           "TimeLimitExceeded", "Where"]
