"""Fused forms: what one accel compute op computes, and how a body of relay ops splits into them.

One answer to "can the lowering run this op or composite on an accelerator", shared by
partitioning (merge-composite, annotate-target) and by lower-to-accel, so that whatever
annotate-target sends to an accelerator lowers.

A fused form is

    [dequantize inputs] anchor [bias] [activation] [quantize | requantize]

with anchor one of conv2d (also qnn.conv2d), dense / matmul (also qnn.dense), batch_matmul
(two activations, equal batch dims), max/avg pooling, global average pooling, add /
subtract / multiply / divide (also qnn.add; the rhs may be a scalar or the result's
trailing dims), relu, clip, sigmoid, tanh, gelu, silu, the row ops softmax, layer
norm and RMS norm (last axis; also on 8-bit data, gamma and beta float), an 8-bit
requantize (an unbounded clip between two quantizations), a take from a constant table
of 256 by 8-bit indices (a lookup, `lut`), and a quantize or dequantize alone (a
conversion: a dequantize whose result leaves the body, a quantize of data no form ends
with). Which
epilogue an anchor takes: convolutions and matrix products all of it; add / multiply an
activation and a quantize; pools and the unary kinds (relu, clip, sigmoid, tanh, gelu,
silu) only a quantize (int8 elementwise: add, multiply and the unary kinds). One form becomes one
compute op (`accel.conv2d`, `accel.matmul`, `accel.pool`, `accel.eltwise`).

A body (one op, or a composite's ops: a DAG in topological order) is split greedily into
maximal fused forms: each anchor, in order, takes the following epilogue ops as long as
the value it extends has one user, that user is the next epilogue op the form admits,
and the value does not leave the body. Dequantize ops are folded into the forms that
read their results (as input quantization), so int8 chains
`dequantize conv quantize dequantize max_pool quantize` split at the quantize/dequantize
boundary into two int8 forms. Values passed from one form to the next become fresh
buffers in the lowering.

    %0 = relay.nn.conv2d %x, %w      \
    %1 = relay.nn.bias_add %0, %b     >  accel.conv2d {activation = "relu"}  -> %t
    %2 = relay.nn.relu %1            /
    %3 = relay.nn.max_pool2d %2      -   accel.pool ins(%t)

`plan_body` also computes every compute op's properties (and so runs every check the
lowering makes) without building IR: `lowerable(op)` is None exactly when lower-to-accel
can lower `op`, else the reason.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, OpResult, SSAValue

from accel.compiler.targets.c_api import COMMANDS, command_of
from accel.compiler.targets.schema import TargetDescription
from accel.compiler.targets.support import command_element, op_entry_for
from accel.compiler.tensors import StoredBytes, constant_value, row_major_strides
from accel.dialects import accel, relay

ANCHORS = tuple(cls for cls in relay.GRAPH_OPS if cls.name in COMMANDS)
"""The ops a fused form is built around (`c_api.COMMANDS`: the command each becomes)."""
PRODUCTS = (relay.Conv2DOp, relay.QnnConv2DOp, relay.DenseOp, relay.MatmulOp, relay.QnnDenseOp)
"""Anchors that take a bias."""
BATCHED = (relay.BatchMatmulOp,)
"""Products of two activations per batch (attention's QKᵀ and PV): no bias."""
ACTIVATED = (*PRODUCTS, *BATCHED, relay.AddOp, relay.MultiplyOp)
"""Anchors that take a fused activation."""


class NotLowerable(Exception):
    """The body has no split into fused forms the accel dialect can express (message says why)."""


@dataclass
class Operand:
    """A value a form reads: input `input` of the body, a constant, or `temp`, the result
    of an earlier form of the same body. `value` is the relay value (for its shape)."""

    value: SSAValue
    input: int | None = None
    const: relay.ConstantOp | None = None
    temp: SSAValue | None = None

    def array(self) -> np.ndarray:
        assert self.const is not None
        return constant_value(self.const)

    @property
    def shape(self) -> tuple[int, ...]:
        return _shape(self.value)


@dataclass
class Quant:
    scale: np.ndarray
    zero_point: np.ndarray


@dataclass
class FusedForm:
    anchor: Operation
    inputs: list[Operand]  # data operands of the anchor (after dequantize)
    input_quant: list[Quant | None]
    result: SSAValue = field(init=False)
    """The value the form computes (the last op it covers)."""
    bias: Operand | None = None
    bias_is_int: bool = False
    activation: str = "none"
    clip: tuple[float, float] = (float("-inf"), float("inf"))
    output_quant: Quant | None = None
    requant_in: Quant | None = None  # qnn forms: the accumulator's scale (s_x * s_w)
    table: list[int] | None = None  # a lookup: the table's values by index byte

    def __post_init__(self) -> None:
        self.result = self.anchor.results[0]


@dataclass
class ComputePlan:
    """One compute op to build: `op_type(ins, out, **props)`; `shapes[i]` (when not None)
    is the shape input `i` is read with (a bias as a vector)."""

    op_type: type[accel.ComputeOp]
    inputs: list[Operand]
    shapes: list[tuple[int, ...] | None]
    props: dict[str, Any]
    result: SSAValue
    anchor: Operation


def weight_key(const: relay.ConstantOp, shape: tuple[int, ...], value: np.ndarray | None = None) -> tuple:
    """What makes constant operands one weight buffer of an accelerator function
    (lower-to-accel's WeightCache): the same external tensor, or the same value (`value`:
    the constant's, converted), in the same shape."""
    if value is None and const.external is not None:
        return ("ext", const.external.data, shape)
    arr = np.asarray(constant_value(const) if value is None else value).reshape(shape)
    return ("val", arr.dtype.str, shape, StoredBytes(arr))


def _shape(v: SSAValue) -> tuple[int, ...]:
    t = v.type
    return tuple(t.get_shape()) if type(t) is TensorType else ()  # exact: an ABC's isinstance is slow


def _flat(v: np.ndarray) -> np.ndarray:
    return np.asarray(v).reshape(-1)


def _f32(x) -> float:
    return float(np.float32(x))


# --------------------------------------------------------------------------------------
# Bodies
# --------------------------------------------------------------------------------------


class Body:
    """A DAG of relay ops with known inputs and results: `ops` in topological order
    (constants and composite wrappers left out), `values` the operands known from the
    start (inputs and constants), `outputs` the values that leave the body."""

    def __init__(self, ops: list[Operation], values: dict[SSAValue, Operand], outputs: Sequence[SSAValue]):
        self.ops = ops
        self.members = set(ops)
        self.values = values
        self.outputs = list(outputs)

    @staticmethod
    def build(top: Sequence[Operation], inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]) -> Body:
        """`top`: ops in order, composites entered; `inputs[i]` is body input `i` (a value
        defined by a `relay.constant` counts as that constant); `outputs`: the values that
        leave (a composite's result stands for the value its body yields)."""
        values: dict[SSAValue, Operand] = {}
        for i, v in enumerate(inputs):
            values[v] = _known(v, i)
        ops: list[Operation] = []
        yielded: dict[SSAValue, SSAValue] = {}

        def add(op: Operation) -> None:
            # Exact type tests (none of these classes has subclasses): an ABC's isinstance is slow.
            kind = type(op)
            if kind is relay.ConstantOp:
                values[op.result] = Operand(op.result, const=op)
            elif kind is relay.CompositeOp:
                block = op.body.block
                for arg, v in zip(block.args, op.inputs):
                    if v in values:
                        known = values[v]
                        values[arg] = Operand(arg, known.input, known.const, known.temp)
                for inner in block.ops:
                    if type(inner) is relay.YieldOp:
                        yielded.update(zip(op.outputs, inner.values))
                    else:
                        add(inner)
            elif kind is not accel.YieldOp and kind is not relay.YieldOp:
                ops.append(op)

        for op in top:
            add(op)
        del add  # (a recursive closure is a reference cycle: the compile runs without the collector)
        return Body(ops, values, [yielded.get(v, v) for v in outputs])

    @staticmethod
    def of_kernel(kernel: accel.KernelOp) -> Body:
        block = kernel.body.block
        term = block.last_op
        assert isinstance(term, accel.YieldOp)
        return Body.build(list(block.ops), list(block.args), list(term.values))

    @staticmethod
    def of_op(op: Operation) -> Body:
        """A relay op or composite of a (tensor-level) graph; constants are its operands'
        defining `relay.constant`s."""
        return Body.build([op], list(op.operands), list(op.results))

    def users(self, v: SSAValue) -> list[Operation]:
        return [use.operation for use in v.uses if use.operation in self.members]


def _known(v: SSAValue, index: int) -> Operand:
    if isinstance(v, OpResult) and isinstance(v.op, relay.ConstantOp):
        return Operand(v, const=v.op)
    return Operand(v, input=index)


# --------------------------------------------------------------------------------------
# Splitting a body into fused forms
# --------------------------------------------------------------------------------------


class _Splitter:
    def __init__(self, body: Body):
        self.body = body
        self.values = dict(body.values)
        self.dequantized: dict[SSAValue, tuple[SSAValue, Quant]] = {}
        self.outputs = set(body.outputs)

    def const(self, v: SSAValue, what: str) -> np.ndarray:
        o = self.values.get(v)
        if o is None or o.const is None:
            raise NotLowerable(f"{what} must be a constant")
        return o.array()

    def quant(self, scale: SSAValue, zero_point: SSAValue, what: str) -> Quant:
        return Quant(_flat(self.const(scale, f"{what} scale")), _flat(self.const(zero_point, f"{what} zero point")))

    def operand(self, v: SSAValue, anchor: Operation) -> tuple[Operand, Quant | None]:
        q = None
        if v in self.dequantized:
            v, q = self.dequantized[v]
        o = self.values.get(v)
        if o is None:
            producer = v.op.name if isinstance(v, OpResult) else "an argument"
            raise NotLowerable(f"an operand of '{anchor.name}' comes from '{producer}', which no fused form ends with")
        return o, q

    def split(self) -> list[FusedForm]:
        forms: list[FusedForm] = []
        taken: set[Operation] = set()
        for op in self.body.ops:
            if op in taken:
                continue
            if isinstance(op, relay.DequantizeOp):
                self.dequantized[op.result] = (op.data, self.quant(op.scale, op.zero_point, "a dequantize"))
                if op.result not in self.outputs:
                    continue  # folded into the forms that read it
                # A dequantized value that leaves the body: a conversion alone.
            if not isinstance(op, ANCHORS):
                raise NotLowerable(f"'{op.name}' has no accelerator form")
            form = self.start(op)
            while True:
                nxt = self.next_epilogue(form)
                if nxt is None:
                    break
                taken.add(nxt)
                form.result = nxt.results[0]
            self.values[form.result] = Operand(form.result, temp=form.result)
            forms.append(form)
        return forms

    def start(self, anchor: Operation) -> FusedForm:
        if isinstance(anchor, (relay.QuantizeOp, relay.DequantizeOp)):
            data = self.values.get(anchor.data)
            if data is None:
                raise NotLowerable(f"the data of '{anchor.name}' comes from no fused form"
                                   + (" (a quantize of a dequantize is a requantize)"
                                      if anchor.data in self.dequantized else ""))
            quant = self.quant(anchor.scale, anchor.zero_point, f"a {anchor.name.split('.')[-1]}")
            if isinstance(anchor, relay.DequantizeOp):
                return FusedForm(anchor, [data], [quant])
            form = FusedForm(anchor, [data], [None])
            form.output_quant = quant
            return form
        inputs, quants = [], []
        for v in _data_operands(anchor):
            o, q = self.operand(v, anchor)
            inputs.append(o)
            quants.append(q)
        form = FusedForm(anchor, inputs, quants)
        if isinstance(anchor, (relay.QnnConv2DOp, relay.QnnDenseOp)):
            form.input_quant = [self.quant(anchor.input_scale, anchor.input_zero_point, "the input"),
                                self.quant(anchor.kernel_scale, anchor.kernel_zero_point, "the kernel")]
        if isinstance(anchor, relay.QnnAddOp):
            form.input_quant = [self.quant(anchor.lhs_scale, anchor.lhs_zero_point, "the lhs"),
                                self.quant(anchor.rhs_scale, anchor.rhs_zero_point, "the rhs")]
            form.output_quant = self.quant(anchor.output_scale, anchor.output_zero_point, "the output")
        if isinstance(anchor, relay.ClipOp):
            form.clip = (anchor.prop("a_min"), anchor.prop("a_max"))
        if isinstance(anchor, relay.TakeOp):
            form.table = self.lookup_table(anchor)
        if isinstance(anchor, relay.RequantizeOp):
            # 8-bit data only (an int32 one ends a qnn.conv2d or qnn.dense form): the
            # identity between a dequantize and a quantize, as an unbounded clip.
            if _element_bits(anchor.data) != 8:
                raise NotLowerable("only a requantize of 8-bit data is an elementwise command")
            form.input_quant = [self.quant(anchor.input_scale, anchor.input_zero_point, "the requantize input")]
            form.output_quant = self.quant(anchor.output_scale, anchor.output_zero_point, "the requantize output")
            form.clip = (-math.inf, math.inf)
        return form

    def lookup_table(self, take: relay.TakeOp) -> list[int]:
        """The table of a take that is a lookup: a constant of 256 8-bit values read along
        axis 0 by 8-bit indices, as the index bytes read it (entry 255 for int8 -1)."""
        table = self.values.get(take.data)
        if table is None or table.const is None or _shape(take.data) != (accel.EltwiseOp.TABLE_SIZE,) or \
                _element_bits(take.data) != 8 or _element_bits(take.indices) != 8:
            raise NotLowerable("only a take from a constant table of 256 8-bit values by 8-bit indices is a lookup")
        return [int(v) for v in table.array().reshape(-1)]

    def next_epilogue(self, form: FusedForm) -> Operation | None:
        """The op that extends `form` (see the module docstring), else None."""
        current = form.result
        if current in self.outputs:
            return None
        users = self.body.users(current)
        if len(users) != 1:
            return None
        op = users[0]
        anchor = form.anchor
        open_epilogue = form.output_quant is None
        if isinstance(op, (relay.BiasAddOp, relay.AddOp)) and isinstance(anchor, PRODUCTS) and open_epilogue \
                and form.bias is None and form.activation == "none":
            other = op.operands[1] if op.operands[0] is current else op.operands[0]
            if other is current:
                return None
            bias = self.bias(other, form, op)
            if bias is None:
                return None
            form.bias, form.bias_is_int = bias
            return op
        if isinstance(op, (relay.ReluOp, relay.ClipOp)) and isinstance(anchor, ACTIVATED) and open_epilogue \
                and form.activation == "none":
            if isinstance(op, relay.ReluOp):
                form.activation = "relu"
            else:
                form.activation = "clip"
                form.clip = (op.prop("a_min"), op.prop("a_max"))
            return op
        if isinstance(op, relay.QuantizeOp) and open_epilogue and not isinstance(anchor, (relay.QnnConv2DOp, relay.QnnDenseOp)):
            form.output_quant = self.quant(op.scale, op.zero_point, "a quantize")
            return op
        if isinstance(op, relay.RequantizeOp) and open_epilogue and isinstance(anchor, (relay.QnnConv2DOp, relay.QnnDenseOp)):
            form.requant_in = self.quant(op.input_scale, op.input_zero_point, "the requantize input")
            form.output_quant = self.quant(op.output_scale, op.output_zero_point, "the requantize output")
            return op
        return None

    def bias(self, v: SSAValue, form: FusedForm, op: Operation) -> tuple[Operand, bool] | None:
        """The per-channel constant `op` adds to the product, or None (then `op` is not a bias)."""
        anchor = form.anchor
        is_int = isinstance(anchor, (relay.QnnConv2DOp, relay.QnnDenseOp))
        if v in self.dequantized:
            v, q = self.dequantized[v]
            if np.any(q.zero_point != 0):
                return None
            is_int = True
        o = self.values.get(v)
        if o is None or o.const is None:
            return None
        out = _shape(anchor.results[0])
        channels = out[1] if len(out) == 4 else out[-1] if out else 0
        per_channel = {(channels,), (1, channels, 1, 1), (channels, 1, 1)} if len(out) == 4 else {(channels,), (1, channels)}
        if o.shape not in per_channel:
            return None
        return o, is_int


def _element_bits(v: SSAValue) -> int:
    return getattr(v.type.element_type, "bitwidth", 0)


def _data_operands(anchor: Operation) -> list[SSAValue]:
    if isinstance(anchor, (relay.QnnConv2DOp, relay.QnnDenseOp)):
        return [anchor.data, anchor.weight]
    if isinstance(anchor, relay.RequantizeOp):
        return [anchor.data]
    if isinstance(anchor, relay.TakeOp):
        return [anchor.indices]  # the table is a property of the lookup
    if isinstance(anchor, relay.QnnAddOp):
        return [anchor.lhs, anchor.rhs]
    return list(anchor.operands)


def split_forms(body: Body) -> list[FusedForm]:
    """The greedy split of `body` into maximal fused forms, in topological order."""
    return _Splitter(body).split()


# --------------------------------------------------------------------------------------
# The compute op of a form
# --------------------------------------------------------------------------------------


def _quant_props(form: FusedForm, channels: int) -> dict[str, Any]:
    """Integer epilogue properties (see accel.QUANT)."""
    q_in, q_w = form.input_quant[0], form.input_quant[1] if len(form.input_quant) > 1 else None
    if form.requant_in is not None:
        in_scale = form.requant_in.scale.astype(np.float32)
    else:
        if q_in is None or q_w is None or form.output_quant is None:
            raise NotLowerable("an int8 form needs dequantized data and weight and a quantized output")
        in_scale = (np.float32(q_in.scale.reshape(-1)[0]) * q_w.scale.astype(np.float32)).astype(np.float32)
    if in_scale.size not in (1, channels):
        raise NotLowerable(f"the scale has {in_scale.size} values for {channels} channels")
    if q_in is None or q_w is None or form.output_quant is None:
        raise NotLowerable("an int8 form needs quantized data, weight and output")
    if q_in.zero_point.size != 1 or form.output_quant.scale.size != 1 or form.output_quant.zero_point.size != 1:
        raise NotLowerable("input and output quantization must be per tensor")
    wzp = q_w.zero_point.astype(np.int64)
    return {
        "input_zero_point": int(q_in.zero_point[0]),
        "weight_zero_point": [] if not np.any(wzp) else [int(v) for v in wzp],
        "in_scale": [_f32(v) for v in in_scale],
        "out_scale": _f32(form.output_quant.scale[0]),
        "output_zero_point": int(form.output_quant.zero_point[0]),
    }


def _activation_props(form: FusedForm) -> dict[str, Any]:
    props: dict[str, Any] = {"activation": form.activation}
    if form.activation == "clip":
        props["clip_min"], props["clip_max"] = form.clip
    return props


def plan_compute(form: FusedForm) -> ComputePlan:
    """The compute op of one form: its type, inputs and properties."""
    anchor = form.anchor
    out_shape = _shape(form.result)
    quantized = any(q is not None for q in form.input_quant) or form.output_quant is not None

    def plan(op_type, inputs, props, shapes=None) -> ComputePlan:
        return ComputePlan(op_type, inputs, shapes or [None] * len(inputs), props, form.result, anchor)

    if isinstance(anchor, (relay.Conv2DOp, relay.QnnConv2DOp)):
        props = {k: anchor.prop(k) for k in ("strides", "padding", "dilation", "groups")}
        channels = _shape(anchor.results[0])[1]
        ins, shapes = [form.inputs[0], form.inputs[1]], [None, None]
        if form.bias is not None:
            if form.bias_is_int != quantized:
                raise NotLowerable("the bias must be int32 exactly when the convolution is quantized")
            ins.append(form.bias)
            shapes.append((channels,))
        props.update(_activation_props(form))
        if quantized:
            props.update(_quant_props(form, channels))
        return plan(accel.Conv2DOp, ins, props, shapes)

    if isinstance(anchor, relay.BatchMatmulOp):
        a, b, y = _shape(anchor.lhs), _shape(anchor.rhs), _shape(anchor.results[0])
        if not (a[:-2] == b[:-2] == y[:-2]):
            raise NotLowerable(f"batched products on the accelerator need equal batch dims, got {list(a)} x {list(b)}")
        props = {"transpose_a": anchor.prop("transpose_a"), "transpose_b": anchor.prop("transpose_b")}
        props.update(_activation_props(form))
        if quantized:
            props.update(_quant_props(form, y[-1]))
        return plan(accel.MatmulOp, [form.inputs[0], form.inputs[1]], props)

    if isinstance(anchor, (relay.DenseOp, relay.MatmulOp, relay.QnnDenseOp)):
        rank = len(_shape(anchor.results[0]))
        if rank not in (1, 2) or (rank == 1 and isinstance(anchor, relay.MatmulOp)):
            raise NotLowerable("matrix products on the accelerator are 2-D (or a vector times a matrix)")
        channels = _shape(anchor.results[0])[-1]
        ins, shapes = [form.inputs[0], form.inputs[1]], [None, None]
        if form.bias is not None:
            ins.append(form.bias)
            shapes.append((channels,))
        if isinstance(anchor, relay.MatmulOp):
            props = {"transpose_a": anchor.prop("transpose_a"), "transpose_b": anchor.prop("transpose_b")}
        else:
            props = {"transpose_a": False, "transpose_b": True}
        props.update(_activation_props(form))
        if quantized:
            props.update(_quant_props(form, channels))
        return plan(accel.MatmulOp, ins, props, shapes)

    if isinstance(anchor, (relay.MaxPool2DOp, relay.AvgPool2DOp, relay.GlobalAvgPool2DOp)):
        if isinstance(anchor, relay.GlobalAvgPool2DOp):
            h, w = _shape(anchor.data)[2:]
            props = {"kind": "avg", "pool_size": (h, w)}
        else:
            props = {k: anchor.prop(k) for k in ("pool_size", "strides", "dilation", "padding", "ceil_mode")}
            props["kind"] = "max" if isinstance(anchor, relay.MaxPool2DOp) else "avg"
            if isinstance(anchor, relay.AvgPool2DOp):
                props["count_include_pad"] = anchor.prop("count_include_pad")
        if quantized:
            q_in, q_out = form.input_quant[0], form.output_quant
            if q_in is None or q_out is None or q_in.scale.size != 1 or q_out.scale.size != 1:
                raise NotLowerable("an int8 pool needs per-tensor dequantize and quantize")
            props.update(input_zero_point=int(q_in.zero_point[0]), in_scale=[_f32(q_in.scale[0])],
                         out_scale=_f32(q_out.scale[0]), output_zero_point=int(q_out.zero_point[0]))
        return plan(accel.PoolOp, [form.inputs[0]], props)

    kind = command_of(anchor)[1]
    if kind in accel.EltwiseOp.CONVERT:
        q = form.output_quant if kind == "quantize" else form.input_quant[0]
        if q is None or q.scale.size != 1 or q.zero_point.size != 1:
            raise NotLowerable(f"a {kind} alone on the accelerator has one scale and zero point")
        side = ("out_scale", "output_zero_point") if kind == "quantize" else ("lhs_scale", "lhs_zero_point")
        return plan(accel.EltwiseOp, [form.inputs[0]],
                    {"kind": kind, side[0]: _f32(q.scale[0]), side[1]: int(q.zero_point[0])})
    if kind == accel.EltwiseOp.LOOKUP:
        return plan(accel.EltwiseOp, [form.inputs[0]], {"kind": kind, "table": form.table})
    inputs, shapes = list(form.inputs), [None] * len(form.inputs)
    if kind in accel.EltwiseOp.BINARY:
        if inputs[0].shape != out_shape and inputs[1].shape == out_shape and kind in ("add", "mul"):
            inputs.reverse()  # commutative: the full-shape operand first
            form.input_quant.reverse()
        rhs = inputs[1].shape
        if inputs[0].shape != out_shape:
            raise NotLowerable("the lhs of an elementwise op on the accelerator must have the result's shape")
        if rhs != out_shape and not accel.broadcasts_as_rows(rhs, out_shape):
            raise NotLowerable("the rhs of an elementwise op on the accelerator must have the result's shape, "
                               "one element or its trailing dims")
        if rhs != out_shape and math.prod(rhs) == 1 and inputs[1].const is not None:
            shapes[1] = (1,)  # a scalar constant as a one-element buffer
    elif any(o.shape != out_shape for o in inputs[:1]) or (kind not in ("layer_norm", "rms_norm") and len(inputs) > 1):
        raise NotLowerable("elementwise operands on the accelerator must have the result's shape")
    props = _activation_props(form)
    if kind == "clip":
        props = {"clip_min": form.clip[0], "clip_max": form.clip[1]}
    if kind in accel.EltwiseOp.ROWS:
        axis = anchor.prop("axis") % max(1, len(out_shape))
        if axis != len(out_shape) - 1:
            raise NotLowerable(f"{kind} on the accelerator runs along the last axis, not axis {axis}")
    if kind in ("layer_norm", "rms_norm"):
        if any(o.const is None for o in inputs[1:]):
            raise NotLowerable("layer norm's gamma and beta must be constants" if kind == "layer_norm"
                               else "RMS norm's gamma must be a constant")
        props["epsilon"] = anchor.prop("epsilon")
    if quantized:
        if kind not in ("add", "mul", *accel.EltwiseOp.UNARY, *accel.EltwiseOp.ROWS):
            # (an int8 input has 256 values: a unary kind is a table; sub and div have
            # no int8 command)
            raise NotLowerable(f"no int8 '{kind}' on the accelerator")
        # A row op's data is 8-bit; its gamma and beta stay float.
        data_quant = form.input_quant[:1] if kind in accel.EltwiseOp.ROWS else form.input_quant
        if form.output_quant is None or any(q is None for q in data_quant):
            raise NotLowerable("an int8 elementwise form needs quantized inputs and output")
        if any(q is not None for q in form.input_quant[len(data_quant):]):
            raise NotLowerable(f"an int8 '{kind}' takes float gamma and beta")
        for side, q in zip(("lhs", "rhs"), data_quant):
            assert q is not None
            if q.scale.size != 1 or q.zero_point.size != 1:
                raise NotLowerable("elementwise quantization must be per tensor")
            props[f"{side}_scale"] = _f32(q.scale[0])
            props[f"{side}_zero_point"] = int(q.zero_point[0])
        props["out_scale"] = _f32(form.output_quant.scale[0])
        props["output_zero_point"] = int(form.output_quant.zero_point[0])
    return plan(accel.EltwiseOp, inputs, {"kind": kind, **props}, shapes)


def plan_body(body: Body) -> list[ComputePlan]:
    """The compute ops of `body`, in order; raises NotLowerable."""
    if len(body.outputs) != 1:
        raise NotLowerable("accelerator operations have one result")
    for v in (*body.values, *body.outputs):
        if len(_shape(v)) > accel.MAX_TRANSFER_RANK:
            # (the fuzzer found a rank-5 relu sent to the npu, then refused by the verifier)
            raise NotLowerable(f"rank {len(_shape(v))} exceeds the {accel.MAX_TRANSFER_RANK} dimensions of a DMA transfer")
    for v, operand in body.values.items():
        if not _shape(v) and operand.const is None:
            # A run-time scalar would be a rank-0 transfer (the fuzzer found one: a mean
            # over every axis multiplying a vector on the npu). Constant scalars are attributes.
            raise NotLowerable("a scalar computed at run time cannot be transferred (DMA has rank 1 to 4)")
    for v in body.outputs:
        if not _shape(v):
            raise NotLowerable("a scalar result cannot be transferred (DMA has rank 1 to 4)")
    plans = [plan_compute(form) for form in split_forms(body)]
    if not plans:
        raise NotLowerable("no accelerator operation")
    produced = {p.result for p in plans}
    for v in body.outputs:
        if v not in produced:
            raise NotLowerable("a result of the body is not computed by an accelerator operation")
    return plans


# --------------------------------------------------------------------------------------
# The shared answer
# --------------------------------------------------------------------------------------


def _entries_missing(plans: list[ComputePlan], target: TargetDescription | None) -> str | None:
    """Why `target` cannot run the later commands of a body (they run on single-op
    entries), or None."""
    if target is not None:
        for plan in plans[1:]:
            kind = plan.props.get("kind")
            if op_entry_for(plan.op_type.name, kind, command_element(plan.result), target) is None:
                return f"{target.name} has no single-op entry for its '{plan.op_type.name}' command"
    return None


def lowerable_body(body: Body, target: TargetDescription | None = None) -> str | None:
    if target is not None and not target.lowers_to_accel:
        return None  # api.lowering = "none": not lowered; the codegen hook emits the body
    try:
        plans = plan_body(body)
    except NotLowerable as e:
        return str(e)
    return _entries_missing(plans, target)


COPY_MAX_RANK = 4
"""Dimensions of a copy on the device (`dma_on_device`'s rank, after merging the
dimensions that are contiguous on both sides)."""

LAYOUT_OPS = (relay.TransposeOp, relay.ReshapeOp, relay.StridedSliceOp)
"""Ops that only rearrange their input: on an accelerator with a copy on the device each is
one strided copy of a view of its input (`layout_view`)."""


@dataclass(frozen=True)
class LayoutView:
    """out[i] = in[offset + sum(i[k] * strides[k])] over the result's shape: a layout op
    as a view of its (contiguous) input, in elements."""

    offset: int
    sizes: tuple[int, ...]
    strides: tuple[int, ...]

    def copy_rank(self) -> int:
        """Dimensions of the copy of this view into a contiguous buffer, after merging the
        ones contiguous on both sides (dims of size 1 dropped)."""
        return len(merged_dims(self.sizes, [self.strides, row_major_strides(self.sizes)])[0])


def compose_views(inner: LayoutView, outer: LayoutView) -> LayoutView | None:
    """`outer` (a view of the dense result of `inner`) as one view of `inner`'s source,
    when that is a strided view (a reshape splits or merges dims contiguous in `inner`;
    a slice or transpose of any view is one); else None. Checked on the indices (linear
    in the result's size)."""
    def offsets(view: LayoutView) -> np.ndarray:
        at = np.full(view.sizes, view.offset, dtype=np.int64)
        for k, (size, stride) in enumerate(zip(view.sizes, view.strides)):
            shape = [1] * len(view.sizes)
            shape[k] = size
            at += (np.arange(size, dtype=np.int64) * stride).reshape(shape)
        return at

    composed = offsets(inner).reshape(-1)[offsets(outer)]
    if composed.size == 0:
        return None
    first = int(composed.reshape(-1)[0])
    strides = list(row_major_strides(outer.sizes))  # (a dim of size 1 steps nowhere: any stride)
    for k, size in enumerate(outer.sizes):
        if size > 1:
            index = [0] * len(outer.sizes)
            index[k] = 1
            strides[k] = int(composed[tuple(index)]) - first
    candidate = LayoutView(first, outer.sizes, tuple(strides))
    return candidate if np.array_equal(offsets(candidate), composed) else None


def merged_dims(shape: Sequence[int], sides: Sequence[Sequence[int]]) -> tuple[list[int], list[list[int]]]:
    """`shape` and the strides of each side with size-1 dims dropped and neighbours merged
    where every side steps over the inner one contiguously (the same elements in the same
    order); at least one dim."""
    dims: list[int] = []
    out: list[list[int]] = [[] for _ in sides]
    for k, size in enumerate(shape):
        if size == 1:
            continue
        if dims and all(st[-1] == size * side[k] for st, side in zip(out, sides)):
            dims[-1] *= size
            for st, side in zip(out, sides):
                st[-1] = side[k]
            continue
        dims.append(size)
        for st, side in zip(out, sides):
            st.append(side[k])
    if not dims:
        return [1], [[1] for _ in sides]
    return dims, out


def layout_view(op: Operation) -> LayoutView | str:
    """The view of its input a layout op (`LAYOUT_OPS`) is, or why it cannot be copied
    on the device."""
    src = op.operands[0]
    if isinstance(src.owner, relay.ConstantOp):
        return f"a constant input of '{op.name}' is folded, not copied on the device"
    shape = tuple(src.type.get_shape())
    strides = row_major_strides(shape)
    out = tuple(op.results[0].type.get_shape())
    if isinstance(op, relay.ReshapeOp):
        view = LayoutView(0, out, row_major_strides(out))
    elif isinstance(op, relay.TransposeOp):
        axes = op.prop("axes")
        axes = list(reversed(range(len(shape)))) if axes is None else [a % len(shape) for a in axes]
        view = LayoutView(0, out, tuple(strides[a] for a in axes))
    else:
        assert isinstance(op, relay.StridedSliceOp)
        ranges = relay.StridedSliceOp.ranges(shape, op.py_props())
        if any(r.step < 0 for r in ranges):
            return "a slice with negative steps is not copied on the device"
        view = LayoutView(sum(r.start * st for r, st in zip(ranges, strides)), out,
                          tuple(r.step * st for r, st in zip(ranges, strides)))
    rank = view.copy_rank()
    if rank > COPY_MAX_RANK:
        return (f"'{op.name}' is a copy of rank {rank} (copies on the device have rank 1 to {COPY_MAX_RANK}, "
                f"after merging contiguous dimensions)")
    return view


def lowering(op: Operation) -> list[ComputePlan] | str:
    """What lower-to-accel builds of `op` (a relay op or a composite of a tensor-level
    graph): its compute ops, or why it cannot (`lowerable`'s answer without a target). A
    concatenation computes nothing (copies on the device, see lower-to-accel; a constant
    input is a weight copied in): any of rank 1 to 4 lowers, to no compute op; nor does a
    layout op (`layout_view`)."""
    if isinstance(op, relay.ConcatenateOp):
        rank = len(op.result.type.get_shape())
        return [] if 1 <= rank <= COPY_MAX_RANK else \
            f"a concatenation of rank {rank} (copies on the device have rank 1 to {COPY_MAX_RANK})"
    if isinstance(op, LAYOUT_OPS):
        view = layout_view(op)
        return view if isinstance(view, str) else []
    try:
        return plan_body(Body.of_op(op))
    except NotLowerable as e:
        return str(e)


def lowerable(op: Operation, target: TargetDescription | None = None,
              lowered: list[ComputePlan] | str | None = None) -> str | None:
    """None when lower-to-accel can run `op` (a relay op or a composite of a tensor-level
    graph) as accel compute ops (`lowering`; `lowered`: its answer, when known) — with
    `target`, also when the target declares an entry for each command after the first —
    else why not."""
    if target is not None and not target.lowers_to_accel and not isinstance(op, (relay.ConcatenateOp, *LAYOUT_OPS)):
        return None  # api.lowering = "none": not lowered; the codegen hook emits the body
    plans = lowering(op) if lowered is None else lowered
    return plans if isinstance(plans, str) else _entries_missing(plans, target)


def lowerable_match(ops: Sequence[Operation], inputs: Sequence[SSAValue], results: Sequence[SSAValue],
                    target: TargetDescription | None = None) -> str | None:
    """`lowerable` for a pattern match before it becomes a composite: `ops` matched in
    topological order, `inputs` bound to the pattern's arguments, `results` of the root."""
    return lowerable_body(Body.build(list(ops), list(inputs), list(results)), target)
