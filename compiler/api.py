"""accel from Python (a notebook, a script): compile a model, run it, read the report.

    from accel.compiler import api

    compiled = api.compile("model.onnx", target="npu", out_dir="out/")
    compiled.report["ops"]                   # {"total": 24, "offloaded": 21, "host": 3}
    outputs = compiled.run({"input": x})     # built with cc, run on the simulator
    expected = api.reference("model.onnx", {"input": x})   # the numpy interpreter

Inputs and outputs are dicts keyed by the model's input and output names. Errors are
`CompileError`s with the one-line message the command lines print. This module is thin:
`compile` is `accel-compile`'s driver, `Compiled.run` is `accel-run DIR`, `reference` is
`accel-run MODEL`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from accel.compiler.driver import compile_to_directory, load_model, make_context
from accel.compiler.frontend.graph_inputs import GraphInputs
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.runtime.run_compiled import run_directory


@dataclass
class Compiled:
    """A model compiled into `dir` (the files of accel-compile)."""

    dir: str
    report: dict
    """report.json: ops, regions, rejected, dma, cycles, memory, timing."""
    counters: dict = field(default_factory=dict)
    """What the simulator counted in the last `run` (counters.json)."""

    def run(self, inputs: Mapping[str, Any], sanitize: bool = False) -> dict[str, np.ndarray]:
        """Build the directory (once) and run it on the simulator; outputs by name."""
        outputs, self.counters = run_directory(self.dir, inputs, sanitize)
        return outputs


def compile(model: str, target: str, out_dir: str, pipeline: str = "full", dump_ir: bool = False,
            bind_inputs: Mapping[str, Any] | str | None = None, tuning_log: str | None = None,
            input_shapes: Mapping[str, Any] | str | None = None) -> Compiled:
    """Compile an .onnx or .mlir file for `target` (a built-in name, a .toml path, or a
    comma list) into `out_dir`. `bind_inputs` (arrays by input name, or the
    `--bind-inputs` text) makes those graph inputs constants, e.g. a Reshape's shape;
    `input_shapes` (shapes by input name, or the `--input-shapes` text) sizes the
    dynamic dimensions of graph inputs. `tuning_log`: an accel-tune log to apply
    (report["tuning"] lists the tuned ops)."""
    report = compile_to_directory(model, target, out_dir, pipeline, dump_ir,
                                  inputs=_graph_inputs(bind_inputs, input_shapes), tuning_log=tuning_log)
    return Compiled(out_dir, report)


def reference(model: str, inputs: Mapping[str, Any],
              bind_inputs: Mapping[str, Any] | str | None = None,
              input_shapes: Mapping[str, Any] | str | None = None) -> dict[str, np.ndarray]:
    """Run an .onnx or .mlir file in the numpy reference interpreter; outputs by name."""
    return run_function(load_model(model, make_context(), _graph_inputs(bind_inputs, input_shapes)), inputs)


def _graph_inputs(bind_inputs: Mapping[str, Any] | str | None,
                  input_shapes: Mapping[str, Any] | str | None) -> GraphInputs:
    if bind_inputs is not None and not isinstance(bind_inputs, str):
        bind_inputs = {name: np.asarray(value) for name, value in bind_inputs.items()}
    return GraphInputs.of(bind_inputs, input_shapes)
