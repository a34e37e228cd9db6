"""Build C sources with the system compiler, cached by content.

    lib = build(host_kernel_sources(), kind="shared")           # -> Path of a .so
    exe = build([main_c, *simulator_sources()], kind="exe", sanitize=True)

Flags are always `-std=c99 -O2 -Wall -Wextra -Werror` (plus `-fsanitize=address,undefined
-fno-omit-frame-pointer -fno-sanitize-recover=all` with `sanitize=True`, so that undefined
behaviour aborts instead of printing and carrying on). The result is cached in a
directory keyed by a hash of the compiler, the flags, every source and every header in
the include directories (and next to the sources), so an unchanged build is a file
lookup; outputs are written under a temporary name and renamed, so concurrent builds
(pytest-xdist) never see a half-written file. A failed compile raises `CompileError`
carrying the compiler's first error line.

The C sources shipped with the package: `host_kernels.c` (every relay op on host memory,
header `host_kernels.h`) and the simulator of the built-in accelerators (`sim/`: the
generic core `sim_core.c` and one API file per target, headers `npu.h`, `dsp.h`).
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

from compiler.diagnostics import CompileError, one_line

C_DIR = Path(__file__).resolve().parent / "c"
SIM_DIR = C_DIR / "sim"
INCLUDE_DIRS: tuple[Path, ...] = (C_DIR, SIM_DIR)

BASE_FLAGS = ("-std=c99", "-O2", "-Wall", "-Wextra", "-Werror")
SANITIZE_FLAGS = ("-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-fno-sanitize-recover=all")
KINDS = ("shared", "exe", "object")


def host_kernel_sources() -> list[Path]:
    """The host kernel library (header: `host_kernels.h` in `C_DIR`)."""
    return [C_DIR / "host_kernels.c"]


def simulator_sources() -> list[Path]:
    """The simulator of every built-in target; it uses the host kernels for the
    arithmetic, so they are included."""
    return [SIM_DIR / "sim_core.c", SIM_DIR / "npu.c", SIM_DIR / "dsp.c", *host_kernel_sources()]


def cache_dir() -> Path:
    """`$ACCEL_CACHE_DIR/cbuild`, else a per-user directory in the system temp dir."""
    root = os.environ.get("ACCEL_CACHE_DIR")
    base = Path(root) if root else Path(tempfile.gettempdir()) / f"accel-cache-{os.getuid()}"
    return base / "cbuild"


def compiler_command() -> list[str]:
    """`$CC` (which may carry flags) or `cc`."""
    return shlex.split(os.environ.get("CC", "cc")) or ["cc"]


def build(
    sources: Sequence[str | Path],
    *,
    kind: str = "shared",
    sanitize: bool = False,
    include_dirs: Iterable[str | Path] = INCLUDE_DIRS,
    defines: Iterable[str] = (),
    extra_flags: Iterable[str] = (),
    libs: Iterable[str] = ("m",),
    name: str | None = None,
) -> Path:
    """Compile and link `sources` into a shared library (`kind="shared"`), an executable
    (`"exe"`) or one object file (`"object"`, a single source); returns its path in the
    cache. `defines` are `NAME` or `NAME=VALUE`; `name` only makes the cached file
    name readable."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    srcs = [Path(s).resolve() for s in sources]
    if not srcs:
        raise CompileError("no C sources to build")
    if kind == "object" and len(srcs) != 1:
        raise CompileError("an object file is built from exactly one source")
    for s in srcs:
        if not s.is_file():
            raise CompileError(f"C source '{s}' does not exist")
    incs = [Path(d).resolve() for d in include_dirs]
    cc = compiler_command()
    if shutil.which(cc[0]) is None:
        raise CompileError(f"C compiler '{cc[0]}' not found (set CC or install cc)")
    flags = [*BASE_FLAGS, *(SANITIZE_FLAGS if sanitize else ()), *extra_flags]
    flags += [f"-D{d}" for d in defines]
    flags += [f"-I{d}" for d in incs]
    if kind == "shared":
        flags += ["-shared", "-fPIC"]
    elif kind == "object":
        flags += ["-c"]
    link = [f"-l{lib}" for lib in libs] if kind != "object" else []

    key = _cache_key(cc, flags, link, srcs, incs)
    suffix = {"shared": ".so", "exe": "", "object": ".o"}[kind]
    out_dir = cache_dir()
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = (name or srcs[0].stem) + ("-asan" if sanitize else "")
    out = out_dir / f"{stem}-{key[:20]}{suffix}"
    if out.exists():
        return out

    fd, tmp_name = tempfile.mkstemp(prefix=out.name + ".", suffix=".tmp", dir=out_dir)
    os.close(fd)
    tmp = Path(tmp_name)
    cmd = [*cc, *flags, *map(str, srcs), "-o", str(tmp), *link]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise CompileError(f"C compilation failed: {_first_error(proc.stderr or proc.stdout)}")
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
    return out


def _cache_key(cc: list[str], flags: list[str], link: list[str], srcs: list[Path], incs: list[Path]) -> str:
    h = hashlib.sha256()
    h.update(_compiler_identity(cc).encode())
    for part in (*flags, "|", *link, "|"):
        h.update(part.encode() + b"\0")
    for s in srcs:  # by name and content: a generated source in a fresh temp dir still hits the cache
        h.update(s.name.encode() + b"\0" + s.read_bytes() + b"\0")
    # Headers the sources may include: everything in the include dirs and next to
    # the sources (a superset keeps the key correct without running the preprocessor).
    header_dirs = sorted({*incs, *(s.parent for s in srcs)})
    for d in header_dirs:
        if not d.is_dir():
            continue
        for hdr in sorted(d.glob("*.h")):
            h.update(str(hdr).encode() + b"\0" + hdr.read_bytes() + b"\0")
    return h.hexdigest()


_IDENTITY: dict[tuple[str, ...], str] = {}


def _compiler_identity(cc: list[str]) -> str:
    """The compiler's path and version line (cached per process)."""
    k = tuple(cc)
    if k not in _IDENTITY:
        try:
            proc = subprocess.run([*cc, "--version"], capture_output=True, text=True)
            first = (proc.stdout or proc.stderr).splitlines()[:1]
        except OSError:
            first = []
        _IDENTITY[k] = f"{shutil.which(cc[0])} {' '.join(cc[1:])} {first[0] if first else ''}"
    return _IDENTITY[k]


def _first_error(output: str) -> str:
    """The compiler's first line that reports an error (else its first line)."""
    lines = [ln for ln in output.splitlines() if ln.strip()]
    for ln in lines:
        if "error:" in ln or "undefined reference" in ln:
            return one_line(ln)
    return one_line(lines[0]) if lines else "the compiler failed without a message"
