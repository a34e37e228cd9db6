"""Finding and loading accelerator descriptions.

Built-in targets are the `*.toml` files shipped in this package (`npu`, `npu-shared`,
`dsp`, ...), addressed by name; anything that looks like a path (contains a `/` or ends
in `.toml`) is a user's file. Parsed files are cached per process (keyed by path and
modification time). Which descriptions a compile uses, and what a name means in it, is
the target context's business (`accel.compiler.targets.context`).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable

from accel.compiler.diagnostics import CompileError, one_line
from accel.compiler.targets.schema import TargetDescription, parse_description

_HERE = os.path.dirname(os.path.abspath(__file__))
_CACHE: dict[tuple[str, int], TargetDescription] = {}


def builtin_target_names() -> list[str]:
    return sorted(f[: -len(".toml")] for f in os.listdir(_HERE) if f.endswith(".toml"))


def _is_path(name_or_path: str) -> bool:
    return "/" in name_or_path or os.sep in name_or_path or name_or_path.endswith(".toml")


def load_target(name_or_path: str) -> TargetDescription:
    """A built-in target by name or a user's `.toml` file. Bad input raises
    `CompileError` (one line: file, key, expected)."""
    if not name_or_path:
        raise CompileError("no target given (use --target NAME or a pass option like target=npu)")
    if _is_path(name_or_path):
        return load_target_file(name_or_path)
    builtin = os.path.join(_HERE, f"{name_or_path}.toml")
    if os.path.isfile(builtin):
        return load_target_file(builtin)
    raise CompileError(
        f"unknown target '{name_or_path}' (built-in targets: {', '.join(builtin_target_names())}; "
        "or give the path of a .toml description)"
    )


def load_target_file(path: str) -> TargetDescription:
    try:
        key = (os.path.abspath(path), os.stat(path).st_mtime_ns)
        cached = _CACHE.get(key)
        if cached is not None:
            return cached
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as e:
        raise CompileError(f"cannot read target description '{path}': {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise CompileError(f"invalid TOML: {one_line(str(e))}", location=path) from None
    target = parse_description(data, path)
    _CACHE[key] = target
    return target


def target_names(option: str | Iterable[str]) -> tuple[str, ...]:
    """A pass's target option as a tuple: "npu,dsp", ("npu", "dsp") or ("npu,dsp",)."""
    items = [option] if isinstance(option, str) else list(option)
    names: list[str] = []
    for item in items:
        names.extend(n.strip() for n in item.split(",") if n.strip())
    return tuple(names)

