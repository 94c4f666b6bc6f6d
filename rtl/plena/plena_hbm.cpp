// HBM model of the plena RTL (DPI-C): the contents of HBM live in a file the host
// writes before a run and reads after it, mapped into memory for the run. The RTL
// checks every address before it calls in here and moves whole rows, so these
// functions only copy. bf16 elements are little-endian uint16 in the file; a Verilog
// bit vector passed through DPI is an array of 32-bit words, least significant first,
// so element i of a row sits at byte 2*i on both sides.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "svdpi.h"

namespace {
unsigned char* base = nullptr;
size_t bytes = 0;
}

extern "C" int plena_hbm_open(const char* path, long long elements) {
    int fd = open(path, O_RDWR);
    if (fd < 0) {
        std::fprintf(stderr, "plena_hbm_open: cannot open %s: %s\n", path, std::strerror(errno));
        return 1;
    }
    struct stat st;
    bytes = static_cast<size_t>(elements) * 2;
    if (fstat(fd, &st) != 0 || static_cast<size_t>(st.st_size) != bytes) {
        std::fprintf(stderr, "plena_hbm_open: %s holds %lld bytes; HBM_SIZE needs %zu\n", path,
                     static_cast<long long>(st.st_size), bytes);
        close(fd);
        return 1;
    }
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        std::fprintf(stderr, "plena_hbm_open: mmap of %s failed: %s\n", path, std::strerror(errno));
        return 1;
    }
    base = static_cast<unsigned char*>(p);
    return 0;
}

extern "C" int plena_hbm_close() {
    if (base == nullptr) return 0;
    int rc = msync(base, bytes, MS_SYNC);
    munmap(base, bytes);
    base = nullptr;
    return rc;
}

extern "C" void plena_hbm_read(long long addr, int n, svBitVecVal* data) {
    std::memcpy(data, base + 2 * addr, 2 * static_cast<size_t>(n));
}

extern "C" void plena_hbm_write(long long addr, int n, const svBitVecVal* data) {
    std::memcpy(base + 2 * addr, data, 2 * static_cast<size_t>(n));
}
