"""The `c` output target of accel-opt (`-t c`): the emitted C files of a lowered module,
one after the other, each under a `// ===== <file> =====` header (for FileCheck and for
looking at; accel-compile writes them as files).

    accel-opt model.mlir --target npu -p full -t c
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.utils.target import Target
from accel.dialects.conventions import TARGET_ATTR


@dataclass(frozen=True)
class CTarget(Target):
    name = "c"

    target: str = ""
    """Description(s) of the targets (names or .toml paths, comma-separated); by default
    the built-in descriptions named by the regions' `accel.target`."""

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        from accel.compiler.backend.c_emitter import ModelEmitter
        from accel.compiler.targets.registry import load_target, load_targets

        descs = {d.name: d for d in load_targets(self.target)} if self.target else {}
        for op in module.body.block.ops:
            if isinstance(op, func.FuncOp):
                t = op.attributes.get(TARGET_ATTR)
                if isinstance(t, StringAttr) and t.data != "host" and t.data not in descs:
                    descs[t.data] = load_target(t.data)
        emitted = ModelEmitter(module, descs).emit()
        for name in sorted(emitted.files):
            output.write(f"// ===== {name} =====\n")
            output.write(emitted.files[name])
        output.write(f"// ===== weights.bin: {len(emitted.weights)} bytes =====\n")
