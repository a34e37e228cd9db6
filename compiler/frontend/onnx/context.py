"""What an op converter sees: the node being imported, its inputs and the converter registry.

A value of the ONNX graph is either an `SSAValue` of `@main` or a `Const`: a tensor known at
import time (an initializer, a `Constant` node, or the folded result of a shape
computation). Constants stay numpy arrays until an op needs them as an operand; then
`Node.input` materializes them once as `relay.constant` (external when large and named in
the model file, inline otherwise).

Converters are registered per ONNX op type with the attributes they understand; any other
attribute on a node is an error, so an attribute the importer does not know can never be
silently ignored:

    @converter("Relu")
    def relu(n: Node):
        return n.emit(relay.ReluOp(n.input(0)))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import onnx
from onnx import helper, numpy_helper
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from accel.compiler.diagnostics import CompileError, one_line
from accel.compiler.tensors import UnsupportedDtype, element_type, numpy_dtype

if TYPE_CHECKING:
    from accel.compiler.frontend.onnx.importer import GraphImporter


@dataclass(eq=False)
class Const:
    """A tensor known at import time. `file_name` is its name in the model file when the
    values are the file's (possibly reshaped), so a large one can stay external."""

    value: np.ndarray
    file_name: str | None = None

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.value.shape)


@dataclass(eq=False)
class SeqValue:
    """An ONNX sequence, known element by element at import time: a static compiler keeps
    no sequence at run time (every length and position is an import-time number), so only
    its tensors reach relay. `dtype` is the element type (of an empty sequence too)."""

    items: list[SSAValue | Const]
    dtype: np.dtype | None = None


@dataclass(eq=False)
class OptValue:
    """An ONNX optional known at import time: a tensor or sequence, or nothing (None)."""

    value: SSAValue | Const | SeqValue | None


Value = SSAValue | Const | SeqValue | OptValue


# --------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------

ConvertFn = Callable[["Node"], "Value | Sequence[Value | None] | None"]
FoldFn = Callable[["Node", list[np.ndarray | None]], "np.ndarray | Sequence[np.ndarray]"]


@dataclass(frozen=True)
class OpSupport:
    attrs: frozenset[str]
    convert: ConvertFn | None = None
    fold: FoldFn | None = None


OPS: dict[str, OpSupport] = {}

MICROSOFT_DOMAIN = "com.microsoft"
MICROSOFT_OPS: dict[str, OpSupport] = {}
"""Converters of the com.microsoft ops onnxruntime's quantizer and graph optimizer write
(version 1 each)."""
PREVIEW_DOMAIN = "ai.onnx.preview"
PREVIEW_OPS: dict[str, OpSupport] = {}
"""Converters of ONNX's preview-domain ops (version 1 each: FlexAttention)."""
ORT_OPS_OF_THE_ONNX_DOMAIN = frozenset({"SimplifiedLayerNormalization", "LayerNormalization"})
"""onnxruntime's own ops that it registers in the ONNX domain (its optimizers write them
there, LayerNormalization also below ONNX's opset 17): where the model's opset has no ONNX
op of the name, version 1 of onnxruntime's, converted as ONNX's op of the name, else by
MICROSOFT_OPS' converter."""


def _register(op_types: Sequence[str], attrs: Sequence[str], registry: dict[str, OpSupport] = OPS, **kw) -> None:
    for t in op_types:
        old = registry.get(t)
        merged = frozenset(attrs) | (old.attrs if old else frozenset())
        fields = {"convert": old.convert, "fold": old.fold} if old else {}
        fields.update({k: v for k, v in kw.items() if v is not None})
        registry[t] = OpSupport(merged, **fields)


def converter(*op_types: str, attrs: Sequence[str] = (), domain: str = ""):
    """Register the relay converter of `op_types` (accepting `attrs`) of the default
    domain, or of `domain` "com.microsoft" or "ai.onnx.preview"."""
    registry = {MICROSOFT_DOMAIN: MICROSOFT_OPS, PREVIEW_DOMAIN: PREVIEW_OPS}.get(domain, OPS)
    assert domain in ("", MICROSOFT_DOMAIN, PREVIEW_DOMAIN), domain

    def deco(fn: ConvertFn) -> ConvertFn:
        _register(op_types, attrs, registry, convert=fn)
        return fn

    return deco


def folder(*op_types: str, attrs: Sequence[str] = ()):
    """Register the numpy evaluation of `op_types` for nodes whose inputs are all known."""

    def deco(fn: FoldFn) -> FoldFn:
        _register(op_types, attrs, fold=fn)
        return fn

    return deco


# --------------------------------------------------------------------------------------
# Element types
# --------------------------------------------------------------------------------------


def onnx_dtype_name(elem: int) -> str:
    try:
        return onnx.TensorProto.DataType.Name(elem)
    except ValueError:
        return f"#{elem}"


def np_dtype_of(elem: int) -> np.dtype:
    """numpy dtype of an ONNX element type that relay can hold; raises UnsupportedDtype."""
    try:
        dt = np.dtype(helper.tensor_dtype_to_np_dtype(elem))
    except (KeyError, ValueError, TypeError):
        raise UnsupportedDtype(f"element type {onnx_dtype_name(elem)} is not supported") from None
    try:
        element_type(dt)
    except UnsupportedDtype:
        raise UnsupportedDtype(f"element type {onnx_dtype_name(elem)} is not supported") from None
    return dt


def tensor_to_array(t: onnx.TensorProto) -> np.ndarray:
    if t.data_type == onnx.TensorProto.STRING:
        raise UnsupportedDtype("string tensors are not supported")
    np_dtype_of(t.data_type)
    return numpy_helper.to_array(t)


# --------------------------------------------------------------------------------------
# The node being converted
# --------------------------------------------------------------------------------------


@dataclass
class Node:
    """One ONNX node during import: typed access to its attributes and inputs, and the
    place where its relay ops go (each located at the node's name)."""

    proto: onnx.NodeProto
    version: int  # since_version of the op's schema at the model's opset
    importer: GraphImporter
    attrs: dict[str, Any] = field(default_factory=dict)

    @property
    def op_type(self) -> str:
        return self.proto.op_type

    @property
    def name(self) -> str:
        return node_display_name(self.proto)

    # -- errors ------------------------------------------------------------------------

    def error(self, what: str) -> CompileError:
        return self.importer.node_error(self.proto, what)

    # -- attributes --------------------------------------------------------------------

    def attr(self, name: str, default: Any = None) -> Any:
        return self.attrs.get(name, default)

    def ints(self, name: str, default: Sequence[int] | None = None) -> list[int] | None:
        v = self.attrs.get(name)
        if v is None:
            return None if default is None else list(default)
        return [int(x) for x in v]

    def string(self, name: str, default: str) -> str:
        return self.attrs.get(name, default)

    # -- inputs ------------------------------------------------------------------------

    @property
    def num_inputs(self) -> int:
        return len(self.proto.input)

    def has(self, i: int) -> bool:
        return i < len(self.proto.input) and self.proto.input[i] != ""

    def value(self, i: int) -> Value:
        if not self.has(i):
            raise self.error(f"input {i} is missing")
        return self.importer.lookup(self.proto, self.proto.input[i])

    def tensor_value(self, i: int) -> SSAValue | Const:
        """Input `i`, which must be a tensor (not a sequence or optional)."""
        v = self.value(i)
        if isinstance(v, (SeqValue, OptValue)):
            kind = "a sequence" if isinstance(v, SeqValue) else "an optional"
            raise self.error(f"input {i} ('{self.proto.input[i]}') is {kind}; a tensor is expected")
        return v

    def sequence(self, i: int) -> SeqValue:
        """Input `i`, which must be a sequence (an optional holding one is unwrapped)."""
        v = self.value(i)
        if isinstance(v, OptValue) and isinstance(v.value, SeqValue):
            v = v.value
        if not isinstance(v, SeqValue):
            raise self.error(f"input {i} ('{self.proto.input[i]}') is not a sequence")
        return v

    def is_const(self, i: int) -> bool:
        return self.has(i) and isinstance(self.value(i), Const)

    def const(self, i: int, what: str | None = None) -> np.ndarray:
        """The value of input `i`, which must be known at import time."""
        v = self.tensor_value(i)
        if isinstance(v, SSAValue) and v in self.importer.known:
            return self.importer.known[v]
        if not isinstance(v, Const):
            name = self.proto.input[i]
            label = f"{what or f'input {i}'} ('{name}')"
            if name in self.importer.runtime_inputs:
                raise self.error(f"{label} must be a constant; it is a graph input: bind it with "
                                 f"--bind-inputs {name}=VALUE")
            raise self.error(f"{label} must be a constant; a value computed at run time is not supported")
        return v.value

    def opt_const(self, i: int, what: str | None = None) -> np.ndarray | None:
        return self.const(i, what) if self.has(i) else None

    def input(self, i: int) -> SSAValue:
        """Input `i` as an SSA value (constants are materialized)."""
        return self.importer.materialize(self.tensor_value(i))

    def shape(self, i: int) -> tuple[int, ...]:
        v = self.tensor_value(i)
        if isinstance(v, Const):
            return v.shape
        return tuple(v.type.get_shape())

    def dtype(self, i: int) -> np.dtype:
        v = self.tensor_value(i)
        if isinstance(v, Const):
            return v.value.dtype
        return numpy_dtype(v.type.element_type)

    def rank(self, i: int) -> int:
        return len(self.shape(i))

    # -- building ----------------------------------------------------------------------

    def emit(self, op: Operation) -> SSAValue:
        """Add `op` (located at this node) and return its first result."""
        return self.importer.emit(op, self.proto)

    def const_value(self, arr: np.ndarray | Any, dtype=None) -> SSAValue:
        """A new small constant operand (scalars, shapes, zero points)."""
        return self.importer.materialize(Const(np.asarray(arr, dtype=dtype)))


def node_display_name(proto: onnx.NodeProto) -> str:
    if proto.name:
        return proto.name
    for o in proto.output:
        if o:
            return o
    return "<unnamed>"


def node_attributes(proto: onnx.NodeProto) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for a in proto.attribute:
        if a.ref_attr_name:
            raise ValueError(f"attribute '{a.name}' refers to a function attribute")
        if a.type == onnx.AttributeProto.UNDEFINED:  # onnx reads no value of an untyped attribute
            raise ValueError(f"attribute '{a.name}' has no type")
        v = helper.get_attribute_value(a)
        if isinstance(v, bytes):
            v = v.decode("utf-8", "replace")
        elif isinstance(v, list) and v and isinstance(v[0], bytes):
            v = [x.decode("utf-8", "replace") for x in v]
        out[a.name] = v
    return out


def verify_message(e: VerifyException | UnsupportedDtype) -> str:
    msg = str(e.args[0]) if e.args else str(e)
    return one_line(msg.removeprefix("Operation does not verify: "))


def elem_of(v: SSAValue) -> Attribute:
    t = v.type
    assert isinstance(t, TensorType)
    return t.element_type
