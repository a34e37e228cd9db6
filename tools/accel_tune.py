"""accel-tune: search the target's tuning space for each offloaded op of a model, measuring
candidates on the simulator; `accel-compile --tuning-log LOG` applies the result.

    accel-tune MODEL.(onnx|mlir) --target T -o LOG.json [--trials N] [--strategy grid|random|anneal|model]
               [--executor local|ray|ray:ADDRESS] [-j N] [--timeout S] [--retries R] [--seed S]
               [--bind-inputs B] [--input-shapes S] [-q]

The log is appended per measurement; Ctrl-C keeps what was measured, and running the same
command again resumes (measured candidates are skipped). At the end each task's choice is
checked in the whole model (a choice that does not pay there gives way to the default).
Prints one line per task (default and chosen cycles, share of the model's cycles) and a
summary with the whole model's estimated cycles without and with the log. Every error is one
line on stderr and exit code 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from accel.compiler.diagnostics import format_error, print_model_warnings


def _die(message: str, code: int = 1) -> None:
    print(f"accel-tune: {message}", file=sys.stderr)
    sys.exit(code)


def main(argv: Sequence[str] | None = None) -> None:
    print_model_warnings("accel-tune")
    parser = argparse.ArgumentParser(prog="accel-tune", description=__doc__.splitlines()[0])
    parser.add_argument("model", help="an .onnx model or a .mlir file")
    parser.add_argument("--target", required=True, help="accelerator: built-in name or path to a .toml (comma list allowed)")
    parser.add_argument("-o", "--output", required=True, metavar="LOG.json", help="the tuning log (appended; resumed)")
    parser.add_argument("--trials", type=int, default=64, help="measurements beyond each task's default (default 64)")
    parser.add_argument("--strategy", default="model", choices=["grid", "random", "anneal", "model"])
    parser.add_argument("--executor", default="local", help="local, ray (start or join a local cluster) or ray:ADDRESS")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="measurements in parallel (default 2)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds before a measurement counts as hung")
    parser.add_argument("--retries", type=int, default=1, help="retries of a failed or hung measurement")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bind-inputs", metavar="NAME=VALUE,...|B.npz", help="graph inputs that become constants")
    parser.add_argument("--input-shapes", metavar="NAME=D0xD1x...,...",
                        help="shapes of graph inputs with dynamic dimensions (batch, height, ...), e.g. x=1x3x224x224")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress display and no per-task lines")
    parser.error = lambda message: _die(f"error: {message}")  # type: ignore[method-assign]
    args = parser.parse_args(argv)
    if args.trials < 0 or args.jobs < 1 or args.timeout <= 0 or args.retries < 0:
        _die("error: --trials and --retries must be >= 0, --jobs >= 1, --timeout > 0")
    try:
        from accel.compiler.tuning.display import TerminalProgress
        from accel.compiler.tuning.executors import make_executor
        from accel.compiler.frontend.graph_inputs import GraphInputs
        from accel.compiler.tuning.tuner import tune

        with make_executor(args.executor, args.jobs, args.timeout, args.retries) as executor:
            summary = tune(args.model, args.target, args.output, executor, args.trials, args.strategy,
                           TerminalProgress(not args.quiet), GraphInputs.of(args.bind_inputs, args.input_shapes), args.seed)
    except KeyboardInterrupt:
        _die(f"interrupted; the measurements so far are in {args.output} (run the same command to resume)", 130)
        return
    except BaseException as e:
        if isinstance(e, SystemExit):
            raise
        _die(format_error(e))
        return
    if args.quiet:
        return
    for t in sorted(summary.tasks, key=lambda t: -t.share):
        gain = f"{t.default / t.best:.3f}x" if t.default and t.best else "-"
        print(f"{t.task.key}  {t.share * 100:5.1f} %  x{t.task.instances}  default {t.default}  best {t.best} "
              f"({gain}, {t.measured}/{t.space} measured)  {t.task.summary}  {t.config}")
    ratio = summary.model_tuned / summary.model_default if summary.model_default else 1.0
    print(f"accel-tune: {len(summary.tasks)} tasks, {summary.measurements} measurements ({summary.failures} failed) "
          f"in {summary.seconds:.1f} s; whole model {summary.model_default} -> {summary.model_tuned} cycles "
          f"({ratio:.3f}x, estimated); log {args.output}")


if __name__ == "__main__":
    main()
