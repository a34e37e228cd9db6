"""accel-fuzz: differential fuzzing of the whole compiler, and crash fuzzing of its parsers.

    accel-fuzz [-n N] [--seed S] [--start I] [-j J] [--max-ops K] [-o DIR] [--shrink-seconds T]
    accel-fuzz --parsers [-n N] [--seed S] [-j J]

Graphs (default): N random relay graphs with random target descriptions and pipelines,
compiled to C, run on the simulator and compared with the reference interpreter
(`accel.compiler.fuzz.differential`). Every failure is minimised and written as a
regression case into DIR (default fuzz-failures/): graph.mlir, inputs.npz, the target
.toml(s), command.sh, failure.json. `--parsers`: N malformed inputs (mutated IR text, ONNX
bytes, target TOML) must each give one clean error, never a traceback
(`accel.compiler.fuzz.parsers`). Deterministic by seed; case I of seed S is the same
case at any -j. Progress on a terminal; exit 1 if anything failed. Needs hypothesis (the
`test` extra, installed by `make setup`).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed


def _die(message: str) -> None:
    print(f"accel-fuzz: {message}", file=sys.stderr)
    sys.exit(1)


def _graph_job(seed: int, index: int, max_ops: int, out: str, shrink_seconds: float):
    from accel.compiler.fuzz.differential import fuzz_one

    return fuzz_one(seed, index, max_ops, out, shrink_seconds)


def _parser_job(seed: int, index: int, max_ops: int, out: str, shrink_seconds: float):
    from accel.compiler.fuzz.parsers import fuzz_parser_one

    return fuzz_parser_one(seed, index, out)


def _run(job: Callable, args: argparse.Namespace, what: str) -> Counter:
    """Run `job` on every index with a progress bar; failures are printed as they come."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    counts: Counter = Counter()
    console = Console(stderr=True)
    columns = (TextColumn(f"accel-fuzz {what}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TimeRemainingColumn(), TextColumn("{task.fields[tally]}"))
    with Progress(*columns, console=console, disable=args.quiet or not console.is_terminal) as progress:
        task = progress.add_task(what, total=args.n, tally="")
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            futures = [pool.submit(job, args.seed, i, args.max_ops, args.output, args.shrink_seconds)
                       for i in range(args.start, args.start + args.n)]
            for future in as_completed(futures):
                outcome = future.result()
                counts[outcome.status] += 1
                if outcome.status == "failed":
                    where = f" -> {outcome.regression}" if outcome.regression else ""
                    progress.console.print(f"case {outcome.index}: {outcome.summary}{where}", markup=False, highlight=False)
                tally = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
                progress.update(task, advance=1, tally=tally)
    return counts


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="accel-fuzz", description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=100, help="how many cases (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="the run's seed (default 0)")
    parser.add_argument("--start", type=int, default=0, help="index of the first case (replay one with --start I -n 1)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: cores)")
    parser.add_argument("--max-ops", type=int, default=8, help="op kinds per graph, at most (default 8)")
    parser.add_argument("-o", "--output", default="fuzz-failures", help="where minimised failures go (default fuzz-failures/)")
    parser.add_argument("--shrink-seconds", type=float, default=120.0, help="minimisation budget per failure (default 120)")
    parser.add_argument("--parsers", action="store_true", help="fuzz the parsers with malformed inputs instead")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress display")
    parser.error = lambda message: _die(f"error: {message}")  # type: ignore[method-assign]
    args = parser.parse_args(argv)
    if args.n < 0 or args.start < 0 or args.jobs < 1 or args.max_ops < 1 or args.shrink_seconds < 0:
        _die("error: -n, --start, --shrink-seconds must be >= 0 and -j, --max-ops >= 1")
    try:
        import hypothesis  # noqa: F401
    except ImportError:
        _die("error: accel-fuzz needs hypothesis (pip install -e '.[test]', or make setup)")
    what = "parsers" if args.parsers else "graphs"
    os.makedirs(args.output, exist_ok=True)
    counts = _run(_parser_job if args.parsers else _graph_job, args, what)
    failed = counts.pop("failed", 0)
    detail = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
    print(f"accel-fuzz: {args.n} {what} (seed {args.seed}, cases {args.start}..{args.start + args.n - 1}): "
          f"{detail}; {failed} failure{'s' if failed != 1 else ''}"
          + (f" (minimised cases in {args.output}/)" if failed and not args.parsers else ""))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
