"""Emitters: output targets of `accel-opt -t` and the artifact writer of accel-compile."""

from collections.abc import Callable

def _c_target() -> type:
    from accel.compiler.backend.c_target import CTarget

    return CTarget


def _commands_target() -> type:
    from accel.compiler.backend.commands_target import CommandsTarget

    return CommandsTarget


ACCEL_OUTPUT_TARGETS: dict[str, Callable[[], type]] = {"c": _c_target, "commands": _commands_target}
