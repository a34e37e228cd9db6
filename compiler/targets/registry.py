"""Finding and loading accelerator descriptions.

Built-in targets are the `*.toml` files shipped in this package (`npu`, `npu-shared`,
`dsp`, ...), addressed by name; anything that looks like a path (contains a `/` or ends
in `.toml`) is a user's file. Parsed files are cached per process (keyed by path and
modification time): the built-ins, and the user files last used (`FILE_CACHE_SIZE`). Which descriptions a compile uses, and what a name means in it, is
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
"""Parsed descriptions by (absolute path, modification time), least recently used first."""

FILE_CACHE_SIZE = 16
"""User files kept parsed: a process that loads many (the fuzzer draws a description per
case) holds these, not every one it ever read (each holds its pattern modules' IR)."""


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
        cached = _CACHE.pop(key, None)
        if cached is not None:
            _CACHE[key] = cached  # now the most recently used
            return cached
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as e:
        raise CompileError(f"cannot read target description '{path}': {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise CompileError(f"invalid TOML: {one_line(str(e))}", location=path) from None
    if EXTENDS_KEY in data:
        data = _derived(data, path, (os.path.abspath(path),))
    target = parse_description(data, path)
    _remember(key, target)
    return target


def _remember(key: tuple[str, int], target: TargetDescription) -> None:
    """Cache `target` under `key`: an older version of the file goes, and user files
    beyond the `FILE_CACHE_SIZE` most recently used (built-ins always stay)."""
    for old in [k for k in _CACHE if k[0] == key[0]]:
        del _CACHE[old]
    _CACHE[key] = target
    users = [k for k in _CACHE if os.path.dirname(k[0]) != _HERE]
    for old in users[:-FILE_CACHE_SIZE]:
        del _CACHE[old]


EXTENDS_KEY = "extends"
"""A description's base: a built-in name or a .toml path (relative to the file). The file
then lists only what differs; `name` it must give (two targets cannot share one)."""


def _read_toml(path: str, referrer: str) -> dict:
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except OSError as e:
        raise CompileError(f"key '{EXTENDS_KEY}': cannot read '{path}': {e.strerror or e}", location=referrer) from None
    except tomllib.TOMLDecodeError as e:
        raise CompileError(f"invalid TOML: {one_line(str(e))}", location=path) from None


def base_path(ref, path: str) -> str:
    """The file an `extends = ref` in the description at `path` names."""
    if not isinstance(ref, str) or not ref:
        raise CompileError(f"key '{EXTENDS_KEY}': expected a built-in target name or a .toml path, got {ref!r}",
                           location=path)
    if _is_path(ref):
        return os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(path)), ref))
    builtin = os.path.join(_HERE, f"{ref}.toml")
    if not os.path.isfile(builtin):
        raise CompileError(f"key '{EXTENDS_KEY}': unknown target '{ref}' (built-in targets: "
                           f"{', '.join(builtin_target_names())}; or give the path of a .toml description)",
                           location=path)
    return builtin


def _anchored(data: dict, base_dir: str) -> dict:
    """The base's file references made absolute, so that they keep naming the base's files
    when the derived description lives elsewhere (library files, pattern files)."""
    out = dict(data)
    library = data.get("library")
    if isinstance(library, dict):
        out["library"] = {k: [x if not isinstance(x, str) or x.startswith("{") or os.path.isabs(x)
                              else os.path.join(base_dir, x) for x in v]
                          if k in ("headers", "sources", "libraries", "include_dirs") and isinstance(v, list) else v
                          for k, v in library.items()}
    patterns = data.get("patterns")
    if isinstance(patterns, list):
        out["patterns"] = [{**p, "file": os.path.join(base_dir, p["file"])}
                           if isinstance(p, dict) and isinstance(p.get("file"), str) and not os.path.isabs(p["file"])
                           else p for p in patterns]
    return out


def _merged(base: dict, over: dict) -> dict:
    """`over` on top of `base`: tables merge key by key, any other value (a scalar, a list,
    an array of tables such as `ops`) replaces the base's."""
    out = dict(base)
    for k, v in over.items():
        out[k] = _merged(base[k], v) if isinstance(v, dict) and isinstance(base.get(k), dict) else v
    return out


def _derived(data: dict, path: str, chain: tuple[str, ...]) -> dict:
    """The description `data` (read from `path`) with its `extends` chain applied."""
    if "name" not in data:
        raise CompileError(f"key 'name': a description that {EXTENDS_KEY} another needs a name of its own",
                           location=path)
    base_file = base_path(data[EXTENDS_KEY], path)
    if base_file in chain:
        raise CompileError(f"key '{EXTENDS_KEY}': '{data[EXTENDS_KEY]}' extends this description again (a cycle)",
                           location=path)
    base = _read_toml(base_file, path)
    if EXTENDS_KEY in base:
        base = _derived(base, base_file, (*chain, base_file))
    own = {k: v for k, v in data.items() if k != EXTENDS_KEY}
    return _merged(_anchored(base, os.path.dirname(base_file)), own)


def target_names(option: str | Iterable[str]) -> tuple[str, ...]:
    """A pass's target option as a tuple: "npu,dsp", ("npu", "dsp") or ("npu,dsp",)."""
    items = [option] if isinstance(option, str) else list(option)
    names: list[str] = []
    for item in items:
        names.extend(n.strip() for n in item.split(",") if n.strip())
    return tuple(names)

