"""The compile driver behind accel-compile (and the tests): model file in, directory out.

    compile_to_directory("model.onnx", "npu", "out/")   # -> the report dict

Stages: import (ONNX or textual IR), the pass pipeline (default `full`), the C emitter,
the artifact writer. Every stage is timed (`report["timing"]`); with `dump_ir` the IR
after the import and after every pass goes to `DIR/ir/NN-<pass>.mlir`.
"""

from __future__ import annotations

import io
import json
import os
import time

from xdsl.dialects import arith, builtin, func, memref, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.printer import Printer

from accel.compiler.diagnostics import CompileError, LocatingParser, verify_located
from accel.compiler.tensors import set_ir_dir
from accel.compiler.targets.context import AccelContext
from accel.compiler.transforms import ACCEL_PASSES
from accel.dialects import ACCEL_DIALECTS


def make_context(targets: str = "") -> AccelContext:
    """A context with every dialect accel's IR uses, and `targets` (a --target value)
    loaded and selected."""
    ctx = AccelContext()
    for d in (builtin.Builtin, func.Func, memref.MemRef, arith.Arith, scf.Scf):
        ctx.load_dialect(d)
    for factory in ACCEL_DIALECTS.values():
        ctx.load_dialect(factory())
    if targets:
        ctx.targets.select(targets)
    return ctx


def load_model(path: str, ctx: AccelContext) -> ModuleOp:
    """Import an ONNX model or parse textual IR; verified, one-line errors."""
    if path.endswith(".onnx"):
        from accel.compiler.frontend.onnx import import_onnx_file

        module = import_onnx_file(path)
    else:
        try:
            with open(path, "rb") as f:
                text = f.read()
        except OSError as e:
            raise CompileError(f"cannot read '{path}': {e.strerror}") from None
        set_ir_dir(os.path.dirname(os.path.abspath(path)))
        module = LocatingParser(ctx, text, path).parse_module()
    verify_located(module)
    return module


def build_passes(spec: str) -> list[ModulePass]:
    from accel.compiler.pipeline import parse_pipeline_spec

    return parse_pipeline_spec(ACCEL_PASSES, spec)


def print_ir(module: ModuleOp) -> str:
    out = io.StringIO()
    Printer(stream=out).print_op(module)
    out.write("\n")
    return out.getvalue()


def compile_module(module: ModuleOp, ctx: AccelContext, pipeline: str = "full",
                   dump: list[tuple[str, str]] | None = None) -> tuple[ModuleOp, dict]:
    """Run the pipeline on `module` in place; returns it and the per-stage timing and
    partition report (taken right after partitioning)."""
    timing: dict[str, float] = {}
    partition: dict | None = None
    dot = ""
    for i, p in enumerate(build_passes(pipeline)):
        start = time.perf_counter()
        p.apply(ctx, module)
        verify_located(module)
        timing[p.name] = timing.get(p.name, 0.0) + time.perf_counter() - start
        if p.name in ("byoc", "outline-regions"):
            from accel.compiler.partition_report import partition_dot, partition_report

            partition = partition_report(module)
            dot = partition_dot(module)
        if dump is not None:
            dump.append((f"{i + 1:02d}-{p.name}.mlir", print_ir(module)))
    return module, {"timing": timing, "partition": partition, "dot": dot}


def compile_to_directory(model_path: str, target: str, out_dir: str, pipeline: str = "full",
                         dump_ir: bool = False) -> dict:
    from accel.compiler.backend.artifacts import write_artifacts
    from accel.compiler.backend.c_emitter import ModelEmitter
    from accel.compiler.compile_report import build_report

    ctx = make_context(target)
    start = time.perf_counter()
    module = load_model(model_path, ctx)
    import_seconds = time.perf_counter() - start
    dump: list[tuple[str, str]] | None = [("00-import.mlir", print_ir(module))] if dump_ir else None
    module, info = compile_module(module, ctx, pipeline, dump)
    start = time.perf_counter()
    emitted = ModelEmitter(module, ctx.targets.of_regions(module), ctx.targets).emit()
    emit_seconds = time.perf_counter() - start
    timing = {"import": import_seconds, **info["timing"], "emit": emit_seconds}
    descs = ctx.targets.descriptions
    report = build_report(module, descs, info["partition"], timing)
    extra: dict[str, str | bytes] = {"report.json": json.dumps(report, indent=2, sort_keys=True) + "\n"}
    extra["partition.dot"] = info["dot"]
    extra["io.json"] = json.dumps({
        kind: [{"name": n, "shape": list(shape), "dtype": dt.name} for n, shape, dt in items]
        for kind, items in (("inputs", emitted.inputs), ("outputs", emitted.outputs))
    }, indent=1) + "\n"
    for name, text in dump or []:
        extra[f"ir/{name}"] = text
    used = [d for d in descs if d.name in emitted.targets]
    write_artifacts(out_dir, emitted, used, extra)
    return report
