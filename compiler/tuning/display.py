"""accel-tune's progress on a terminal: tasks, trials, best predicted speedup so far and
the ETA (rich's progress bar, on stderr). Quiet when stderr is not a terminal."""

from __future__ import annotations

import sys

from accel.compiler.tuning.tuner import Progress


class TerminalProgress(Progress):
    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self._bar = None
        self._id = None
        self._tasks = 0

    def start(self, tasks: int, trials: int) -> None:
        if not self.enabled:
            return
        from rich.console import Console  # only on a terminal: rich costs start-up time
        from rich.progress import BarColumn, MofNCompleteColumn, Progress as Bar, TextColumn, TimeRemainingColumn

        self._tasks = tasks
        self._bar = Bar(TextColumn("accel-tune"), BarColumn(), MofNCompleteColumn(), TextColumn("trials"),
                        TextColumn("{task.fields[status]}"), TimeRemainingColumn(), console=Console(stderr=True))
        self._bar.start()
        self._id = self._bar.add_task("tune", total=trials, status=f"0/{tasks} tasks")

    def update(self, tasks_done: int, trials_done: int, best_speedup: float) -> None:
        if self._bar is not None:
            self._bar.update(self._id, completed=trials_done,
                             status=f"{tasks_done}/{self._tasks} tasks, best {best_speedup:.3f}x")

    def finish(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
