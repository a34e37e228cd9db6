"""The `c` output target of accel-opt (`-t c`): the emitted C files of a lowered module,
one after the other, each under a `// ===== <file> =====` header (for FileCheck and for
looking at; accel-compile writes them as files).

    accel-opt model.mlir --target npu -p full -t c
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target

from accel.compiler.backend.c_emitter import ModelEmitter
from accel.compiler.targets.context import target_context


@dataclass(frozen=True)
class CTarget(Target):
    name = "c"

    target: str = ""
    """Descriptions (names or .toml paths, comma-separated) to load for the regions'
    `accel.target` names; by default the compile's targets, then built-ins by name."""

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        known = target_context(ctx)
        known.load(self.target)
        emitted = ModelEmitter(module, known.of_regions(module), known).emit()
        for name in sorted(emitted.files):
            output.write(f"// ===== {name} =====\n")
            output.write(emitted.files[name])
        output.write(f"// ===== weights.bin: {emitted.weights.size} bytes =====\n")
