"""Where accel's C runtime lives: the host kernels, the simulators (`sim/`), the code
generators' C glue. One resolved path, so that every part of the compiler spells the
runtime's files alike (an install reached through a symlink has two spellings): the
build of `accel-run` and the tests, the descriptions' `{accel_sim}/`, and the model
directory's writer, which keeps the runtime's files under runtime/."""

from __future__ import annotations

from pathlib import Path

C_DIR = Path(__file__).resolve().parent / "runtime" / "c"
SIM_DIR = C_DIR / "sim"
