"""The plena RTL (rtl/plena) as a simulators.core Backend: PlenaRTL in backend.py.

build.py     what the RTL is built from; cached Verilator builds per configuration
generate.py  the RTL's generated headers (decode constants, parameters) from isa/plena
jobs.py      the files a job is made of (program, memories in; memories, state out)
trace.py     the RTL's retirement trace as TraceStep records; per-step writes
compare.py   model vs RTL: end states, and traces instruction by instruction
randprog.py  random valid programs and images for differential testing
params.py    the RTL's top-level parameters, read with pyverilog
bench.py     simulation speed and build times
"""
