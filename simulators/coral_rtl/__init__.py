"""The coral RTL (rtl/coral) as a simulators.core Backend: CoralRTL in backend.py.

build.py     what the RTL is built from; cached Verilator builds per configuration
jobs.py      the files a job is made of (load list in; registers, DTCM, state out)
trace.py     the RTL's retirement trace as the model's TraceStep records
compare.py   model vs RTL: end states, and traces instruction by instruction
"""
