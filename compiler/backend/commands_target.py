"""The `commands` output target of accel-opt (`-t commands`): the command streams of a
lowered module's regions on command-stream targets, as text (what `accel-disasm` prints
for each `<region>.bin`), each under a `// ===== <region>.bin (<target>) =====` header.

    accel-opt model.mlir --target npu-cmd -p full -t commands
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.utils.target import Target

from accel.compiler.backend.c_emitter import ModelEmitter
from accel.compiler.backend.codegen_hook import c_symbol
from accel.compiler.backend.stream_format import disassemble
from accel.compiler.diagnostics import CompileError
from accel.compiler.targets.context import target_context
from accel.dialects.conventions import TARGET_ATTR


@dataclass(frozen=True)
class CommandsTarget(Target):
    name = "commands"

    target: str = ""
    """Descriptions to load for the regions' `accel.target` names (as `-t c`)."""

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        known = target_context(ctx)
        known.load(self.target)
        descs = known.of_regions(module)
        emitted = ModelEmitter(module, descs, known).emit()
        streams = 0
        for op in module.body.block.ops:
            target = op.attributes.get(TARGET_ATTR) if isinstance(op, func.FuncOp) else None
            if not isinstance(target, StringAttr) or target.data not in descs or descs[target.data].isa is None:
                continue
            name = f"{c_symbol(op.sym_name.data)}.bin"
            output.write(f"// ===== {name} ({target.data}) =====\n")
            output.write(disassemble(descs[target.data].isa, emitted.data[name], name,
                                      descs[target.data].memory.scratchpad_bytes))
            streams += 1
        if not streams:
            raise CompileError("-t commands: no region runs on a command-stream target (a target with [isa])")
