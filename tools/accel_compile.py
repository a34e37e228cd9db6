"""accel-compile: a model (ONNX or textual IR) to a directory of C for host + accelerator.

    accel-compile MODEL.(onnx|mlir) --target T -o DIR [-p PIPELINE] [--bind-inputs B] [--input-shapes S]
                  [--tuning-log LOG.json]
                  [--dump-ir] [--time-passes] [--verify-each] [-q]

Writes DIR/model.h, model.c, <target>_wrappers.c, weights.bin, runtime/, Makefile,
report.json and partition.dot (and DIR/ir/ with --dump-ir); `accel-run DIR` builds and
runs it. A pipeline that stops at tensor level (`-p byoc`) is completed by `lower`. Every error is one line on stderr and exit code 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from accel.compiler.diagnostics import format_error, print_model_warnings
from accel.tools.one_shot import run_then_exit


def _die(message: str) -> None:
    print(f"accel-compile: {message}", file=sys.stderr)
    sys.exit(1)


def main(argv: Sequence[str] | None = None) -> None:
    print_model_warnings("accel-compile")
    parser = argparse.ArgumentParser(prog="accel-compile", description=__doc__.splitlines()[0])
    parser.add_argument("model", help="an .onnx model or a .mlir file")
    parser.add_argument("--target", required=True, help="accelerator: built-in name or path to a .toml (comma list allowed)")
    parser.add_argument("-o", "--output", required=True, help="output directory")
    parser.add_argument("-p", "--pipeline", default="full", help="pipeline name (byoc, lower, full) or pass list")
    parser.add_argument("--bind-inputs", metavar="NAME=VALUE,...|B.npz",
                        help="graph inputs that become constants (shape, axes, pads inputs), e.g. shape=[1,-1]")
    parser.add_argument("--input-shapes", metavar="NAME=D0xD1x...,...",
                        help="shapes of graph inputs with dynamic dimensions (batch, height, ...), e.g. x=1x3x224x224")
    parser.add_argument("--tuning-log", metavar="LOG.json",
                        help="apply an accel-tune log: each tuned op gets its task's best configuration")
    parser.add_argument("--dump-ir", action="store_true", help="write the IR after every stage to DIR/ir/")
    parser.add_argument("--time-passes", action="store_true",
                        help="print each stage's time (import, every pass, emit, write) to stderr")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="no progress display and no summary line (progress shows only on a terminal)")
    parser.add_argument("--verify-each", action="store_true",
                        help="verify the IR after every pass (a debug aid; by default after import and at the end)")
    parser.error = lambda message: _die(f"error: {message}")  # type: ignore[method-assign]
    args = parser.parse_args(argv)
    try:
        from accel.compiler.driver import compile_to_directory
        from accel.compiler.frontend.graph_inputs import GraphInputs
        from accel.compiler.partition_report import mac_share
        from accel.compiler.progress import StageProgress

        with StageProgress("accel-compile", enabled=not args.quiet) as progress:
            report = compile_to_directory(args.model, args.target, args.output, args.pipeline, args.dump_ir,
                                          verify_each=args.verify_each, on_stage=progress.stage,
                                          inputs=GraphInputs.of(args.bind_inputs, args.input_shapes),
                                          tuning_log=args.tuning_log)
    except KeyboardInterrupt:
        sys.exit(130)
    except BaseException as e:  # ArgSpecParseError is a BaseException
        if isinstance(e, SystemExit):
            raise
        _die(format_error(e))
        return
    if args.time_passes:
        for stage, seconds in report["timing"].items():
            print(f"Pass {stage} took {seconds} seconds", file=sys.stderr)
    if args.quiet:
        return
    ops = report.get("ops", {})
    dma = report.get("dma", {})
    macs = report.get("macs", {"total": 0, "offloaded": 0})
    print(f"accel-compile: wrote {args.output} ({ops.get('offloaded', 0)}/{ops.get('total', 0)} ops offloaded, "
          f"{mac_share(macs)} of MACs, "
          f"{len(report.get('regions', []))} regions, {dma.get('bytes_to_device', 0)} B to device, "
          f"{dma.get('bytes_to_host', 0)} B to host)")


def console_main() -> None:
    """The `accel-compile` command: `main` in a process that ends with it (see
    `one_shot`: the IR is never collected nor torn down)."""
    run_then_exit(main)


if __name__ == "__main__":
    console_main()
