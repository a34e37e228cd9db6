"""What the user fixes of an ONNX model's graph inputs at import time (`GraphInputs`).

Bound inputs (TVM's freeze_params): graph inputs given a value, so that a shape, axes,
pads, scales or clip-bound input is a constant and leaves the model's signature.

    --bind-inputs shape=[1,-1],axes=[0],lo=0.5     NAME=VALUE entries, comma separated
    --bind-inputs bound.npz                        arrays keyed by input name

A VALUE is a number or a bracketed (nested) list of numbers. The importer converts it
to the input's element type and declared shape (a value with the declared number of
elements is reshaped; a dynamic dimension takes the value's). Every mistake is one
`CompileError` line naming the entry.

Input shapes (TVM's `shape` dict, onnxruntime's free dimension overrides): the sizes of
graph inputs whose dimensions the model leaves dynamic (`batch`, `height`, unknown), so
that a model exported with dynamic axes compiles as it is.

    --input-shapes x=1x3x640x640,mask=1x640        NAME=D0xD1x... entries, comma separated

A given shape has the input's rank and keeps its declared sizes.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from accel.compiler.diagnostics import CompileError, one_line

OPTION = "--bind-inputs"

Bindings = Mapping[str, np.ndarray]


def parse_bindings(spec: str | None) -> dict[str, np.ndarray]:
    """`NAME=VALUE,...` or an `.npz` path -> arrays by input name (empty for None/"")."""
    if not spec:
        return {}
    if "=" not in spec:
        return _load_npz(spec)
    out: dict[str, np.ndarray] = {}
    for entry in _split_entries(spec):
        name, eq, text = entry.partition("=")
        name = name.strip()
        if not eq or not name:
            raise CompileError(f"{OPTION}: '{entry}' is not NAME=VALUE")
        if name in out:
            raise CompileError(f"{OPTION}: input '{name}' is bound twice")
        out[name] = _parse_value(name, text.strip())
    return out


def _split_entries(spec: str) -> list[str]:
    """Split at the commas outside brackets."""
    entries, depth, start = [], 0, 0
    for i, ch in enumerate(spec):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise CompileError(f"{OPTION}: unbalanced ']' in '{spec}'")
        elif ch == "," and depth == 0:
            entries.append(spec[start:i])
            start = i + 1
    if depth:
        raise CompileError(f"{OPTION}: unbalanced '[' in '{spec}'")
    entries.append(spec[start:])
    return [e.strip() for e in entries if e.strip()]


def _parse_value(name: str, text: str) -> np.ndarray:
    try:
        value = ast.literal_eval(text)
        arr = np.asarray(value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        arr = None
    if arr is None or arr.dtype.kind not in "biuf" or arr.dtype == object:
        raise CompileError(f"{OPTION}: the value of '{name}' ('{text}') must be a number or a [list] of numbers")
    return arr


def _load_npz(path: str) -> dict[str, np.ndarray]:
    if not os.path.exists(path):
        raise CompileError(f"{OPTION}: '{path}' is neither NAME=VALUE entries nor an existing .npz file")
    try:
        with np.load(path, allow_pickle=False) as data:
            return {k: np.asarray(data[k]) for k in data.files}
    except Exception as e:
        raise CompileError(f"{OPTION}: cannot read '{path}': {one_line(str(e))}") from None


def bound_value(name: str, value: np.ndarray, shape: tuple[int | None, ...], dtype: np.dtype) -> np.ndarray:
    """`value` as the graph input `name` of `shape` (None: a dynamic dimension) and `dtype`."""
    arr = np.asarray(value)
    if arr.dtype.kind == "f" and dtype.kind in "iub" and not np.all(np.isfinite(arr) & (arr == np.round(arr))):
        raise CompileError(f"{OPTION}: input '{name}' is {dtype.name}, but its value {arr.tolist()} is not integral")
    if dtype.kind in "iu" and arr.size:
        info = np.iinfo(dtype)
        if arr.min() < info.min or arr.max() > info.max:
            raise CompileError(f"{OPTION}: the value of input '{name}' does not fit its type {dtype.name}")
    converted = arr.astype(dtype)
    if all(d is not None for d in shape):
        want = tuple(int(d) for d in shape)
        if converted.shape != want:
            if converted.size != int(np.prod(want, dtype=np.int64)):
                raise CompileError(f"{OPTION}: input '{name}' has shape {list(want)} ({int(np.prod(want))} "
                                   f"elements), the value {list(converted.shape)} has {converted.size}")
            converted = converted.reshape(want)
        return converted
    if len(converted.shape) != len(shape) or any(d is not None and d != s for d, s in zip(shape, converted.shape)):
        shown = ["?" if d is None else d for d in shape]
        raise CompileError(f"{OPTION}: input '{name}' has shape {shown}, the value {list(converted.shape)}")
    return converted


# ---- input shapes -------------------------------------------------------------------

SHAPES_OPTION = "--input-shapes"

Shapes = Mapping[str, tuple[int, ...]]


def parse_input_shapes(spec: str | Mapping | None) -> dict[str, tuple[int, ...]]:
    """`NAME=1x3x640x640,...` (or shapes by name) -> shapes by input name, every size a
    positive integer (`NAME=` is a scalar)."""
    if not spec:
        return {}
    items = spec.items() if isinstance(spec, Mapping) else [_shape_entry(e) for e in spec.split(",") if e.strip()]
    out: dict[str, tuple[int, ...]] = {}
    for name, dims in items:
        if name in out:
            raise CompileError(f"{SHAPES_OPTION}: input '{name}' is given twice")
        try:
            shape = tuple(int(d) for d in dims)
        except (TypeError, ValueError):
            shape = None
        if shape is None or any(d < 1 for d in shape):
            shown = "x".join(map(str, dims)) if isinstance(dims, (list, tuple)) else repr(dims)
            raise CompileError(f"{SHAPES_OPTION}: the shape of '{name}' ({shown}) must be positive sizes")
        out[name] = shape
    return out


def _shape_entry(entry: str) -> tuple[str, list[str]]:
    # The last '=' splits: an ONNX name may hold one, a shape never does.
    name, eq, text = entry.strip().rpartition("=")
    if not eq or not name:
        raise CompileError(f"{SHAPES_OPTION}: '{entry.strip()}' is not NAME=D0xD1x... (e.g. x=1x3x224x224)")
    dims = [d.strip() for d in text.split("x")] if text.strip() else []
    if not all(d.isdigit() for d in dims):
        raise CompileError(f"{SHAPES_OPTION}: the shape of '{name}' ('{text.strip()}') must be sizes joined by "
                           "'x', e.g. 1x3x224x224")
    return name, dims


def given_shape(name: str, declared: tuple[int | None, ...], given: tuple[int, ...]) -> tuple[int, ...]:
    """The shape of graph input `name` declared as `declared` (None: a dynamic dimension)
    once `--input-shapes` gives it `given`: same rank, and the declared sizes kept."""
    shown = "x".join("?" if d is None else str(d) for d in declared) or "a scalar"
    if len(given) != len(declared):
        raise CompileError(f"{SHAPES_OPTION}: input '{name}' has rank {len(declared)} ({shown}), "
                           f"the given shape {'x'.join(map(str, given)) or 'a scalar'} rank {len(given)}")
    for i, (d, g) in enumerate(zip(declared, given)):
        if d is not None and d != g:
            raise CompileError(f"{SHAPES_OPTION}: input '{name}' has size {d} in dimension {i} ({shown}), "
                               f"the given shape {'x'.join(map(str, given))} says {g}")
    return given


@dataclass(frozen=True)
class GraphInputs:
    """What the user fixes of an ONNX model's graph inputs at import: values
    (`--bind-inputs`: those inputs become constants) and shapes (`--input-shapes`: their
    dynamic dimensions get sizes, as TVM's `shape` dict or onnxruntime's free dimension
    overrides do)."""

    values: Bindings = field(default_factory=dict)
    shapes: Shapes = field(default_factory=dict)

    @staticmethod
    def of(bind_inputs: Bindings | str | None = None, input_shapes: Shapes | str | None = None) -> GraphInputs:
        """From the options' text (or arrays and shapes by name)."""
        values = parse_bindings(bind_inputs) if isinstance(bind_inputs, str) else dict(bind_inputs or {})
        return GraphInputs(values, parse_input_shapes(input_shapes))

    def __bool__(self) -> bool:
        return bool(self.values or self.shapes)
