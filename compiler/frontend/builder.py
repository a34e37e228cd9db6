"""Python builder API for relay graphs.

    b = GraphBuilder()
    x = b.input("x", (1, 3, 8, 8))
    w = b.const(np.ones((8, 3, 3, 3), np.float32))
    y = b.relu(b.conv2d(x, w, strides=(2, 2), padding=(1, 1, 1, 1)))
    module = b.build([y], output_names=["y"])

Every op method infers its result type (the verifier's inference), so a wrong shape
fails at the call with the verifier's message. Op methods are named after the relay op
(`conv2d`, `bias_add`, `max_pool2d`, ...); quantized ones carry a `qnn_` prefix
(`qnn_conv2d`, `qnn_quantize`, ...).

Names: `@main`'s arguments and results carry their model names in the `accel.name`
argument/result attribute; those are the keys of accel-run's npz files.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from accel.compiler.tensors import dense_from_array, numpy_dtype, tensor_type
from accel.dialects import relay
from accel.dialects.relay import WEIGHTS_ATTR
from accel.dialects.conventions import name_attrs

"""Argument/result attribute of `@main`: the model's name of an input or output."""

_OPS: dict[str, type[relay.RelayOp]] = {}
for _cls in relay.GRAPH_OPS:
    if _cls is relay.ConstantOp:
        continue
    _short = _cls.name.split(".")[-1]
    # qnn and dyn ops share their last name with a float/static op: `qnn_add`, `dyn_clip`.
    _prefix = next((f"{ns}_" for ns in ("qnn", "dyn") if f".{ns}." in _cls.name), "")
    assert _prefix + _short not in _OPS, _cls.name
    _OPS[_prefix + _short] = _cls

_SSA_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_$.]*$")


def ssa_name_hint(name: str) -> str | None:
    """A printable SSA name for a model name, or None when it has no readable form."""
    cleaned = re.sub(r"[^A-Za-z0-9_]", "_", name)
    if not cleaned or cleaned[0].isdigit():
        cleaned = "v" + cleaned
    return cleaned if _SSA_NAME.match(cleaned) else None


class GraphBuilder:
    def __init__(self, *, inline_limit: int | None = None):
        """`inline_limit`: constants with more elements become external (see `weights`)."""
        self.block = Block()
        self.inputs: list[tuple[str, TensorType]] = []
        self.inline_limit = inline_limit
        self.weights: dict[str, np.ndarray] = {}

    # -- values ------------------------------------------------------------------------

    def input(self, name: str, shape: Sequence[int], dtype=np.float32) -> SSAValue:
        t = tensor_type(shape, dtype)
        arg = self.block.insert_arg(t, len(self.block.args))
        arg.name_hint = ssa_name_hint(name)
        self.inputs.append((name, t))
        return arg

    def const(self, value, dtype=None, *, name: str | None = None, external: bool | None = None) -> SSAValue:
        arr = np.asarray(value, dtype=dtype)
        if external is None:
            external = self.inline_limit is not None and arr.size > self.inline_limit
        if external:
            key = name or f"w{len(self.weights)}"
            if key in self.weights:
                raise ValueError(f"duplicate weight name '{key}'")
            self.weights[key] = arr
            op = relay.ConstantOp(external=key, type=tensor_type(arr.shape, arr.dtype))
        else:
            op = relay.ConstantOp(dense_from_array(arr))
        if name:
            op.result.name_hint = ssa_name_hint(name)
        self.block.add_op(op)
        return op.result

    def add_op(self, op: Operation) -> Operation:
        self.block.add_op(op)
        return op

    def op(self, cls: type[relay.RelayOp], *operands: SSAValue, **props) -> SSAValue:
        return self.add_op(cls(*operands, **props)).results[0]

    def cast(self, x: SSAValue, dtype) -> SSAValue:
        elem = dtype if isinstance(dtype, Attribute) else tensor_type((), dtype).element_type
        return self.add_op(relay.CastOp(x, elem)).results[0]

    def reinterpret(self, x: SSAValue, dtype) -> SSAValue:
        elem = dtype if isinstance(dtype, Attribute) else tensor_type((), dtype).element_type
        return self.add_op(relay.ReinterpretOp(x, elem)).results[0]

    def qnn_quantize(self, x: SSAValue, scale: SSAValue, zero_point: SSAValue, axis: int = -1) -> SSAValue:
        return self.add_op(relay.QuantizeOp(x, scale, zero_point, axis=axis)).results[0]

    def __getattr__(self, short: str):
        cls = _OPS.get(short)
        if cls is None:
            raise AttributeError(short)
        return lambda *operands, **props: self.op(cls, *operands, **props)

    # -- module ------------------------------------------------------------------------

    def build(
        self,
        outputs: Sequence[SSAValue],
        output_names: Sequence[str] | None = None,
        *,
        weights_path: str | None = None,
        name: str = "main",
    ) -> ModuleOp:
        """Finish `@main`. External weights need `weights_path` (saved as .npz there)."""
        self.block.add_op(func.ReturnOp(*outputs))
        in_types = [t for _, t in self.inputs]
        out_types = [v.type for v in outputs]
        names_out = list(output_names) if output_names is not None else [f"out{i}" for i in range(len(outputs))]
        fn = func.FuncOp(
            name,
            (in_types, out_types),
            Region(self.block),
            arg_attrs=name_attrs([n for n, _ in self.inputs]),
            res_attrs=name_attrs(names_out),
        )
        attrs: dict[str, Attribute] = {}
        if self.weights:
            if weights_path is None:
                raise ValueError("external weights need a weights_path")
            np.savez(weights_path, **self.weights)
            attrs[WEIGHTS_ATTR] = StringAttr(weights_path)
        module = ModuleOp([fn])
        module.attributes.update(attrs)
        return module


def numpy_type_of(v: SSAValue) -> tuple[tuple[int, ...], np.dtype]:
    t = v.type
    assert isinstance(t, TensorType)
    return tuple(t.get_shape()), numpy_dtype(t.element_type)
