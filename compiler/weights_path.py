"""Where relative weight-file paths start: the directory of the IR file being processed.

Kept apart from `accel.compiler.tensors` (which reads the files, with numpy) so that a
tool setting it for every input, like accel-opt, does not import numpy at start-up.
"""

from __future__ import annotations

import os

_ir_dir: str | None = None


def set_ir_dir(directory: str | None) -> None:
    """Directory of the IR file being processed; relative weight paths start there."""
    global _ir_dir
    _ir_dir = directory


def resolve_weights_path(path: str) -> str:
    if os.path.isabs(path):
        return path
    if _ir_dir is not None:
        cand = os.path.join(_ir_dir, path)
        if os.path.exists(cand):
            return cand
    return os.path.abspath(path)
