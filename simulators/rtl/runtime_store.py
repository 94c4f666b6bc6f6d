"""The runtime store: Verilator's runtime objects (verilated.o, verilated_vpi.o, ... the
.cpp files of $VERILATOR_ROOT/include), compiled once per toolchain instead of once per
design. objcache.sh runs this (python -S -E: the standard library only) for such a
compile, with the compile's own command line:

    runtime_store.py c++ -O2 ... -c -o verilated.o .../include/verilated.cpp

The object is looked up in $KERNELCRAFT_RUNTIME_STORE under a key made of the command
line (the -o target left out), the compiler executable (its resolved path, size and
mtime), the source's contents and the contents of every header in the source's
directory (the wheel's include/); a miss compiles it there (under $KERNELCRAFT_CCACHE if
set) and files it; either way it is copied to the -o target. A per-key lock lets a build
wait for another process compiling the same object (toolchain.build starts the runtime's
compile beside Verilator's run, so it is ready when the model's make asks for it).
Without ccache, every design build used to compile the runtime again (12.4 CPU s of
plena's default build, about 14% of it).
"""
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys


def _compiler_identity(exe):
    path = shutil.which(exe) or exe
    real = os.path.realpath(path)
    st = os.stat(real)
    return f"{real}:{st.st_size}:{st.st_mtime_ns}"


def key_of(cmd):
    out = cmd.index("-o") if "-o" in cmd else None
    line = [a for i, a in enumerate(cmd) if out is None or i not in (out, out + 1)]
    src = next(a for a in reversed(cmd) if a.endswith(".cpp"))
    h = hashlib.sha256()
    for part in (*line, "\0", _compiler_identity(cmd[0])):
        h.update(f"{len(part)}:{part};".encode())
    inc = os.path.dirname(os.path.abspath(src))
    for name in sorted(os.listdir(inc)):
        if name.endswith((".h", ".hpp")) or name == os.path.basename(src):
            with open(os.path.join(inc, name), "rb") as f:
                data = f.read()
            h.update(f"{name}:{len(data)}:".encode())
            h.update(data)
    return os.path.basename(src)[:-4] + "-" + h.hexdigest()[:24], src


def main(cmd):
    store = os.environ["KERNELCRAFT_RUNTIME_STORE"]
    ccache = os.environ.get("KERNELCRAFT_CCACHE", "").split()
    key, src = key_of(cmd)
    target = cmd[cmd.index("-o") + 1] if "-o" in cmd else os.path.basename(src)[:-4] + ".o"
    os.makedirs(store, exist_ok=True)
    obj = os.path.join(store, key + ".o")
    with open(os.path.join(store, key + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.isfile(obj):
            how = "reused"
        else:
            tmp = os.path.join(store, f".{key}.tmp{os.getpid()}.o")
            if "-o" in cmd:
                i = cmd.index("-o")
                compile_cmd = [*cmd[:i + 1], tmp, *cmd[i + 2:]]
            else:
                compile_cmd = [*cmd, "-o", tmp]
            rc = subprocess.call([*ccache, *compile_cmd])
            for f in (tmp[:-2] + ".d",):
                if os.path.exists(f):
                    os.unlink(f)
            if rc != 0:
                if os.path.exists(tmp):
                    os.unlink(tmp)
                return rc
            os.replace(tmp, obj)
            how = "compiled"
    if os.path.abspath(target) != os.path.abspath(obj):
        shutil.copyfile(obj, target + ".tmp")
        os.replace(target + ".tmp", target)
    print(f"kernelcraft runtime store: {how} {os.path.basename(target)} ({key})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
