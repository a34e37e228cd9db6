"""The console entry of a command whose process ends with its one compile.

A compile's IR is millions of Python objects in reference cycles (ops, blocks, values,
uses), and the passes leave as many again as garbage. With the cycle collector on, every
full collection walks all of it, and their number grows with the work: accel-opt
`-p full` on a 10,000-node CNN spends a quarter of its time in the collector. A process
that exits after the compile needs none of that memory back, so (as mypy does) the
collector stays off and the process ends once its output is flushed, without the last
collection and the freeing of every object that an orderly exit does. Library callers
(tests, accel-tune, the API) keep the collector: `driver.cycle_collection_paused` pauses
it only while a compile runs."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable
from typing import NoReturn


def run_then_exit(main: Callable[[], None]) -> NoReturn:
    """Run `main` with the cycle collector off, then end the process with its exit code
    (`sys.exit`'s conventions: None is 0, a string is printed and is 1)."""
    gc.disable()
    code: int | str | None = 0
    try:
        main()
    except SystemExit as e:
        code = e.code
    if isinstance(code, str):
        print(code, file=sys.stderr)
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code or 0)
