"""Emitters: output targets of `accel-opt -t` and the artifact writer of accel-compile."""

from collections.abc import Callable

ACCEL_OUTPUT_TARGETS: dict[str, Callable[[], type]] = {}
