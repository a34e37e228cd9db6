"""Build C sources with the system compiler, cached by content.

    lib = build(host_kernel_sources(), kind="shared")           # -> Path of a .so
    exe = build([main_c, *simulator_sources()], kind="exe", sanitize=True)

Flags are always `-std=c99 -O2 -Wall -Wextra -Werror` (plus `-fsanitize=address,undefined,
float-cast-overflow -fno-omit-frame-pointer -fno-sanitize-recover=all` with `sanitize=True`,
so that undefined behaviour aborts instead of printing and carrying on). Each source is
compiled to an object cached under a hash of the compiler, the flags, the source and
every header and `.inc` file in the include directories (and next to the source); the link is cached
under the hash of its objects. An unchanged build is a file lookup, and the runtime
sources are compiled once per flag set whatever program links them. The cache is bounded
(`$ACCEL_CACHE_MAX_MB`, 2 GiB): past it, the least recently used files go. Outputs are written
under a temporary name and renamed, so concurrent builds (pytest-xdist) never see a
half-written file. A failed compile raises `CompileError` carrying the compiler's first
error line.

The C sources shipped with the package: `host_kernels.c` (every relay op on host memory,
header `host_kernels.h`) with its matrix products `host_gemm.c` (CBLAS or a blocked GEMM:
`host_runtime()` probes which, and `-march=native`, once per process) and the simulator of the built-in accelerators (`sim/`: the
generic core `sim_core.c` and one API file per target, headers `npu.h`, `dsp.h`).
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from accel.compiler.c_runtime_dir import C_DIR, SIM_DIR
from accel.compiler.diagnostics import CompileError, one_line

INCLUDE_DIRS: tuple[Path, ...] = (C_DIR, SIM_DIR)

BASE_FLAGS = ("-std=c99", "-O2", "-Wall", "-Wextra", "-Werror")
SANITIZE_FLAGS = (
    "-fsanitize=address,undefined,float-cast-overflow",
    "-fno-omit-frame-pointer",
    "-fno-sanitize-recover=all",
)
KINDS = ("shared", "exe", "object")


def host_kernel_sources() -> list[Path]:
    """The host kernel library (headers: `host_kernels.h`, `host_gemm.h` in `C_DIR`)."""
    return [C_DIR / "host_kernels.c", C_DIR / "host_gemm.c", C_DIR / "host_narrow.c"]


HOST_BLAS_ENV = "ACCEL_HOST_BLAS"
"""`0` builds the host kernels on their own blocked GEMM even where CBLAS links."""
HOST_OPT_FLAGS = ("-O3",)
CBLAS_DEFINE = "ACC_HAVE_CBLAS"
CBLAS_LIBS = ("-lopenblas",)
_CBLAS_PROBE = """#include <cblas.h>
int main(void) {
    float a = 1, b = 1, c = 0;
    openblas_set_num_threads(1);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1, 1, 1, 1.0f, &a, 1, &b, 1, 0.0f, &c, 1);
    return c != 1;
}
"""


@dataclass(frozen=True)
class HostRuntime:
    """How the host kernels build on this machine: `cflags` for every C file of a model
    (optimization, `-march=native` where the compiler takes it, `-DACC_HAVE_CBLAS` where
    a cblas program links) and `link_flags` (`-lopenblas`)."""

    cflags: tuple[str, ...]
    link_flags: tuple[str, ...]

    @property
    def uses_cblas(self) -> bool:
        return f"-D{CBLAS_DEFINE}" in self.cflags


_HOST_RUNTIME: dict[tuple[tuple[str, ...], bool], HostRuntime] = {}


def host_runtime(blas: bool | None = None) -> HostRuntime:
    """The probed build of the host kernels (cached per process and compiler). `blas`:
    None follows `$ACCEL_HOST_BLAS` (default: CBLAS where it links); False never uses it;
    True requires it (CompileError naming libopenblas-dev when it does not link)."""
    if blas is None and os.environ.get(HOST_BLAS_ENV) == "0":
        blas = False
    cc = compiler_command()
    key = (tuple(cc), blas is not False)
    if key not in _HOST_RUNTIME:
        # Where the CBLAS program builds with -march=native, both probes pass: one
        # compiler run instead of two (each ~50 ms of every accel-compile's wall time).
        native = cblas = blas is not False and _compiles(cc, _CBLAS_PROBE, ["-march=native"], CBLAS_LIBS)
        if not native:
            native = _compiles(cc, "int main(void) { return 0; }\n", ["-march=native"])
            cblas = blas is not False and _compiles(cc, _CBLAS_PROBE, [], CBLAS_LIBS)
        flags = [*HOST_OPT_FLAGS, *(["-march=native"] if native else [])]
        links: tuple[str, ...] = ()
        if cblas:
            flags.append(f"-D{CBLAS_DEFINE}")
            links = CBLAS_LIBS
        _HOST_RUNTIME[key] = HostRuntime(tuple(flags), links)
    runtime = _HOST_RUNTIME[key]
    if blas is True and not runtime.uses_cblas:
        raise CompileError("CBLAS does not link (cblas.h and -lopenblas): install libopenblas-dev")
    return runtime


def _compiles(cc: list[str], program: str, flags: list[str], libs: Sequence[str] = ()) -> bool:
    """Whether `program` compiles and links with `flags` and `libs` (-Werror: a flag the
    compiler only warns about counts as refused)."""
    with tempfile.TemporaryDirectory(prefix="accel-probe-") as tmp:
        src = Path(tmp) / "probe.c"
        src.write_text(program)
        try:
            proc = subprocess.run([*cc, *BASE_FLAGS, *flags, str(src), "-o", str(Path(tmp) / "probe"), *libs],
                                  capture_output=True, text=True)
        except OSError:
            return False
        return proc.returncode == 0


def simulator_sources() -> list[Path]:
    """The simulator of every built-in target; it uses the host kernels for the
    arithmetic, so they are included."""
    return [SIM_DIR / "sim_core.c", SIM_DIR / "npu.c", SIM_DIR / "dsp.c", *host_kernel_sources()]


CACHE_LIMIT_ENV = "ACCEL_CACHE_MAX_MB"
"""The cache's size bound in MiB (default 2048): every compiled model is a new program,
so without one the cache grows with every compile (54 GB after a day of test runs)."""
CACHE_LIMIT_MB = 2048
PRUNE_INTERVAL_S = 60.0
"""At most one size check per this many seconds (a marker file's age), whatever the processes."""
EVICT_AFTER_S = 600.0
"""Only files unused this long are evicted: a build in flight (another process's lookup,
then its link) uses files it touched moments ago."""


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
    link_flags: Iterable[str] = (),
    name: str | None = None,
) -> Path:
    """Compile and link `sources` into a shared library (`kind="shared"`), an executable
    (`"exe"`) or one object file (`"object"`, a single source); returns its path in the
    cache. Every source is compiled to its own cached object first, so a library shared
    by many programs (the runtime) is compiled once per flag set. `defines` are `NAME`
    or `NAME=VALUE`; `extra_flags` go to the compiler and the linker; `name` only makes
    the cached file name readable; `link_flags` (libraries, `-L`/`-l` flags) go after
    the objects on the link line."""
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
    extra = list(extra_flags)
    common = [*BASE_FLAGS, *(SANITIZE_FLAGS if sanitize else ()), *extra]
    cflags = [*common, *(f"-D{d}" for d in defines), *(f"-I{d}" for d in incs)]
    if kind == "shared":
        cflags.append("-fPIC")
    suffix = "-asan" if sanitize else ""

    objects = []
    for s in srcs:
        if s.suffix == ".o":  # already compiled
            objects.append(s)
            continue
        key = _cache_key(cc, cflags, [s], incs)
        obj = _cached(f"{s.stem}{suffix}-{key[:20]}.o")
        if not _hit(obj):
            _run(cc, [*cflags, "-c", str(s)], obj)
        objects.append(obj)
    if kind == "object":
        return objects[0]

    lflags = [*common, *(["-shared"] if kind == "shared" else [])]
    link = [*link_flags, *(f"-l{lib}" for lib in libs)]
    key = _cache_key(cc, [*lflags, "|", *link], objects, [])
    out = _cached(f"{name or srcs[0].stem}{suffix}-{key[:20]}{'.so' if kind == 'shared' else ''}")
    if not _hit(out):
        _run(cc, [*lflags, *map(str, objects)], out, link)
        prune_cache()
    return out


def _hit(path: Path) -> bool:
    """Whether `path` is in the cache; a hit is marked used now (eviction is least
    recently used first)."""
    try:
        os.utime(path)
    except FileNotFoundError:
        return False
    except OSError:
        return path.exists()
    return True


def prune_cache(limit_mb: float | None = None, now: float | None = None) -> int:
    """Keeps the cache under `limit_mb` (default `$ACCEL_CACHE_MAX_MB` or CACHE_LIMIT_MB):
    when it is over, removes the least recently used files unused for EVICT_AFTER_S until
    it is under three quarters of it. Checked at most once per PRUNE_INTERVAL_S (unless
    `limit_mb` is given); returns the bytes removed."""
    d = cache_dir()
    now = time.time() if now is None else now
    marker = d / ".pruned"
    if limit_mb is None:
        try:
            if now - marker.stat().st_mtime < PRUNE_INTERVAL_S:
                return 0
        except FileNotFoundError:
            pass
        limit_mb = float(os.environ.get(CACHE_LIMIT_ENV) or CACHE_LIMIT_MB)
    try:
        marker.touch()
        entries = []
        for e in os.scandir(d):
            if e.is_file(follow_symlinks=False) and e.name != ".pruned":
                st = e.stat(follow_symlinks=False)
                entries.append((st.st_mtime, st.st_size, e.path))
    except OSError:
        return 0
    limit = limit_mb * 2**20
    total = sum(size for _, size, _ in entries)
    if total <= limit:
        return 0
    removed = 0
    for mtime, size, path in sorted(entries):
        if total - removed <= 0.75 * limit or now - mtime < EVICT_AFTER_S:
            break
        try:
            os.unlink(path)
            removed += size
        except OSError:
            pass
    return removed


def _cached(filename: str) -> Path:
    d = cache_dir()
    d.mkdir(parents=True, exist_ok=True)
    return d / filename


def _run(cc: list[str], args: list[str], out: Path, tail: Sequence[str] = ()) -> None:
    """Runs the compiler writing `out` atomically (a temporary name, then a rename)."""
    fd, tmp_name = tempfile.mkstemp(prefix=out.name + ".", suffix=".tmp", dir=out.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        proc = subprocess.run([*cc, *args, "-o", str(tmp), *tail], capture_output=True, text=True)
        if proc.returncode != 0:
            raise CompileError(f"C compilation failed: {_first_error(proc.stderr or proc.stdout)}")
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)


def _cache_key(cc: list[str], flags: list[str], inputs: list[Path], incs: list[Path]) -> str:
    h = hashlib.sha256()
    h.update(_compiler_identity(cc).encode())
    for part in (*flags, "|"):
        h.update(part.encode() + b"\0")
    for s in inputs:  # by name and content: a generated source in a fresh temp dir still hits the cache
        h.update(s.name.encode() + b"\0" + s.read_bytes() + b"\0")
    if not incs:
        return h.hexdigest()
    # Headers the sources may include: everything in the include dirs and next to
    # the sources (a superset keeps the key correct without running the preprocessor).
    header_dirs = sorted({*incs, *(s.parent for s in inputs)})
    for d in header_dirs:
        if not d.is_dir():
            continue
        for hdr in sorted((*d.glob("*.h"), *d.glob("*.inc"))):  # .inc: sources host_kernels.c includes
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
