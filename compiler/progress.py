"""Progress of a long compile on a terminal: one status line on stderr naming the stage
that runs, how many stages are done and the time so far (rich's status display). Quiet
when stderr is not a terminal, or when asked to be (`--quiet`).

    with StageProgress("accel-compile", enabled=not args.quiet) as progress:
        compile_to_directory(..., on_stage=progress.stage)
"""

from __future__ import annotations

import sys
import time
from types import TracebackType


class StageProgress:
    def __init__(self, tool: str, enabled: bool = True) -> None:
        self.tool = tool
        self.enabled = enabled and sys.stderr.isatty()
        self.done = 0
        self.start = time.perf_counter()
        self._status = None

    def __enter__(self) -> StageProgress:
        if self.enabled:
            from rich.console import Console  # only on a terminal: rich costs start-up time

            self._status = Console(stderr=True).status(f"{self.tool}: starting")
            self._status.start()
        return self

    def stage(self, name: str) -> None:
        """Called when stage `name` begins."""
        if self._status is not None:
            elapsed = time.perf_counter() - self.start
            self._status.update(f"{self.tool}: {name} ({self.done} stages done, {elapsed:.1f} s)")
        self.done += 1

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._status is not None:
            self._status.stop()
