"""accel-run: run a model in the numpy reference interpreter, or a compiled model.

    accel-run FILE.mlir [--inputs IN.npz] [--outputs OUT.npz] [--function NAME]
    accel-run MODEL.onnx ...
    accel-run DIR [--inputs IN.npz] [--outputs OUT.npz] [--sanitize] [--repeat N [--warmup W]]

A DIR written by accel-compile is built with the system C compiler against the bundled
accelerator simulator (`--sanitize`: with -fsanitize=address,undefined) and run; the
simulator's counters go to DIR/counters.json. `--repeat N` runs model_run W + N times in
one process (`--warmup W`, default 1, untimed) and prints `latency: median X ms, min Y ms,
max Z ms (N runs after W warm-up)`; DIR/latency.json holds the same and every run's time.

The IR file is parsed, verified and its `@main` (or `--function`) is run by
`accel.compiler.runtime.interpreter`; an `.onnx` model is imported first. Relative weight
paths (`relay.weights`) are resolved against the IR file's directory.

npz naming rule (inputs and outputs alike): an array's key is the name of the function's
argument or result, i.e. its `accel.name` attribute, else the argument's SSA name (`%x`
-> `x`), else `arg<i>` / `out<i>` (`accel.compiler.frontend.builder.io_names`).
- `--inputs`: every input name must be a key, and no other key may be present. As a
  fallback, an archive whose keys are exactly `arg0 .. arg<n-1>`, or exactly
  `arr_0 .. arr_<n-1>` (what `np.savez(path, a, b)` writes), is taken positionally.
  Shapes and dtypes must match the signature exactly (no implicit conversion).
  `--inputs` may be omitted when the function takes no argument.
- `--outputs`: one array per result, keyed by its name. Without `--outputs` the results
  are printed, one line each: `name = [values] : tensor<...>`.

IR at any level runs: relay IR, partitioned IR, and bufferized/lowered IR (whose outputs
are the arguments marked `accel.output`).

Every error is one line on stderr and exit code 1.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from accel.compiler.diagnostics import CompileError, LocatingParser, format_error, print_model_warnings, verify_located
from accel.compiler.tensors import set_ir_dir

# The interpreter (which pulls in all of xDSL's interpreters) is imported where it runs,
# so that argument and file errors answer quickly.

POSITIONAL_KEYS = ("arg{}", "arr_{}")
_NEWLINES = re.compile(r"\s*\n\s*")


def _die(message: str) -> None:
    print(f"accel-run: {message}", file=sys.stderr)
    sys.exit(1)


def make_context() -> Context:
    from accel.compiler.driver import make_context as context_with_all_dialects

    return context_with_all_dialects()


def load_module(path: str, bind_inputs: str | None = None, input_shapes: str | None = None) -> ModuleOp:
    """Parse and verify an IR file, or import an ONNX model (`bind_inputs`: graph inputs
    that become constants, `NAME=VALUE,...` or an .npz path; `input_shapes`: shapes of
    graph inputs with dynamic dimensions, `NAME=1x3x224x224,...`)."""
    set_ir_dir(os.path.dirname(os.path.abspath(path)))
    if path.endswith(".onnx"):
        from accel.compiler.frontend.onnx import import_onnx_file

        module = import_onnx_file(path, bind_inputs=bind_inputs, input_shapes=input_shapes)
    elif bind_inputs or input_shapes:
        raise CompileError("--bind-inputs and --input-shapes apply to ONNX models only", location=path)
    else:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        module = LocatingParser(make_context(), text, path).parse_module()
    verify_located(module)
    return module


def read_inputs(path: str | None, names: list[str]) -> dict[str, np.ndarray]:
    """The arrays of an npz archive keyed by input name (see the module docstring)."""
    if path is None:
        if names:
            raise CompileError(f"the model takes inputs ({', '.join(names)}): pass them with --inputs IN.npz")
        return {}
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {k: archive[k] for k in archive.files}
    except OSError as e:
        if isinstance(e, FileNotFoundError) or not os.path.exists(path):
            raise CompileError("cannot read the inputs: no such file", location=path) from None
        raise CompileError(f"cannot read the inputs archive ({e})", location=path) from None
    except Exception:  # np.load falls back to unpickling, so any other file ends here
        raise CompileError("not an .npz archive of arrays", location=path) from None
    listing = ", ".join(names) or "none"
    if all(n in arrays for n in names):
        extra = sorted(k for k in arrays if k not in names)
        if extra:
            raise CompileError(f"unexpected array '{extra[0]}' (the inputs are: {listing})", location=path)
        return {n: arrays[n] for n in names}
    for pattern in POSITIONAL_KEYS:
        keys = [pattern.format(i) for i in range(len(names))]
        if sorted(arrays) == sorted(keys):
            return {n: arrays[k] for n, k in zip(names, keys)}
    missing = next(n for n in names if n not in arrays)
    raise CompileError(f"no array named '{missing}' (the inputs are: {listing})", location=path)


def write_outputs(path: str, results: dict[str, np.ndarray]) -> None:
    # A file object keeps the path exactly as given (np.savez would append ".npz").
    with open(path, "wb") as f:
        np.savez(f, **results)


def format_outputs(module: ModuleOp, name: str, results: dict[str, np.ndarray]) -> str:
    from accel.compiler.runtime.interpreter import find_function

    types = list(find_function(module, name).function_type.outputs.data)
    if len(types) != len(results):  # bufferized: outputs are arguments
        from accel.compiler.tensors import tensor_type

        types = [tensor_type(v.shape, v.dtype) for v in results.values()]
    lines = []
    for (out_name, value), t in zip(results.items(), types):
        # str() of a numpy scalar is the shortest text that round-trips in its own type.
        text = np.array2string(value, separator=", ", threshold=1000, formatter={"all": str})
        lines.append(f"{out_name} = {_NEWLINES.sub(' ', text)} : {t}")
    return "\n".join(lines) + "\n" if lines else ""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="accel-run",
        description="Run @main of an IR file (.mlir) or ONNX model in the reference interpreter.",
    )
    parser.add_argument("model", help="IR file (.mlir) or ONNX model (.onnx)")
    parser.add_argument("--inputs", metavar="IN.npz", help="input arrays keyed by input name")
    parser.add_argument("--outputs", metavar="OUT.npz", help="write the results here (default: print them)")
    parser.add_argument("--bind-inputs", metavar="NAME=VALUE,...|B.npz",
                        help="an ONNX model's graph inputs that become constants (shape, axes, pads inputs)")
    parser.add_argument("--input-shapes", metavar="NAME=D0xD1x...,...",
                        help="shapes of an ONNX model's graph inputs with dynamic dimensions, e.g. x=1x3x224x224")
    parser.add_argument("--function", default="main", metavar="NAME", help="function to run (default: main)")
    parser.add_argument("--sanitize", action="store_true",
                        help="with a compiled DIR: build with -fsanitize=address,undefined")
    parser.add_argument("--repeat", type=int, metavar="N",
                        help="with a compiled DIR: run the model W + N times in one process and report the median, "
                             "min and max milliseconds of the N timed runs (also DIR/latency.json)")
    parser.add_argument("--warmup", type=int, metavar="W",
                        help="with --repeat: untimed runs first (default: 1)")
    parser.error = lambda message: _die(f"error: {message}")  # type: ignore[method-assign]
    return parser


def run_compiled(args: argparse.Namespace) -> None:
    from accel.compiler.runtime.run_compiled import model_signature, run_directory, time_directory

    ins, outs = model_signature(args.model)
    inputs = read_inputs(args.inputs, [n for n, _, _ in ins])
    if args.repeat is not None:
        if args.sanitize:
            raise CompileError("--repeat times the optimized build; it does not combine with --sanitize")
        results, latency = time_directory(args.model, inputs, args.repeat,
                                          1 if args.warmup is None else args.warmup)
        sys.stdout.write(f"latency: median {latency['median_ms']:.3f} ms, min {latency['min_ms']:.3f} ms, "
                         f"max {latency['max_ms']:.3f} ms ({latency['runs']} runs after {latency['warmup']} "
                         f"warm-up)\n")
    else:
        results, _ = run_directory(args.model, inputs, sanitize=args.sanitize)
    if args.outputs is None:
        for (name, _, dt), value in zip(outs, results.values()):
            text = np.array2string(value, separator=", ", threshold=1000, formatter={"all": str})
            sys.stdout.write(f"{name} = {_NEWLINES.sub(' ', text)} : {dt} {list(value.shape)}\n")
    else:
        write_outputs(args.outputs, results)


def run(args: argparse.Namespace) -> None:
    if (args.repeat is not None or args.warmup is not None) and not os.path.isdir(args.model):
        raise CompileError("--repeat and --warmup time a compiled DIR (accel-compile's output)")
    if os.path.isdir(args.model):
        if args.bind_inputs or args.input_shapes:
            raise CompileError(f"{args.model}: --bind-inputs and --input-shapes apply to a model file; a "
                               "compiled directory took them when it was compiled")
        run_compiled(args)
        return
    from accel.compiler.runtime.buffer_interpreter import io_signature, run_module
    from accel.compiler.runtime.interpreter import find_function

    module = load_module(args.model, args.bind_inputs, args.input_shapes)
    in_names, _ = io_signature(find_function(module, args.function))
    inputs = read_inputs(args.inputs, in_names)
    results = run_module(module, inputs, args.function)
    if args.outputs is None:
        sys.stdout.write(format_outputs(module, args.function, results))
    else:
        write_outputs(args.outputs, results)


def main(argv: Sequence[str] | None = None) -> None:
    print_model_warnings("accel-run")
    try:
        run(build_parser().parse_args(argv))
    except SystemExit:
        raise
    except KeyboardInterrupt:
        sys.exit(130)
    except BaseException as e:  # every failure is one line, never a traceback
        _die(format_error(e))


if __name__ == "__main__":
    main()
