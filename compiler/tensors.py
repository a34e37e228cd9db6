"""numpy <-> IR: element types, inline `dense<...>` values, and the weights of
`relay.constant external "name"` ops.

External weights live in the file named by the module attribute `relay.weights`: an ONNX
model (initializers and the outputs of `Constant` nodes, by tensor name) or a `.npz`
archive (by key). A relative path is resolved against the directory of the IR file that
names it (see `set_ir_dir`), then against the working directory. Files are read once
per process and cached.
"""

from __future__ import annotations

import functools
import math
import os
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import (
    BytesAttr,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    ModuleOp,
    Signedness,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue

from accel.compiler.narrow_types import SUB_BYTE_INTS, convert, is_narrow, narrow_dtype, narrow_element_type, widen
from accel.dialects import accel
from accel.dialects.memo import by_identity
from accel.compiler.weights_path import resolve_weights_path, set_ir_dir  # noqa: F401 (set_ir_dir: re-exported)
from accel.dialects.relay import WEIGHTS_ATTR, ConstantOp, DequantizeOp, QuantizeOp, shape_of

_TO_NUMPY: dict[tuple[str, int, bool], np.dtype] = {
    ("f", 16, True): np.dtype(np.float16),
    ("f", 32, True): np.dtype(np.float32),
    ("f", 64, True): np.dtype(np.float64),
    ("i", 1, True): np.dtype(np.bool_),
    ("i", 8, True): np.dtype(np.int8),
    ("i", 16, True): np.dtype(np.int16),
    ("i", 32, True): np.dtype(np.int32),
    ("i", 64, True): np.dtype(np.int64),
    ("i", 8, False): np.dtype(np.uint8),
    ("i", 16, False): np.dtype(np.uint16),
    ("i", 32, False): np.dtype(np.uint32),
    ("i", 64, False): np.dtype(np.uint64),
}


class UnsupportedDtype(Exception):
    pass


def numpy_dtype(t: Attribute) -> np.dtype:
    """numpy dtype of an element type (signless integers are signed)."""
    try:
        return _numpy_dtype(t)
    except TypeError:  # an attribute that cannot be hashed (not an element type)
        return _numpy_dtype.__wrapped__(t)


# Element types are few and asked about for every buffer: answered once per type.
@functools.cache
def _numpy_dtype(t: Attribute) -> np.dtype:
    if isinstance(t, TensorType):
        t = t.element_type
    if isinstance(t, Float16Type):
        return _TO_NUMPY[("f", 16, True)]
    if isinstance(t, Float32Type):
        return _TO_NUMPY[("f", 32, True)]
    if isinstance(t, Float64Type):
        return _TO_NUMPY[("f", 64, True)]
    if isinstance(t, IntegerType):
        key = ("i", t.width.data, t.signedness.data != Signedness.UNSIGNED)
        if key in _TO_NUMPY:
            return _TO_NUMPY[key]
    narrow = narrow_dtype(t)
    if narrow is not None:
        return narrow
    raise UnsupportedDtype(f"element type {t} has no numpy equivalent")


@by_identity
def buffer_bytes(t) -> int:
    """Bytes of a memref or tensor of static shape: the one formula of a buffer's size
    (once per type object: passes, the planner and the report ask it of every operand)."""
    n = numpy_dtype(t.element_type).itemsize
    for d in t.get_shape():
        n *= d
    return n


def row_major_strides(shape: Sequence[int]) -> tuple[int, ...]:
    """Element strides of a dense row-major array (an identity layout) of `shape`."""
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * shape[i + 1]
    return tuple(strides)


def unit_axes_map(src: Sequence[int], dst: Sequence[int]) -> list[int] | None:
    """For a reshape from `src` to `dst` that only inserts or drops dimensions of size 1:
    the axis of `dst` each axis of `src` becomes (-1 for a unit axis of `src`, which has
    no one image); None for any other reshape."""
    mapping, j = [], 0
    for s in src:
        if s == 1:
            mapping.append(-1)
            continue
        while j < len(dst) and dst[j] == 1:
            j += 1
        if j == len(dst) or dst[j] != s:
            return None
        mapping.append(j)
        j += 1
    if any(d != 1 for d in dst[j:]):
        return None
    return mapping


def element_type(dtype: np.dtype | type) -> Attribute:
    """IR element type of a numpy dtype (unsigned -> `ui<N>`)."""
    return _element_type(np.dtype(dtype))


@functools.cache
def _element_type(dtype: np.dtype) -> Attribute:
    narrow = narrow_element_type(dtype)
    if narrow is not None:
        return narrow
    if dtype == np.float16:
        return Float16Type()
    if dtype == np.float32:
        return Float32Type()
    if dtype == np.float64:
        return Float64Type()
    if dtype == np.bool_:
        return IntegerType(1)
    if dtype.kind == "i":
        return IntegerType(dtype.itemsize * 8)
    if dtype.kind == "u":
        return IntegerType(dtype.itemsize * 8, Signedness.UNSIGNED)
    raise UnsupportedDtype(f"numpy dtype {dtype} has no IR element type")


def tensor_type(shape, dtype) -> TensorType:
    """Built once per distinct type (construction verifies it)."""
    return _tensor_type(tuple(shape), element_type(dtype))


@functools.cache
def _tensor_type(shape: tuple[int, ...], element: Attribute) -> TensorType:
    return TensorType(element, list(shape))


def dense_from_array(arr: np.ndarray, type: TensorType | None = None) -> DenseIntOrFPElementsAttr:
    arr = np.asarray(arr)
    if type is None:
        type = tensor_type(arr.shape, arr.dtype)
    dt = numpy_dtype(type.element_type)
    flat = np.ascontiguousarray(arr.astype(dt, copy=False)).reshape(-1)
    if dt == np.bool_:
        data = np.where(flat, 0xFF, 0).astype(np.uint8).tobytes()
    elif dt in SUB_BYTE_INTS:  # one value per byte, int4/int2 sign-extended (as xDSL reads i4)
        data = flat.astype(np.int8 if SUB_BYTE_INTS[dt][1] else np.uint8).tobytes()
    elif is_narrow(dt):  # the bit pattern: one byte (two for bf16), little-endian
        data = flat.view(f"<u{dt.itemsize}").tobytes()
    else:
        data = flat.astype(dt.newbyteorder("<"), copy=False).tobytes()
    return DenseIntOrFPElementsAttr(type, BytesAttr(data))


def reshaped_dense(attr: DenseIntOrFPElementsAttr, shape: Sequence[int]) -> DenseIntOrFPElementsAttr:
    """`attr`'s values in `shape` (as many elements): its own bytes under the new type
    where they hold every element in a plain integer or float type (a model's weights are
    not copied to become an accelerator's), else encoded again (a splat, bools, narrow
    types)."""
    dt = numpy_dtype(attr.type.element_type)
    if (dt.kind in "fiu" and dt not in SUB_BYTE_INTS and not is_narrow(dt)
            and element_type(dt) == attr.type.element_type  # (not an index or signless stand-in)
            and len(attr.data.data) == math.prod(shape) * dt.itemsize):
        return DenseIntOrFPElementsAttr(tensor_type(shape, dt), attr.data)
    return dense_from_array(array_from_dense(attr).reshape(tuple(shape)))


def array_from_dense(attr: DenseIntOrFPElementsAttr) -> np.ndarray:
    t = attr.type
    dt = numpy_dtype(t.element_type)
    raw = attr.data.data
    if dt == np.bool_:
        flat = np.frombuffer(raw, dtype=np.uint8) != 0
    elif dt in SUB_BYTE_INTS:
        flat = np.frombuffer(raw, dtype=np.int8 if SUB_BYTE_INTS[dt][1] else np.uint8).astype(dt)
    elif is_narrow(dt):
        flat = np.frombuffer(raw, dtype=f"<u{dt.itemsize}").astype(f"u{dt.itemsize}").view(dt)
    else:  # a read-only view of the attribute's bytes (on a little-endian host)
        flat = np.frombuffer(raw, dtype=dt.newbyteorder("<"))
        if flat.dtype != dt:
            flat = flat.astype(dt)
    shape = tuple(t.get_shape())
    if flat.size == 1 and int(np.prod(shape)) != 1:
        return np.full(shape, flat[0], dtype=dt)  # splat
    return flat.reshape(shape)


# --------------------------------------------------------------------------------------
# External weights
# --------------------------------------------------------------------------------------

_cache: dict[tuple[str, float], dict[str, np.ndarray]] = {}


HASHED_BYTES = 1 << 16
"""`StoredBytes` hashes at most this many bytes of an array (all of a smaller one)."""


def sampled_crc32(data: np.ndarray) -> int:
    """CRC-32 of the bytes `data` (uint8, contiguous) where they are at most
    `HASHED_BYTES`, else of 1,024 runs of 64 bytes spread evenly over them, the last 64
    bytes and the length: a hash for lookups by content (the keys are compared in full
    on a match) at a bounded cost per array, where a model's weights would otherwise be
    read once more per lookup (100 MB for a ResNet-50)."""
    n = data.size
    if n <= HASHED_BYTES:
        return zlib.crc32(data)
    runs, run = 1024, 64
    step = (n - run) // (runs - 1)  # >= run: the runs do not overlap, the last ends at most at n
    sample = np.lib.stride_tricks.as_strided(data, shape=(runs, run), strides=(step, 1))
    return zlib.crc32(data[n - run:], zlib.crc32(np.ascontiguousarray(sample), n & 0xFFFFFFFF))


class StoredBytes:
    """An array's elements as weights.bin stores them (C order, little-endian, a bool a
    byte), without a copy where the array is laid out so: a buffer to write, and a dict
    key equal by content like `bytes` (hashed by `sampled_crc32`, compared in full on a
    match), so a large constant is neither copied to be written nor read whole to be
    looked up."""

    __slots__ = ("data", "_hash")

    def __init__(self, arr: np.ndarray):
        arr = np.asarray(arr)
        if arr.dtype == np.bool_:
            arr = arr.astype(np.uint8)
        else:
            arr = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<"), copy=False)
        self.data: np.ndarray = arr.reshape(-1).view(np.uint8)
        """One byte per element: `len(self.data)` bytes, in the buffer protocol."""
        self._hash = sampled_crc32(self.data)

    def __len__(self) -> int:
        return self.data.size

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, StoredBytes) and self._hash == other._hash
                and np.array_equal(self.data, other.data))


class WeightsError(Exception):
    """A weights file that cannot be read or lacks a tensor (a user error)."""


def _load_onnx_tensors(path: str) -> dict[str, np.ndarray]:
    import onnx
    from onnx import numpy_helper

    try:
        model = onnx.load(path)
    except Exception as e:  # protobuf raises several types
        raise WeightsError(f"{path}: cannot read the ONNX weights file ({e})") from None
    out: dict[str, np.ndarray] = {}
    graphs = [model.graph]
    while graphs:
        g = graphs.pop()
        for init in g.initializer:
            out[init.name] = numpy_helper.to_array(init)
        for node in g.node:
            if node.op_type == "Constant" and node.output:
                for a in node.attribute:
                    if a.name == "value":
                        out[node.output[0]] = numpy_helper.to_array(a.t)
    return out


def load_weights_file(path: str) -> dict[str, np.ndarray]:
    path = resolve_weights_path(path)
    try:
        key = (path, os.path.getmtime(path))
    except OSError:
        raise WeightsError(f"{path}: weights file not found") from None
    if key in _cache:
        return _cache[key]
    if path.endswith(".npz"):
        try:
            with np.load(path, allow_pickle=False) as z:
                tensors = {k: z[k] for k in z.files}
        except Exception as e:
            raise WeightsError(f"{path}: cannot read the weights archive ({e})") from None
    else:
        tensors = _load_onnx_tensors(path)
    _cache[key] = tensors
    return tensors


def register_weights(path: str, tensors: dict[str, np.ndarray]) -> None:
    """Seed the cache (e.g. the ONNX importer, which has the tensors already)."""
    path = resolve_weights_path(path)
    _cache[(path, os.path.getmtime(path))] = tensors


def enclosing_module(op: Operation) -> ModuleOp | None:
    """The outermost module around `op` (it holds `relay.weights`)."""
    found: ModuleOp | None = None
    cur: Operation | None = op
    while cur is not None:
        if isinstance(cur, ModuleOp):
            found = cur
        cur = cur.parent_op()
    return found


def weights_path(module: ModuleOp) -> str | None:
    attr = module.attributes.get(WEIGHTS_ATTR)
    return attr.data if isinstance(attr, StringAttr) else None


@dataclass(frozen=True)
class ModuleWeights:
    """The external tensors of a module and the file (`relay.weights`) they come from."""

    path: str
    tensors: dict[str, np.ndarray]


def module_weights(module: ModuleOp) -> ModuleWeights | None:
    """The module's external tensors, or None when it names no weights file."""
    path = weights_path(module)
    return ModuleWeights(path, load_weights_file(path)) if path is not None else None


def constant_value(op: ConstantOp | accel.WeightOp, weights: ModuleWeights | None = None) -> np.ndarray:
    """The value of a relay.constant or an accel.weight (its buffer-level form), inline
    or external, in the op's shape and element type. `weights`: the enclosing module's
    `module_weights`, from a caller asking for many values (else they are found from the
    op: a walk up to the module and a look at the file's time)."""
    if op.value is not None:
        return array_from_dense(op.value)
    assert op.external is not None
    name = op.external.data
    if weights is None:
        module = enclosing_module(op)
        weights = module_weights(module) if module is not None else None
        if weights is None:
            what = "constant" if isinstance(op, ConstantOp) else "weight"
            raise WeightsError(f"external {what} '{name}' needs a '{WEIGHTS_ATTR}' attribute on the module")
    path, tensors = weights.path, weights.tensors
    if name not in tensors:
        raise WeightsError(f"{path}: has no tensor named '{name}'")
    arr = tensors[name]
    t = op.result.type
    want = tuple(t.get_shape())
    if tuple(arr.shape) != want and arr.size == int(np.prod(want)):
        arr = arr.reshape(want)
    if tuple(arr.shape) != want:
        raise WeightsError(f"{path}: tensor '{name}' has shape {list(arr.shape)}, the IR says {t}")
    return arr.astype(numpy_dtype(t.element_type), copy=False)


def iter_constants(module: ModuleOp) -> Iterator[ConstantOp]:
    for op in module.walk():
        if isinstance(op, ConstantOp):
            yield op


def known_value(v: SSAValue) -> np.ndarray | None:
    """The value of `v` when a relay.constant defines it, else None."""
    owner = v.owner
    return constant_value(owner) if isinstance(owner, ConstantOp) else None


def known_size(v: SSAValue) -> int | None:
    """How many values `v` has when a relay.constant defines it, else None: its type says
    so, and the value (perhaps in the weights file) is not read."""
    return math.prod(shape_of(v.type)) if isinstance(v.owner, ConstantOp) else None


def per_tensor(op: Operation | None, kind: type | tuple[type, ...] = (QuantizeOp, DequantizeOp)) -> bool:
    """Whether `op` is a quantize or dequantize (of `kind`) with one scale and zero point
    (it then acts on each element alone, and commutes with layout changes and slices)."""
    return isinstance(op, kind) and math.prod(shape_of(op.scale.type)) == 1 and \
        math.prod(shape_of(op.zero_point.type)) == 1


def same_value(a: SSAValue, b: SSAValue) -> bool:
    """Whether `a` and `b` are one value, or constants equal in type and values."""
    if a is b:
        return True
    x, y = known_value(a), known_value(b)
    return x is not None and y is not None and x.dtype == y.dtype and np.array_equal(x, y)


def inline_constant(arr: np.ndarray) -> ConstantOp:
    """A relay.constant holding `arr` inline (a computed value has no weights-file name)."""
    return ConstantOp(dense_from_array(np.asarray(arr)))


def cast(data: np.ndarray, dtype, saturate: bool = True, round_mode: str = "up") -> np.ndarray:
    """Element type conversion.
    - to bool: x != 0;
    - float -> integer: truncate toward zero, saturate to the target range, NaN -> 0;
    - integer -> integer: two's-complement wrap-around (C's conversion);
    - -> float: round to nearest even;
    - to or from a narrow type (f8, f4, bf16, i4, ...): `accel.compiler.narrow_types`
      (`saturate` and `round_mode` are ONNX Cast's, read for those types only)."""
    dtype = np.dtype(dtype)
    data = widen(data)
    if is_narrow(dtype):
        return convert(data, dtype, saturate, round_mode)
    if dtype == np.bool_:
        return data != 0
    if data.dtype.kind != "f" or dtype.kind == "f":
        return data.astype(dtype)
    info = np.iinfo(dtype)
    t = np.trunc(data.astype(np.float64))
    below = t < info.min
    # float(info.max) + 1 is the first float past the range (2^31, 2^63, 2^64, ...).
    above = t >= float(info.max) + 1
    nan = np.isnan(t)
    out = np.where(below | above | nan, 0, t).astype(dtype)
    out[below] = info.min
    out[above] = info.max
    return out


# --------------------------------------------------------------------------------------
# Quantized ops (exact integer arithmetic, ONNX rounding)
# --------------------------------------------------------------------------------------
