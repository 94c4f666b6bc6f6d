"""Single-threaded BLAS while the tests run.

The references are many small matrix products; on a shared two-core machine OpenBLAS
threads make them about ten times slower. numpy may already be imported by another
conftest, so the thread count of numpy's bundled OpenBLAS is set (and restored) through
its C interface; if that library is not found the tests simply run at the default."""
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
