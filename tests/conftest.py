"""Single-threaded BLAS while the tests run.

The references are many small matrix products; on a shared two-core machine OpenBLAS
threads make them about ten times slower. numpy may already be imported by another
conftest, so the thread count of numpy's bundled OpenBLAS is set (and restored) through
its C interface; if that library is not found the tests simply run at the default.

glibc's allocator is also told to keep freed blocks below 32 MB in its heap (M_MMAP_THRESHOLD
fixed at 32 MB, M_TRIM_THRESHOLD 256 MB): the models allocate and free large arrays in
every run, which glibc by default maps and unmaps each time (above its 128 kB starting
threshold), and the kernel's page faults on them were most of the system time, 37 of
tests/simulators' 102 CPU s (Dec 6): with this, half the page faults on a sample.
Each process that loads this file (the xdist workers, the controller) sets it; other
C libraries and the simulators' subprocesses are not touched."""
import ctypes
import glob
import os

import numpy as np
import pytest


def _openblas():
    libs = os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy.libs")
    for path in glob.glob(os.path.join(libs, "libscipy_openblas*.so")):
        lib = ctypes.CDLL(path)
        get = getattr(lib, "scipy_openblas_get_num_threads64_", None)
        put = getattr(lib, "scipy_openblas_set_num_threads64_", None)
        if get and put:
            return get, put
    return None


def _keep_freed_memory():
    try:
        libc = ctypes.CDLL("libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):        # not glibc: leave the allocator alone
        return
    M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
    mallopt(M_MMAP_THRESHOLD, 32 << 20)
    mallopt(M_TRIM_THRESHOLD, 256 << 20)


_keep_freed_memory()


@pytest.fixture(autouse=True, scope="session")
def single_threaded_blas():
    found = _openblas()
    if found is None:
        yield
        return
    get, put = found
    before = get()
    put(ctypes.c_int(1))
    yield
    put(ctypes.c_int(before))
