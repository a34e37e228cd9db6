"""accel-opt: mlir-opt for accel, on xDSL's opt driver.

    accel-opt [FILE|-] [-p PIPELINE] [--target T] [-t mlir|c] [-o OUT] [xdsl-opt flags]
    accel-opt --list-passes

`-t` chooses the output (`mlir`, ...); `--target` names the accelerator that passes use
when their own `target` option is not given. A `.onnx` input (or `-f onnx`) is imported
first. Every error is one line on stderr and exit code 1.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from collections.abc import Sequence
from io import BytesIO, StringIO
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from accel.compiler.diagnostics import CompileError, LocatingParser, format_error, print_model_warnings, verify_located
from accel.compiler.expected_diagnostics import emitted_error, expected_errors, mismatches
from accel.compiler.targets.context import AccelContext
from accel.compiler.weights_path import set_ir_dir
from accel.tools.one_shot import run_then_exit
from accel.compiler.transforms import ACCEL_PASSES


def _die(message: str) -> None:
    print(f"accel-opt: {message}", file=sys.stderr)
    sys.exit(1)


class AccelOptMain(xDSLOptMain):
    version_format = "accel-opt (xdsl {xdsl_version})"

    def register_all_dialects(self):
        self.ctx = AccelContext()  # the compile's targets ride on the context
        super().register_all_dialects()
        from accel.dialects import ACCEL_DIALECTS

        for name, factory in ACCEL_DIALECTS.items():
            self.ctx.register_dialect(name, factory)

    def register_all_passes(self):
        super().register_all_passes()
        for name, factory in ACCEL_PASSES.items():
            self.register_pass(name, factory)

    def register_all_targets(self):
        super().register_all_targets()
        from accel.compiler.backend import ACCEL_OUTPUT_TARGETS

        self.available_targets.update(ACCEL_OUTPUT_TARGETS)

    def register_all_frontends(self):
        super().register_all_frontends()
        self.available_frontends["onnx"] = self._import_onnx

    def _import_onnx(self, io: IO[bytes]) -> ModuleOp:
        from accel.compiler.frontend.onnx import import_onnx_file

        return import_onnx_file(self.args.input_file or "-", data=io.read(), bind_inputs=self.args.bind_inputs,
                                input_shapes=self.args.input_shapes)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser):
        # `--target` names the accelerator here (as in accel-compile); xdsl-opt's output
        # target keeps its short form `-t` and gets the long form `--emit`.
        original = arg_parser.add_argument

        def add_argument(*names, **kwargs):
            if names == ("-t", "--target"):
                names = ("-t", "--emit")
                kwargs["dest"] = "target"
                kwargs["metavar"] = "FORMAT"
                kwargs["help"] = kwargs["help"].replace("Target to use for output", "Output format").replace(
                    "Available targets are", "Available formats are")
            return original(*names, **kwargs)

        arg_parser.add_argument = add_argument  # type: ignore[method-assign]
        try:
            super().register_all_arguments(arg_parser)
        finally:
            arg_parser.add_argument = original  # type: ignore[method-assign]
        arg_parser.add_argument(
            "--target", dest="accel_target", default=None,
            help="accelerator description (built-in name or path to a .toml) for passes that need one",
        )
        arg_parser.add_argument(
            "--bind-inputs", metavar="NAME=VALUE,...|B.npz",
            help="ONNX graph inputs that become constants at import (shape, axes, pads inputs), e.g. shape=[1,-1]",
        )
        arg_parser.add_argument(
            "--input-shapes", metavar="NAME=D0xD1x...,...",
            help="shapes of ONNX graph inputs with dynamic dimensions (batch, height, ...), e.g. x=1x3x224x224",
        )
        arg_parser.add_argument(
            "--tuning-log", metavar="LOG.json",
            help="apply an accel-tune log (apply-tuning before tile-for-scratchpad; a tensor-level pipeline gets lower)",
        )
        arg_parser.add_argument("--list-passes", action="store_true", help="list accel's passes with their options")
        arg_parser.add_argument(
            "--verify-each", action="store_true",
            help="verify the IR after every pass (a debug aid; by default the input and the output are verified)",
        )
        arg_parser.add_argument("--report", metavar="FILE.json", help="after partitioning: write the partition report")
        arg_parser.add_argument(
            "--explain", action="store_true", help="after partitioning: print op, location, target, reason to stderr"
        )
        arg_parser.add_argument("--dot", metavar="FILE", help="after partitioning: write a Graphviz picture")
        # xDSL's own check of the output target names it by xDSL's flag spelling.
        arg_parser.error = lambda message: _die(  # type: ignore[method-assign]
            "error: " + message.replace("argument -t/--target:", "argument -t/--emit:")
        )

    def setup_pipeline(self):
        from accel.compiler.pipeline import parse_pipeline_spec, with_tuning_log

        if self.args.accel_target:
            self.ctx.targets.select(self.args.accel_target)
        spec = self.args.passes
        if self.args.tuning_log:
            spec = with_tuning_log(spec, self.args.tuning_log)
        passes = tuple(parse_pipeline_spec(self.available_passes, spec))
        self.pipeline = PassPipeline(passes, self._between_passes)
        self._pass_start = time.perf_counter()
        self._partition: PartitionOutputs | None = None

    def _between_passes(self, previous: ModulePass | None, module: ModuleOp, next_pass: ModulePass | None) -> None:
        """Timing (xDSL's `--time-passes` lines, on stderr), verification (of the input and
        the output; after every pass with --verify-each), the partition snapshot for
        --report/--explain/--dot, and --print-between-passes."""
        if previous is not None and self.args.time_passes:
            seconds = time.perf_counter() - self._pass_start
            print(f"Pass {previous.name} took {seconds} seconds", file=sys.stderr)
        if not self.args.disable_verify and (previous is None or next_pass is None or self.args.verify_each):
            verify_located(module)
        if previous is not None and self._wants_partition() and PartitionOutputs.after(previous):
            self._partition = PartitionOutputs.of(module)
        if previous is not None and next_pass is not None and self.args.print_between_passes:
            print(f"// -----// IR after {previous.name} //----- //")
            Printer(stream=sys.stdout).print_op(module)
            print("\n")
        self._pass_start = time.perf_counter()

    def _wants_partition(self) -> bool:
        return bool(self.args.report or self.args.explain or self.args.dot)

    def parse_chunk(self, chunk: IO[bytes], file_extension: str, start_offset: int = 0) -> ModuleOp | None:
        if file_extension == "mlir":
            parser = LocatingParser(self.ctx, chunk.read(), self.get_input_name(), line_offset=start_offset)
            return parser.parse_module(not self.args.no_implicit_module)
        return super().parse_chunk(chunk, file_extension, start_offset)

    def apply_passes(self, prog: ModuleOp):
        self._partition = None
        super().apply_passes(prog)
        self._partition_outputs()

    def _partition_outputs(self) -> None:
        """--report / --explain / --dot, of the IR right after the last partitioning pass
        (as accel-compile's report), not of what later passes lower it to."""
        if not self._wants_partition():
            return
        if self._partition is None:
            raise CompileError("--report, --explain and --dot need a partitioning pipeline (e.g. -p byoc)")
        args = self.args
        if args.report:
            PartitionOutputs.write_report(self._partition.report, args.report)
        if args.dot:
            with open(args.dot, "w", encoding="utf-8") as f:
                f.write(self._partition.dot)
        if args.explain:
            sys.stderr.write(self._partition.explain)

    def output_resulting_program(self, prog: ModuleOp) -> str:
        try:
            return super().output_resulting_program(prog)
        except ValueError as e:  # the output target's options (`-t 'c{...}'`)
            raise CompileError(f"-t/--emit '{self.args.target}': {format_error(e).removeprefix('error: ')}") from None

    def _run_chunk(self, data: bytes, file_extension: str, offset: int) -> tuple[str | None, str | None, bool]:
        """(output, error, whether the error is a parse error) of one input chunk; the
        error is the one-line diagnostic."""
        try:
            module = self.parse_chunk(BytesIO(data), file_extension, offset)
            if module is None:
                return None, None, False
            self.apply_passes(module)
            return self.output_resulting_program(module), None, False
        except ParseError as e:
            e.span = dataclasses.replace(e.span, line_offset=offset)
            return None, format_error(e), True
        except (CompileError, DiagnosticException) as e:
            return None, format_error(e), False

    def run(self):
        if self.args.list_passes:
            print(list_passes(), end="")
            return
        if self.args.input_file is not None:
            set_ir_dir(os.path.dirname(os.path.abspath(self.args.input_file)))
        chunks, file_extension = self.prepare_input()
        file = self.get_input_name()
        to_file = self.args.output_file is not None
        outputs: list[str] = []
        failed = False
        # Every chunk runs, as in mlir-opt: its output goes to stdout (chunks joined by
        # `// -----`), its error to stderr; any failure makes the exit code 1.
        for i, (chunk, offset) in enumerate(chunks):
            if i:
                self.ctx.targets = self.ctx.targets.next_compile()
            data = chunk.read()
            chunk.close()
            output, error, parse_error = self._run_chunk(data, file_extension, offset)
            problems: list[str] = []
            if self.args.verify_diagnostics:
                expected = expected_errors(data.decode("utf-8", "replace"), offset)
                problems = mismatches(file, expected, [emitted_error(error)] if error else [])
            elif error is not None and self.args.parsing_diagnostics and parse_error:
                output = error + "\n"  # xDSL's --parsing-diagnostics: the error is the output
            elif error is not None:
                problems = [error]
            if output is not None:
                outputs.append(output)
                if not to_file:
                    sys.stdout.write(("// -----\n" if len(outputs) > 1 else "") + output)
            if problems:
                failed = True
                sys.stdout.flush()
                for p in problems:
                    print(f"accel-opt: {p}", file=sys.stderr)
        sys.stdout.flush()
        # A failing run never truncates `-o`.
        if to_file and not failed:
            with open(self.args.output_file, "w") as f:
                f.write("// -----\n".join(outputs))
        if failed:
            sys.exit(1)


@dataclasses.dataclass
class PartitionOutputs:
    """What --report, --dot and --explain show, taken right after partitioning."""

    report: dict
    dot: str
    explain: str

    # The partition report imports the target schema, the cost model and numpy (about a
    # third of accel-opt's start-up): only a run with --report/--explain/--dot pays it.

    @staticmethod
    def after(p: ModulePass) -> bool:
        """Whether `p` partitions (the outputs are taken right after it)."""
        from accel.compiler.partition_report import is_partitioning

        return is_partitioning(p.name)

    @staticmethod
    def of(module: ModuleOp) -> PartitionOutputs:
        from accel.compiler.partition_report import analyze, explain_table, partition_dot, partition_report

        part = analyze(module)
        return PartitionOutputs(partition_report(module, part), partition_dot(module, part),
                                explain_table(module, part))

    @staticmethod
    def write_report(report: dict, path: str) -> None:
        from accel.compiler.partition_report import write_report

        write_report(report, path)


def list_passes() -> str:
    out = StringIO()
    for name in sorted(ACCEL_PASSES):
        cls = ACCEL_PASSES[name]()
        doc = (cls.__doc__ or "").strip().splitlines()
        out.write(f"{name}: {doc[0] if doc else ''}\n")
        for f in dataclasses.fields(cls):
            default = f.default if f.default is not dataclasses.MISSING else "(required)"
            if isinstance(default, bool):
                default = str(default).lower()
            out.write(f"    {f.name.replace('_', '-')}={default}\n")
    from accel.compiler.pipeline import PIPELINES

    out.write("pipelines (-p NAME):\n")
    for name, spec in PIPELINES.items():
        out.write(f"  {name}: {spec}\n")
    out.write("xDSL's own passes are available too (see accel-opt -h).\n")
    out.write("flags: --time-passes (each pass's time on stderr), --split-input-file (every chunk runs),\n"
              "  --verify-each (verify after every pass, not only the input and the output),\n"
              "  --verify-diagnostics (expected-error annotations must match), -t/--emit FORMAT (output),\n"
              "  --target T (accelerator), --report/--explain/--dot (the partition)\n")
    return out.getvalue()


def main(argv: Sequence[str] | None = None) -> None:
    print_model_warnings("accel-opt")
    try:
        AccelOptMain(description="accel optimizer driver", args=argv).run()
    except SystemExit:
        raise
    except KeyboardInterrupt:
        sys.exit(130)
    except BaseException as e:  # ArgSpecParseError is a BaseException
        _die(format_error(e))


def console_main() -> None:
    """The `accel-opt` command: `main` in a process that ends with it (see `one_shot`:
    the IR is never collected nor torn down)."""
    run_then_exit(main)


if __name__ == "__main__":
    console_main()
