"""The artifact writer of accel-compile: a self-contained directory that builds with `make`.

    DIR/model.h, model_internal.h, model.c, <target>_wrappers.c   (from the C emitter)
    DIR/runner.c          a command-line runner: model WEIGHTS IN... OUT... [COUNTERS]
    DIR/weights.bin       every constant, raw, 64-byte aligned
    DIR/runtime/          the host kernel library and the targets' C libraries (simulators)
    DIR/Makefile          `make` builds DIR/model (objects under DIR/obj/)
    DIR/report.json, DIR/partition.dot, DIR/ir/ (with --dump-ir)

The writer records what it wrote in `DIR/.accel-manifest`; it never deletes a file,
refuses to overwrite a file that an earlier run did not write, and leaves a file whose
contents would not change untouched (so `make` rebuilds only what changed).
"""

from __future__ import annotations

import filecmp
import json
import os
import shlex
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from accel.compiler.backend.c_emitter import Emitted
from accel.compiler.backend.c_text import C_TYPES, c_comment
from accel.compiler.c_runtime_dir import C_DIR
from accel.compiler.diagnostics import CompileError

MANIFEST = ".accel-manifest"
API_FUNCTIONS = "c_api.json"
"""Written next to the Makefile: C function -> [target, description key]."""

CFLAGS = "-std=c99 -O2 -Wall -Wextra -Werror"


HOST_RUNTIME = ("host_kernels.c", "host_kernels.h", "host_kernels_real.inc", "host_kernels_scan_bits.inc", "host_gemm.c", "host_gemm.h", "host_narrow.c",
                "host_narrow.h")
"""The host kernel library every model links (the simulators use it too)."""


@dataclass
class BuildPlan:
    """What a model directory is built from: files copied into it (absolute source ->
    path relative to DIR) and the targets' flags ([library] of their descriptions)."""

    copies: dict[str, str] = field(default_factory=dict)
    include_dirs: list[str] = field(default_factory=list)
    cflags: list[str] = field(default_factory=list)
    ldflags: list[str] = field(default_factory=list)
    """Prebuilt libraries (absolute paths) and link flags, in order."""

    def add_library(self, desc) -> None:
        lib = desc.library
        # A codegen hook may bring everything it needs through its result's flags.
        if desc.api.codegen is None and not lib.headers and not lib.sources and not lib.libraries and not lib.ldflags:
            raise CompileError(f"target '{desc.name}': its description declares no C library ([library] in {desc.path})")
        taken = {rel: src for src, rel in self.copies.items()}
        for path in (*lib.headers, *lib.sources):
            if path in self.copies:
                continue
            rel = library_copy(desc, path)
            if rel in taken:  # one name in DIR for two files
                if not rel.endswith(".c"):  # a header keeps the name it is included by
                    raise CompileError(f"target '{desc.name}': library files '{taken[rel]}' and '{path}' would both "
                                       f"be {rel} in the model directory ([library] in {desc.path})")
                stem, n = rel[:-2], 2
                while f"{stem}_{n}.c" in taken:
                    n += 1
                rel = f"{stem}_{n}.c"
            self.copies[path], taken[rel] = rel, path
            self.add_include(os.path.dirname(rel))
        for d in lib.include_dirs:
            self.add_include(d)
        self.cflags += [f for f in lib.cflags if f not in self.cflags]
        self.ldflags += [*lib.libraries, *lib.ldflags]

    def add_codegen(self, emitted: Emitted) -> None:
        """What the regions' codegen hooks asked for (after the libraries' flags)."""
        for d in emitted.include_dirs:
            self.add_include(d)
        self.cflags += [f for f in emitted.cflags if f not in self.cflags]
        self.ldflags += [f for f in emitted.ldflags if f not in self.ldflags]

    def add_include(self, d: str) -> None:
        if d and d not in self.include_dirs:
            self.include_dirs.append(d)


def library_copy(desc, path: str) -> str:
    """Where a library file goes in DIR: a file of the package's runtime keeps its place
    under runtime/ (so unmodified copies share one cached object); a vendor's file goes
    to lib/<target>/."""
    rel = os.path.relpath(os.path.realpath(path), C_DIR)
    if not rel.startswith(".."):
        return f"runtime/{rel}"
    name = os.path.basename(path)
    if name.endswith(".c"):  # a source is a make target: no space, '$', ':', '#', '%' ... in its name
        name = "".join(c if c.isalnum() or c in "_.+-" else "_" for c in name)
    return f"lib/{_stem(desc.name)}/{name}"


def _stem(name: str) -> str:
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name)


def build_plan(descs, emitted: Emitted | None = None) -> BuildPlan:
    plan = BuildPlan()
    for f in HOST_RUNTIME:
        plan.copies[os.path.join(C_DIR, f)] = f"runtime/{f}"
    plan.add_include("runtime")
    for desc in descs:
        plan.add_library(desc)
    if emitted is not None:
        plan.add_codegen(emitted)
    return plan


def api_functions(descs) -> dict[str, list[str]]:
    """Every C function a description declares, with its target and key: how a link
    error names what the library lacks."""
    out: dict[str, list[str]] = {}
    for desc in descs:
        for e in (*desc.ops, *desc.patterns):
            out.setdefault(e.c_function, [desc.name, f"{e.key}.c_function"])
        rt = desc.api.runtime
        if rt is not None:
            for name in ("init", "spm", "register_host", "dma_to_device", "dma_to_host", "dma_wait", "sync",
                         "write_counters", "shutdown"):
                call = getattr(rt, name)
                if call is not None:
                    out.setdefault(call.function, [desc.name, f"api.runtime.{name}"])
    return out


def runner_source(emitted: Emitted) -> str:
    ins, outs = emitted.inputs, emitted.outputs
    lines = [
        "/* Generated by accel-compile: runs the model on raw binary files.",
        " * model [--repeat N] [--warmup W] [--times FILE] WEIGHTS IN... OUT... [COUNTERS]:",
        " * --repeat runs model_run W + N times in this process and writes the N timed runs'",
        " * milliseconds to FILE, one run a line: wall clock, then the process's CPU time",
        " * (the outputs are those of the last run). */",
        "#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c99 */",
        "#include <stdio.h>",
        "#include <stdlib.h>",
        "#include <string.h>",
        "#include <time.h>",
        "",
        '#include "model.h"',
        "",
        "static double now_ms(clockid_t clock) {",
        "    struct timespec t;",
        "    clock_gettime(clock, &t);",
        "    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;",
        "}",
        "",
        "/* A count option's value: a whole number in [lo, 1e9], else -1. */",
        "static long count_arg(const char *s, long lo) {",
        "    char *end;",
        "    long v = strtol(s, &end, 10);",
        "    return *s && !*end && v >= lo && v <= 1000000000L ? v : -1;",
        "}",
        "",
    ]
    # A model without inputs (a constant, a folded shape) reads no file: no read_file
    # then, which -Werror would reject as unused.
    if ins:
        lines += [
            "static int read_file(const char *path, void *dst, size_t bytes) {",
            '    FILE *f = fopen(path, "rb");',
            "    size_t got;",
            "    if (!f) {",
            '        fprintf(stderr, "runner: error: cannot open %s\\n", path);',
            "        return 1;",
            "    }",
            "    got = fread(dst, 1, bytes, f);",
            "    if (got != bytes || fgetc(f) != EOF) {",
            '        fprintf(stderr, "runner: error: %s does not hold exactly %lu bytes\\n", path, (unsigned long)bytes);',
            "        fclose(f);",
            "        return 1;",
            "    }",
            "    fclose(f);",
            "    return 0;",
            "}",
            "",
        ]
    lines += [
        "static int write_file(const char *path, const void *src, size_t bytes) {",
        '    FILE *f = fopen(path, "wb");',
        "    if (!f || fwrite(src, 1, bytes, f) != bytes) {",
        '        fprintf(stderr, "runner: error: cannot write %s\\n", path);',
        "        if (f) fclose(f);",
        "        return 1;",
        "    }",
        "    return fclose(f) != 0;",
        "}",
        "",
        "int main(int argc, char **argv) {",
        "    int status = 0;",
        "    long repeat = 0, warmup = 0;",
        "    const char *times_path = NULL;",
        "    const char *prog = argv[0];",
        "    while (argc > 2 && strncmp(argv[1], \"--\", 2) == 0) {",
        "        if (strcmp(argv[1], \"--repeat\") == 0) repeat = count_arg(argv[2], 1);",
        "        else if (strcmp(argv[1], \"--warmup\") == 0) warmup = count_arg(argv[2], 0);",
        "        else if (strcmp(argv[1], \"--times\") == 0) times_path = argv[2];",
        "        else break;",
        "        if (repeat < 0 || warmup < 0) {",
        "            fprintf(stderr, \"runner: error: %s takes a whole number (got %s)\\n\", argv[1], argv[2]);",
        "            return 2;",
        "        }",
        "        argc -= 2;",
        "        argv += 2;",
        "    }",
    ]
    n_args = 1 + len(ins) + len(outs)
    lines.append(f"    if ((argc != {n_args + 1} && argc != {n_args + 2}) || (repeat > 0) != (times_path != NULL)) {{")
    lines.append(f'        fprintf(stderr, "usage: %s [--repeat N --times FILE [--warmup W]] WEIGHTS{" IN" * len(ins)}'
                 f'{" OUT" * len(outs)} [COUNTERS.json]\\n", prog);')
    lines.append("        return 2;")
    lines.append("    }")
    for kind, items in (("in", ins), ("out", outs)):
        for i, (name, shape, dt) in enumerate(items):
            upper = "INPUT" if kind == "in" else "OUTPUT"
            lines.append(f"    /* {c_comment(name)} */")
            lines.append(f"    {C_TYPES[dt]} *{kind}{i} = ({C_TYPES[dt]} *)malloc(MODEL_{upper}{i}_BYTES ? MODEL_{upper}{i}_BYTES : 1);")
            lines.append(f"    if (!{kind}{i}) return 3;")
    for i in range(len(ins)):
        lines.append(f"    if (read_file(argv[{2 + i}], in{i}, MODEL_INPUT{i}_BYTES)) return 1;")
    lines.append("    if (model_init(argv[1]) != 0) return 1;")
    args = [f"in{i}" for i in range(len(ins))] + [f"out{i}" for i in range(len(outs))]
    call = f"model_run({', '.join(args)})"
    lines += [
        "    FILE *tf = NULL;",
        "    if (repeat > 0 && !(tf = fopen(times_path, \"w\"))) {",
        '        fprintf(stderr, "runner: error: cannot write %s\\n", times_path);',
        "        return 1;",
        "    }",
        "    for (long r = 0, runs = repeat > 0 ? warmup + repeat : 1; r < runs; r++) {",
        "        double t0 = now_ms(CLOCK_MONOTONIC), c0 = now_ms(CLOCK_PROCESS_CPUTIME_ID);",
        f"        status = {call};",
        "        double ms = now_ms(CLOCK_MONOTONIC) - t0, cpu = now_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;",
        "        if (status != 0) return 1;",
        '        if (tf && r >= warmup) fprintf(tf, "%.6f %.6f\\n", ms, cpu);',
        "    }",
        "    if (tf && fclose(tf) != 0) return 1;",
    ]
    for i in range(len(outs)):
        lines.append(f"    if (write_file(argv[{2 + len(ins) + i}], out{i}, MODEL_OUTPUT{i}_BYTES)) return 1;")
    lines.append(f"    if (argc == {n_args + 2} && model_write_counters(argv[{n_args + 1}]) != 0) return 1;")
    lines.append("    model_free();")
    for kind, items in (("in", ins), ("out", outs)):
        for i in range(len(items)):
            lines.append(f"    free({kind}{i});")
    lines.append("    return 0;")
    lines.append("}")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class HostBuild:
    """The host kernels' build probed on the compiling machine (the driver passes
    `cbuild.host_runtime()`: -O3, -march=native, CBLAS)."""

    cflags: tuple[str, ...] = ()
    link_flags: tuple[str, ...] = ()


def _args(args: Iterable[str]) -> str:
    """Arguments as a shell reads them back, one each ('$' doubled for make)."""
    return " ".join(shlex.quote(a).replace("$", "$$") for a in args)


def makefile(c_files: list[str], plan: BuildPlan, host: HostBuild = HostBuild()) -> str:
    """The Makefile; `SRCS`, `INCLUDES`, `TARGET_CFLAGS`, `LDLIBS`, `HOST_CFLAGS` and
    `HOST_LDLIBS` are also what accel-run builds with (`build_settings`). `make
    HOST_CFLAGS= HOST_LDLIBS=` builds the portable way (-O2, the blocked GEMM).

    Each source compiles to its own object under obj/ (obj-sanitize/ with SANITIZE=1), so
    `make` after a new compile into the same directory rebuilds only the files that
    changed (the writer leaves files with unchanged contents untouched; each object
    depends on the headers the compiler saw it include, `-MMD`) and `make -j` compiles
    in parallel. The compile and link commands are kept in obj*/flags and
    obj*/link-flags, rewritten only when they change: objects and ./model depend on them,
    so other flags, or switching SANITIZE, rebuild what they affect."""
    srcs = " ".join(c_files)
    # Each flag of a description is one argument: quoted for the shell that runs the
    # commands (an include directory may hold a space), as `build_settings` reads them.
    includes = _args(f"-I{d}" for d in [*plan.include_dirs, "."])
    objects = {src: f"$(OBJDIR)/{os.path.splitext(src)[0] if not os.path.isabs(src) else _stem(src)}.o"
               for src in c_files}
    rules = "".join(f"{obj}: {src} $(OBJDIR)/flags\n"
                    f"\t@mkdir -p $(@D)\n"
                    f"\t$(COMPILE) -MMD -MP -c -o $@ {src}\n" for src, obj in objects.items())
    return (
        "# Generated by accel-compile. `make` builds ./model (`make -j` in parallel); `make SANITIZE=1` with ASan/UBSan.\n"
        "CC ?= cc\n"
        f"CFLAGS ?= {CFLAGS}\n"
        "OBJDIR = obj\n"
        "ifeq ($(SANITIZE),1)\n"
        "CFLAGS += -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all\n"
        "OBJDIR = obj-sanitize\n"
        "endif\n"
        f"SRCS = {srcs}\n"
        f"INCLUDES = {includes}\n"
        f"TARGET_CFLAGS = {_args(plan.cflags)}\n"
        f"LDLIBS = {_args([*plan.ldflags, '-lm'])}\n"
        f"HOST_CFLAGS = {_args(host.cflags)}\n"
        f"HOST_LDLIBS = {_args(host.link_flags)}\n"
        f"OBJS = {' '.join(objects.values())}\n"
        "COMPILE = $(CC) $(CFLAGS) $(HOST_CFLAGS) $(TARGET_CFLAGS) $(INCLUDES)\n"
        "LINK = $(CC) $(CFLAGS) $(HOST_CFLAGS) $(TARGET_CFLAGS) -o model $(OBJS) $(HOST_LDLIBS) $(LDLIBS)\n"
        "# Rewrite a command's file when the command changed (make reads this before it decides).\n"
        "remember = $(shell mkdir -p $(OBJDIR) && printf '%s\\n' '$(subst ','\\'',$(2))' | cmp -s - $(1) "
        "|| printf '%s\\n' '$(subst ','\\'',$(2))' > $(1))\n"
        "$(call remember,$(OBJDIR)/flags,$(COMPILE))\n"
        "$(call remember,link-flags,$(LINK))\n"
        "\n"
        "model: $(OBJS) link-flags\n"
        "\t$(LINK)\n"
        "\n"
        f"{rules}"
        "-include $(OBJS:.o=.d)\n"
        "\n"
        "clean:\n"
        "\trm -rf model obj obj-sanitize link-flags\n"
        "\n"
        ".PHONY: clean\n"
    )


class ArtifactWriter:
    def __init__(self, out_dir: str):
        self.out_dir = out_dir
        self.written: list[str] = []
        self.previous: set[str] = set()
        manifest = os.path.join(out_dir, MANIFEST)
        if os.path.exists(manifest):
            try:
                with open(manifest) as f:
                    self.previous = set(json.load(f))
            except (OSError, ValueError):
                raise CompileError(f"{manifest}: unreadable manifest; remove it or use another directory") from None
        elif os.path.exists(out_dir) and not os.path.isdir(out_dir):
            raise CompileError(f"{out_dir}: exists and is not a directory")

    def check(self, rel: str) -> str:
        path = os.path.join(self.out_dir, rel)
        if os.path.exists(path) and rel not in self.previous and rel not in self.written:
            raise CompileError(f"{path}: exists and was not written by accel-compile; not overwriting it")
        return path

    def write_text(self, rel: str, text: str) -> None:
        self.write_bytes(rel, text.encode("utf-8"))

    def write_bytes(self, rel: str, data: bytes) -> None:
        self.write_pieces(rel, [data])

    def write_pieces(self, rel: str, pieces: Sequence[bytes | np.ndarray]) -> None:
        """Write the concatenation of `pieces` (buffers) without joining them."""
        path = self.check(rel)
        if not _holds(path, pieces):
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                for piece in pieces:
                    f.write(piece)
        self.written.append(rel)

    def copy(self, src: str, rel: str) -> None:
        path = self.check(rel)
        if not (os.path.isfile(path) and filecmp.cmp(src, path, shallow=False)):
            os.makedirs(os.path.dirname(path), exist_ok=True)
            shutil.copyfile(src, path)
        self.written.append(rel)

    def finish(self) -> None:
        os.makedirs(self.out_dir, exist_ok=True)
        with open(os.path.join(self.out_dir, MANIFEST), "w") as f:
            json.dump(sorted(set(self.written) | self.previous), f, indent=1)


def _holds(path: str, pieces: Sequence[bytes | np.ndarray]) -> bool:
    """Whether the file at `path` has exactly the concatenation of `pieces`: such a file
    is left alone, so its time stays and `make` does not rebuild it (a compile into the
    same directory)."""
    views = [np.frombuffer(p, np.uint8) for p in pieces]
    try:
        if os.path.getsize(path) != sum(v.size for v in views):
            return False
        with open(path, "rb") as f:
            return all(np.array_equal(np.frombuffer(f.read(v.size), np.uint8), v) for v in views)
    except OSError:
        return False


def write_artifacts(out_dir: str, emitted: Emitted, descs, extra: dict[str, str | bytes],
                    host: HostBuild = HostBuild()) -> list[str]:
    """Write the model directory; returns the relative paths written."""
    os.makedirs(out_dir, exist_ok=True)
    w = ArtifactWriter(out_dir)
    # Check everything before writing anything: a refusal leaves the directory as it was.
    plan = build_plan(descs, emitted)
    extra = {**extra, API_FUNCTIONS: json.dumps(api_functions(descs), indent=1, sort_keys=True) + "\n"}
    rels = [*emitted.files, *emitted.data, "runner.c", "weights.bin", "Makefile", *extra, *plan.copies.values()]
    for rel in rels:
        w.check(rel)
    for name, text in emitted.files.items():
        w.write_text(name, text)
    for name, blob in emitted.data.items():
        w.write_bytes(name, blob)
    w.write_text("runner.c", runner_source(emitted))
    w.write_pieces("weights.bin", emitted.weights.chunks)
    for src, rel in plan.copies.items():
        w.copy(src, rel)
    c_files = sorted(n for n in emitted.files if n.endswith(".c")) + ["runner.c"]
    c_files += [rel for rel in plan.copies.values() if rel.endswith(".c")]
    w.write_text("Makefile", makefile(c_files, plan, host))
    for rel, content in extra.items():
        if isinstance(content, bytes):
            w.write_bytes(rel, content)
        else:
            w.write_text(rel, content)
    w.finish()
    return w.written


@dataclass
class BuildSettings:
    sources: list[str]
    include_dirs: list[str]
    cflags: list[str]
    ldflags: list[str]
    host_cflags: list[str] = field(default_factory=list)
    """For every file, the shipped runtime included (HOST_CFLAGS)."""
    host_ldflags: list[str] = field(default_factory=list)


def build_settings(out_dir: str) -> BuildSettings:
    """How a model directory builds, from its Makefile (what `make` does)."""
    values: dict[str, str] = {}
    try:
        with open(os.path.join(out_dir, "Makefile")) as f:
            for line in f:
                for key in ("SRCS", "INCLUDES", "TARGET_CFLAGS", "LDLIBS", "HOST_CFLAGS", "HOST_LDLIBS"):
                    if line.startswith(f"{key} = "):
                        values[key] = line[len(key) + 3:].strip().replace("$$", "$")  # make's escape (`_args`)
    except OSError:
        pass
    if "SRCS" not in values:
        raise CompileError(f"{out_dir}: not a directory written by accel-compile (no Makefile with SRCS)")

    def here(p: str) -> str:
        return p if os.path.isabs(p) else os.path.join(out_dir, p)

    incs = [here(i[2:]) for i in shlex.split(values.get("INCLUDES", "")) if i.startswith("-I")]
    ld = [here(x) if not x.startswith("-") else x for x in shlex.split(values.get("LDLIBS", ""))]
    return BuildSettings([here(s) for s in values["SRCS"].split()], incs,
                         shlex.split(values.get("TARGET_CFLAGS", "")), ld, shlex.split(values.get("HOST_CFLAGS", "")),
                         shlex.split(values.get("HOST_LDLIBS", "")))


def c_sources(out_dir: str) -> list[str]:
    """The C files of a model directory, from its Makefile (what `make` compiles)."""
    return build_settings(out_dir).sources
