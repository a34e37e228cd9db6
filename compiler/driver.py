"""The compile driver behind accel-compile (and the tests): model file in, directory out.

    compile_to_directory("model.onnx", "npu", "out/")   # -> the report dict

Stages: import (ONNX or textual IR), the pass pipeline (default `full`), the C emitter,
the artifact writer. Every stage is timed (`report["timing"]`); with `dump_ir` the IR
after the import and after every pass goes to `DIR/ir/NN-<pass>.mlir`.
"""

from __future__ import annotations

import gc
import io
import json
import os
import time
import warnings
from collections.abc import Callable
from collections.abc import Iterator
from contextlib import contextmanager

from xdsl.dialects import arith, builtin, func, memref, scf
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.passes import ModulePass
from xdsl.printer import Printer

from accel.compiler.diagnostics import CompileError, LocatingParser, ModelWarning, verify_located
from accel.compiler.frontend.graph_inputs import GraphInputs
from accel.compiler.tensors import set_ir_dir
from accel.compiler.targets.context import AccelContext
from accel.compiler.transforms import ACCEL_PASSES
from accel.dialects import ACCEL_DIALECTS
from accel.dialects.conventions import host_functions


@contextmanager
def cycle_collection_paused() -> Iterator[None]:
    """Pause Python's cycle collector while the IR is built and rewritten. The IR is a
    graph of reference cycles (ops, blocks, values, uses) alive for the whole compile, so
    each full collection walks all of it, and their number grows with the work done:
    without this, passes grow superlinearly in graph size (4k nodes: +30 % time). The
    garbage of a compile is freed by reference counting, or by the next collection once
    it is resumed (peak memory grows by about 40 %)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


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


def load_model(path: str, ctx: AccelContext, inputs: GraphInputs | None = None) -> ModuleOp:
    """Import an ONNX model (`inputs`: the values and shapes its graph inputs take, see
    `GraphInputs`) or parse textual IR; verified, one-line errors."""
    if path.endswith(".onnx"):
        from accel.compiler.frontend.onnx import import_onnx_file

        inputs = inputs or GraphInputs()
        module = import_onnx_file(path, bind_inputs=inputs.values, input_shapes=inputs.shapes)
    else:
        if inputs:
            raise CompileError("--bind-inputs and --input-shapes apply to ONNX models only", location=path)
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


def at_tensor_level(module: ModuleOp) -> bool:
    """Whether the host functions still take tensors (not yet bufferized): the emitter
    needs the `lower` pipeline's output."""
    return any(
        isinstance(t, TensorType)
        for fn in host_functions(module)
        for t in (*fn.function_type.inputs.data, *fn.function_type.outputs.data)
    )


def compile_module(module: ModuleOp, ctx: AccelContext, pipeline: str = "full",
                   dump: list[tuple[str, str]] | None = None, verify_each: bool = False,
                   on_stage: Callable[[str], None] | None = None,
                   clock: Callable[[], float] = time.perf_counter) -> tuple[ModuleOp, dict]:
    """Run the pipeline on `module` in place, completed by `lower` when it leaves the IR
    at tensor level (`-p byoc`: the emitter needs buffers and accel ops). Returns the
    module and the per-pass timing and partition report, taken right after the last
    partitioning pass (or of the input, when the pipeline does not partition).

    The module is verified at the end (stage `verify`); after every pass only with
    `verify_each` (a debug aid: the import is verified by `load_model`, and verification
    is not free). Building the partition report is stage `report`. Stages are timed by
    `clock` (wall clock; the benchmarks pass `time.process_time`)."""
    from accel.compiler.partition_report import analyze, is_partitioning, partition_dot, partition_report

    timing: dict[str, float] = {}
    partition: dict | None = None
    dot = ""
    with cycle_collection_paused():
        passes = build_passes(pipeline)

        def take_partition_report() -> None:
            nonlocal partition, dot
            start = clock()
            part = analyze(module)
            partition, dot = partition_report(module, part), partition_dot(module, part)
            timing["report"] = timing.get("report", 0.0) + clock() - start

        # The report describes the IR right after the last partitioning pass.
        last = max((k for k, p in enumerate(passes) if is_partitioning(p.name)), default=None)
        if last is None and at_tensor_level(module):
            take_partition_report()
        i = 0
        while i < len(passes):
            p = passes[i]
            if on_stage is not None:
                on_stage(p.name)
            start = clock()
            p.apply(ctx, module)
            seconds = clock() - start
            timing[stage_key(timing, p.name)] = seconds
            if verify_each:
                verify_located(module)
            if i == last:
                take_partition_report()
            if dump is not None:
                dump.append((f"{i + 1:02d}-{p.name}.mlir", print_ir(module)))
            i += 1
            if i == len(passes) and at_tensor_level(module):
                passes += build_passes("lower")
        if on_stage is not None:
            on_stage("verify")
        start = clock()
        verify_located(module)
        timing["verify"] = clock() - start
    return module, {"timing": timing, "partition": partition, "dot": dot}


def stage_key(timing: dict[str, float], name: str) -> str:
    """`plan-memory`, then `plan-memory#2`, ...: a pass that runs twice is two stages."""
    if name not in timing:
        return name
    n = 2
    while f"{name}#{n}" in timing:
        n += 1
    return f"{name}#{n}"


def compile_to_directory(model_path: str, target: str, out_dir: str, pipeline: str = "full",
                         dump_ir: bool = False, verify_each: bool = False,
                         on_stage: Callable[[str], None] | None = None,
                         inputs: GraphInputs | None = None,
                         tuning_log: str | None = None,
                         clock: Callable[[], float] = time.perf_counter) -> dict:
    """Compile a model file into `out_dir`; returns the report (also `report.json`), whose
    `timing` holds every stage: import, each pass, emit, write (seconds). `inputs`: see
    `load_model`; `tuning_log`: an accel-tune log whose best configurations the
    pipeline applies (`apply-tuning` before `tile-for-scratchpad`); `clock`: see
    `compile_module`."""
    from accel.compiler.backend.artifacts import ArtifactWriter, HostBuild, write_artifacts
    from accel.compiler.pipeline import with_tuning_log
    from accel.compiler.backend.c_emitter import ModelEmitter
    from accel.compiler.compile_report import build_report
    from accel.compiler.runtime.cbuild import host_runtime

    if tuning_log:
        pipeline = with_tuning_log(pipeline, tuning_log)

    ctx = make_context(target)
    # The collector stays paused until the artifacts are written: the IR is alive until
    # then, and a collection after the passes would walk all of it (0.4 s at 10k nodes).
    with cycle_collection_paused():
        if on_stage is not None:
            on_stage("import")
        start = clock()
        with recorded_model_warnings() as model_warnings:
            module = load_model(model_path, ctx, inputs)
        import_seconds = clock() - start
        dump: list[tuple[str, str]] | None = [("00-import.mlir", print_ir(module))] if dump_ir else None
        module, info = compile_module(module, ctx, pipeline, dump, verify_each, on_stage, clock)
        if on_stage is not None:
            on_stage("emit")
        start = clock()
        emitted = ModelEmitter(module, ctx.targets.of_regions(module), ctx.targets).emit()
        emit_seconds = clock() - start
        timing = {"import": import_seconds, **info["timing"], "emit": emit_seconds}
        descs = ctx.targets.descriptions
        if on_stage is not None:
            on_stage("report")
        start = clock()
        report = build_report(module, descs, info["partition"], timing)
        report["timing"]["report"] = round(timing.get("report", 0.0) + clock() - start, 6)
        if emitted.codegen_report:
            report["codegen"] = emitted.codegen_report
        if model_warnings:
            report["warnings"] = [w.message for w in model_warnings]
        extra: dict[str, str | bytes] = {"report.json": report_json(report)}
        extra["partition.dot"] = info["dot"]
        extra["io.json"] = json.dumps({
            kind: [{"name": n, "shape": list(shape), "dtype": dt.name} for n, shape, dt in items]
            for kind, items in (("inputs", emitted.inputs), ("outputs", emitted.outputs))
        }, indent=1) + "\n"
        for name, text in dump or []:
            extra[f"ir/{name}"] = text
        used = [d for d in descs if d.name in emitted.targets]
        if on_stage is not None:
            on_stage("write")
        start = clock()
        host = host_runtime()
        write_artifacts(out_dir, emitted, used, extra, HostBuild(host.cflags, host.link_flags))
        report["timing"]["write"] = round(clock() - start, 6)
    # report.json is written with the other files (so a refusal leaves the directory as
    # it was), then again with the time the writing took.
    writer = ArtifactWriter(out_dir)
    writer.write_text("report.json", report_json(report))
    writer.finish()
    return report


@contextmanager
def recorded_model_warnings() -> Iterator[list[ModelWarning]]:
    """The `ModelWarning`s raised inside, listed (for report.json's `warnings`) and shown
    as usual (a tool prints each as one line)."""
    found: list[ModelWarning] = []
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ModelWarning)
            yield found
    finally:
        found.extend(w.message for w in caught if isinstance(w.message, ModelWarning))
        for w in caught:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)


def report_json(report: dict) -> str:
    return json.dumps(report, indent=2, sort_keys=True) + "\n"
