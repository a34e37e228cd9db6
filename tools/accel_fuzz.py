"""accel-fuzz: differential fuzzing of the whole compiler, and crash fuzzing of its parsers.

    accel-fuzz [-n N] [--seed S] [--start I] [-j J] [--minutes M] [--max-ops K] [-o DIR] [--shrink-seconds T]
               [--kinds all|classic|new]
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
import importlib.util
import os
import signal
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait


def _die(message: str) -> None:
    print(f"accel-fuzz: {message}", file=sys.stderr)
    sys.exit(1)


def _graph_job(seed: int, index: int, max_ops: int, out: str, shrink_seconds: float, kinds: str):
    from accel.compiler.fuzz.differential import fuzz_one

    return fuzz_one(seed, index, max_ops, out, shrink_seconds, kinds=kinds)


def _parser_job(seed: int, index: int, max_ops: int, out: str, shrink_seconds: float, kinds: str):
    from accel.compiler.fuzz.parsers import fuzz_parser_one

    return fuzz_parser_one(seed, index, out)


def _ignore_interrupts() -> None:
    """Workers leave Ctrl-C to the parent, which stops them and reports what ran."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run(job: Callable, args: argparse.Namespace, what: str) -> tuple[Counter, int, bool]:
    """Run `job` on the indices with a progress bar (until -n cases or --minutes are
    done; at most 2 cases per worker in flight); failures are printed as they come.
    Returns the tally, how many cases ran, and whether Ctrl-C stopped the run."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    counts: Counter = Counter()
    console = Console(stderr=True)
    columns = (TextColumn(f"accel-fuzz {what}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TimeRemainingColumn(), TextColumn("{task.fields[tally]}"))
    deadline = time.monotonic() + args.minutes * 60 if args.minutes else None
    indices = iter(range(args.start, args.start + args.n))
    done = 0
    interrupted = False
    with Progress(*columns, console=console, disable=args.quiet or not console.is_terminal) as progress:
        task = progress.add_task(what, total=args.n, tally="")
        pool = ProcessPoolExecutor(max_workers=args.jobs, initializer=_ignore_interrupts)
        try:
            pending = set()
            while True:
                while len(pending) < 2 * args.jobs and (deadline is None or time.monotonic() < deadline):
                    index = next(indices, None)
                    if index is None:
                        break
                    pending.add(pool.submit(job, args.seed, index, args.max_ops, args.output, args.shrink_seconds,
                                            args.kinds))
                if not pending:
                    break
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    outcome = future.result()
                    done += 1
                    counts[outcome.status] += 1
                    if outcome.status == "failed":
                        where = f" -> {outcome.regression}" if outcome.regression else ""
                        progress.console.print(f"case {outcome.index}: {outcome.summary}{where}", markup=False,
                                               highlight=False)
                tally = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
                progress.update(task, completed=done, tally=tally)
        except KeyboardInterrupt:
            interrupted = True
            for process in list(getattr(pool, "_processes", {}).values()):
                process.terminate()  # in-flight cases are dropped, not waited for
        finally:
            pool.shutdown(wait=not interrupted, cancel_futures=True)
    return counts, done, interrupted


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="accel-fuzz", description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=100, help="how many cases (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="the run's seed (default 0)")
    parser.add_argument("--start", type=int, default=0, help="index of the first case (replay one with --start I -n 1)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: cores)")
    parser.add_argument("--max-ops", type=int, default=8, help="op kinds per graph, at most (default 8)")
    parser.add_argument("-o", "--output", default="fuzz-failures", help="where minimised failures go (default fuzz-failures/)")
    parser.add_argument("--shrink-seconds", type=float, default=120.0, help="minimisation budget per failure (default 120)")
    parser.add_argument("--minutes", type=float, default=0.0,
                        help="stop starting cases after this many minutes (the summary says how many ran)")
    parser.add_argument("--kinds", choices=("all", "classic", "new"), default="all",
                        help="op kinds drawn: all (default); classic: those alone that were drawn before the newer "
                             "kinds came (the cases of the seeds run then); new: the newer ones alone")
    parser.add_argument("--parsers", action="store_true", help="fuzz the parsers with malformed inputs instead")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress display")
    parser.error = lambda message: _die(f"error: {message}")  # type: ignore[method-assign]
    args = parser.parse_args(argv)
    if min(args.n, args.start, args.shrink_seconds, args.minutes) < 0 or args.jobs < 1 or args.max_ops < 1:
        _die("error: -n, --start, --shrink-seconds, --minutes must be >= 0 and -j, --max-ops >= 1")
    if importlib.util.find_spec("hypothesis") is None:
        _die("error: accel-fuzz needs hypothesis (pip install -e '.[test]', or make setup)")
    what = "parsers" if args.parsers else "graphs"
    os.makedirs(args.output, exist_ok=True)
    counts, done, interrupted = _run(_parser_job if args.parsers else _graph_job, args, what)
    failed = counts.pop("failed", 0)
    detail = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
    last = f"{args.start}..{args.start + done - 1}" if done else "none"
    print(f"accel-fuzz: {done} {what} (seed {args.seed}, cases {last}): "
          f"{detail or 'nothing ran'}; {failed} failure{'s' if failed != 1 else ''}"
          + (f" (minimised cases in {args.output}/)" if failed and not args.parsers else "")
          + (" (interrupted)" if interrupted else ""))
    sys.exit(130 if interrupted else 1 if failed else 0)


if __name__ == "__main__":
    main()
