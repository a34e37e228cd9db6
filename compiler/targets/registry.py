"""Finding and loading accelerator descriptions.

Built-in targets are the `*.toml` files shipped in this package (`npu`, `npu-shared`,
`dsp`, ...), addressed by name; anything that looks like a path (contains a `/` or ends
in `.toml`) is a user's file. Loads are cached per file. A description loaded from a
path is also found by its `name` afterwards in the same process, so later passes can
resolve `accel.target = "<name>"`.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable

from accel.compiler.diagnostics import CompileError, one_line
from accel.compiler.targets.schema import TargetDescription, parse_description

_HERE = os.path.dirname(os.path.abspath(__file__))
_CACHE: dict[str, TargetDescription] = {}
_BY_NAME: dict[str, TargetDescription] = {}


def builtin_target_names() -> list[str]:
    return sorted(f[: -len(".toml")] for f in os.listdir(_HERE) if f.endswith(".toml"))


def _is_path(name_or_path: str) -> bool:
    return "/" in name_or_path or os.sep in name_or_path or name_or_path.endswith(".toml")


def load_target(name_or_path: str) -> TargetDescription:
    """A built-in target by name, a target loaded earlier by path (by its name), or a
    user's `.toml` file. Bad input raises `CompileError` (one line: file, key, expected)."""
    if not name_or_path:
        raise CompileError("no target given (use --target NAME or a pass option like target=npu)")
    if _is_path(name_or_path):
        return load_target_file(name_or_path)
    builtin = os.path.join(_HERE, f"{name_or_path}.toml")
    if name_or_path in _BY_NAME:
        return _BY_NAME[name_or_path]
    if os.path.isfile(builtin):
        return load_target_file(builtin)
    raise CompileError(
        f"unknown target '{name_or_path}' (built-in targets: {', '.join(builtin_target_names())}; "
        "or give the path of a .toml description)"
    )


def load_target_file(path: str) -> TargetDescription:
    key = os.path.abspath(path)
    cached = _CACHE.get(key)
    if cached is not None:
        return cached
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as e:
        raise CompileError(f"cannot read target description '{path}': {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise CompileError(f"invalid TOML: {one_line(str(e))}", location=path) from None
    target = parse_description(data, path)
    _CACHE[key] = target
    if os.path.dirname(key) != _HERE:
        _BY_NAME[target.name] = target
    return target


def target_names(option: str | Iterable[str]) -> tuple[str, ...]:
    """A pass's target option as a tuple: "npu,dsp", ("npu", "dsp") or ("npu,dsp",)."""
    items = [option] if isinstance(option, str) else list(option)
    names: list[str] = []
    for item in items:
        names.extend(n.strip() for n in item.split(",") if n.strip())
    return tuple(names)


def load_targets(option: str | Iterable[str]) -> tuple[TargetDescription, ...]:
    """Load every target of a (comma-separated) option, in order, without duplicates."""
    targets: list[TargetDescription] = []
    for n in target_names(option):
        t = load_target(n)
        if any(other.name == t.name for other in targets):
            raise CompileError(f"target '{t.name}' is listed twice")
        targets.append(t)
    return tuple(targets)
