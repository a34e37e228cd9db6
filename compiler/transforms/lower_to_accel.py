"""lower-to-accel: the kernels of accelerator functions become accel compute ops.

Runs on bufferized IR. In every function carrying `accel.target`, each `accel.kernel`
(one relay op or one composite) is recognised structurally as a fused form

    [dequantize inputs] anchor [bias] [activation] [quantize | requantize]

with anchor one of conv2d (also qnn.conv2d), dense / matmul (also qnn.dense), max/avg
pooling, global average pooling, add / multiply (also qnn.add), relu, clip. The form
becomes one compute op (`accel.conv2d`, `accel.matmul`, `accel.pool`, `accel.eltwise`)
with its epilogue as properties; constant operands become `accel.weight` buffers at the
top of the function. The ops still compute on host buffers (the logical form);
`insert-dma` moves them onto the scratchpad. The recognition does not depend on pattern
names, so a user's own patterns lower as long as their bodies have such a form.

Quantized forms compute exactly in integers: int32 accumulation of zero-point-shifted
int8 values, the int32 bias added, then f32(acc * in_scale[c]) / out_scale rounded half to
even (`in_scale[c] = f32(s_x * s_w[c])`). The float QDQ reference computes the same sum in
float32, so results may differ by one quantization step where float rounding flips.

Before:

    accel.kernel ins(%x : memref<1x8x8x8xf32>) outs(%y : memref<1x8x8x8xf32>) {
    ^bb0(%a: tensor<1x8x8x8xf32>):
      %w = relay.constant external "w" : tensor<8x8x3x3xf32>
      %b = relay.constant external "b" : tensor<8xf32>
      %r = relay.composite "npu.conv2d_bias_relu" (%a, %w, %b) : (...) -> tensor<1x8x8x8xf32> { ... }
      accel.yield %r : tensor<1x8x8x8xf32>
    }

After:

    %w = accel.weight external "w" : memref<8x8x3x3xf32>
    %b = accel.weight external "b" : memref<8xf32>
    accel.conv2d ins(%x, %w, %b : ...) outs(%y : ...) {padding = [1, 1, 1, 1], activation = "relu"}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType, ModuleOp, StringAttr, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from accel.compiler.diagnostics import CompileError
from accel.compiler.tensors import constant_value, dense_from_array
from accel.dialects import accel, relay
from accel.compiler.targets.context import target_context
from accel.compiler.targets.support import select
from accel.dialects.conventions import TARGET_ATTR, set_entry


ANCHORS = (
    relay.Conv2DOp, relay.QnnConv2DOp, relay.DenseOp, relay.MatmulOp, relay.QnnDenseOp,
    relay.MaxPool2DOp, relay.AvgPool2DOp, relay.GlobalAvgPool2DOp,
    relay.AddOp, relay.MultiplyOp, relay.QnnAddOp, relay.ReluOp, relay.ClipOp,
)  # fmt: skip


class NotLowerable(Exception):
    """The kernel has no fused form the accel dialect can express (message says why)."""


@dataclass
class Operand:
    """A kernel-level value: an input buffer index, or a constant."""

    buffer: int | None = None
    const: relay.ConstantOp | None = None

    def array(self) -> np.ndarray:
        assert self.const is not None
        return constant_value(self.const)


@dataclass
class Quant:
    scale: np.ndarray
    zero_point: np.ndarray


@dataclass
class FusedForm:
    anchor: Operation
    inputs: list[Operand]  # data operands of the anchor (after dequantize)
    input_quant: list[Quant | None]
    bias: Operand | None = None
    bias_is_int: bool = False
    activation: str = "none"
    clip: tuple[float, float] = (float("-inf"), float("inf"))
    output_quant: Quant | None = None
    requant_in: Quant | None = None  # qnn forms: the accumulator's scale (s_x * s_w)


def _scalar_or_array(v: np.ndarray) -> np.ndarray:
    return np.asarray(v).reshape(-1)


class KernelAnalysis:
    """Recognises the fused form of one accel.kernel."""

    def __init__(self, kernel: accel.KernelOp):
        self.kernel = kernel
        self.values: dict[SSAValue, Operand] = {}
        for i, arg in enumerate(kernel.body.block.args):
            self.values[arg] = Operand(buffer=i)
        self.chain: list[Operation] = []
        for op in kernel.body.block.ops:
            if isinstance(op, relay.ConstantOp):
                self.values[op.result] = Operand(const=op)
            elif isinstance(op, relay.CompositeOp):
                inner_map = {a: self.values.get(v) for a, v in zip(op.body.block.args, op.inputs)}
                for a, o in inner_map.items():
                    if o is not None:
                        self.values[a] = o
                for inner in op.body.block.ops:
                    if isinstance(inner, relay.ConstantOp):
                        self.values[inner.result] = Operand(const=inner)
                    elif not isinstance(inner, relay.YieldOp):
                        self.chain.append(inner)
            elif not isinstance(op, accel.YieldOp):
                self.chain.append(op)

    def const(self, v: SSAValue, what: str) -> np.ndarray:
        o = self.values.get(v)
        if o is None or o.const is None:
            raise NotLowerable(f"{what} must be a constant")
        return o.array()

    def form(self) -> FusedForm:
        anchors = [op for op in self.chain if isinstance(op, ANCHORS)]
        if not anchors:
            names = ", ".join(op.name for op in self.chain)
            raise NotLowerable(f"no accelerator operation among {names}")
        anchor = anchors[0]
        pos = self.chain.index(anchor)
        pre, post = self.chain[:pos], self.chain[pos + 1:]
        dequantized: dict[SSAValue, tuple[SSAValue, Quant]] = {}
        for op in pre:
            if not isinstance(op, relay.DequantizeOp):
                raise NotLowerable(f"'{op.name}' before '{anchor.name}' is not a dequantize")
            q = Quant(_scalar_or_array(self.const(op.scale, "a dequantize scale")),
                      _scalar_or_array(self.const(op.zero_point, "a dequantize zero point")))
            dequantized[op.result] = (op.data, q)

        def operand(v: SSAValue) -> tuple[Operand, Quant | None]:
            q = None
            if v in dequantized:
                v, q = dequantized[v]
            o = self.values.get(v)
            if o is None:
                raise NotLowerable("an operand is computed inside the kernel by an op that is not part of the form")
            return o, q

        data_operands = _data_operands(anchor)
        inputs, quants = [], []
        for v in data_operands:
            o, q = operand(v)
            inputs.append(o)
            quants.append(q)
        form = FusedForm(anchor, inputs, quants)

        if isinstance(anchor, (relay.QnnConv2DOp, relay.QnnDenseOp)):
            s_x = _scalar_or_array(self.const(anchor.input_scale, "input_scale"))
            s_w = _scalar_or_array(self.const(anchor.kernel_scale, "kernel_scale"))
            form.input_quant = [
                Quant(s_x, _scalar_or_array(self.const(anchor.input_zero_point, "input_zero_point"))),
                Quant(s_w, _scalar_or_array(self.const(anchor.kernel_zero_point, "kernel_zero_point"))),
            ]
        if isinstance(anchor, relay.QnnAddOp):
            c = lambda v, w: _scalar_or_array(self.const(v, w))  # noqa: E731
            form.input_quant = [Quant(c(anchor.lhs_scale, "lhs_scale"), c(anchor.lhs_zero_point, "lhs_zero_point")),
                                Quant(c(anchor.rhs_scale, "rhs_scale"), c(anchor.rhs_zero_point, "rhs_zero_point"))]
            form.output_quant = Quant(c(anchor.output_scale, "output_scale"),
                                      c(anchor.output_zero_point, "output_zero_point"))
        if isinstance(anchor, relay.ClipOp):
            form.clip = (anchor.prop("a_min"), anchor.prop("a_max"))

        current = anchor.results[0]
        for op in post:
            if current not in op.operands:
                raise NotLowerable(f"'{op.name}' does not continue the chain after '{anchor.name}'")
            if isinstance(op, (relay.BiasAddOp, relay.AddOp)) and form.bias is None and form.activation == "none" \
                    and form.output_quant is None and isinstance(anchor, (relay.Conv2DOp, relay.QnnConv2DOp,
                                                                          relay.DenseOp, relay.MatmulOp, relay.QnnDenseOp)):
                other = op.operands[1] if op.operands[0] is current else op.operands[0]
                form.bias, form.bias_is_int = self.bias(other, anchor, dequantized, op)
            elif isinstance(op, relay.ReluOp) and form.activation == "none" and form.output_quant is None:
                form.activation = "relu"
            elif isinstance(op, relay.ClipOp) and form.activation == "none" and form.output_quant is None:
                form.activation = "clip"
                form.clip = (op.prop("a_min"), op.prop("a_max"))
            elif isinstance(op, relay.QuantizeOp) and form.output_quant is None:
                form.output_quant = Quant(_scalar_or_array(self.const(op.scale, "a quantize scale")),
                                          _scalar_or_array(self.const(op.zero_point, "a quantize zero point")))
            elif isinstance(op, relay.RequantizeOp) and form.output_quant is None:
                form.requant_in = Quant(_scalar_or_array(self.const(op.input_scale, "input_scale")),
                                        _scalar_or_array(self.const(op.input_zero_point, "input_zero_point")))
                form.output_quant = Quant(_scalar_or_array(self.const(op.output_scale, "output_scale")),
                                          _scalar_or_array(self.const(op.output_zero_point, "output_zero_point")))
            else:
                raise NotLowerable(f"'{op.name}' after '{anchor.name}' is not a supported epilogue")
            current = op.results[0]
        return form

    def bias(self, v: SSAValue, anchor: Operation, dequantized, op: Operation) -> tuple[Operand, bool]:
        is_int = False
        if v in dequantized:
            v, q = dequantized[v]
            if np.any(q.zero_point != 0):
                raise NotLowerable("a quantized bias must have zero point 0")
            is_int = True
        elif isinstance(anchor, (relay.QnnConv2DOp, relay.QnnDenseOp)):
            is_int = True
        o = self.values.get(v)
        if o is None or o.const is None:
            raise NotLowerable(f"the bias of '{op.name}' must be a constant")
        channels = anchor.results[0].type.get_shape()[1] if len(anchor.results[0].type.get_shape()) == 4 \
            else anchor.results[0].type.get_shape()[-1]
        shape = tuple(o.const.result.type.get_shape())
        rank = len(anchor.results[0].type.get_shape())
        per_channel = {(channels,), (1, channels, 1, 1), (channels, 1, 1)} if rank == 4 else {(channels,), (1, channels)}
        if shape not in per_channel:
            raise NotLowerable(f"'{op.name}' adds a {list(shape)} constant, not a per-channel bias")
        return o, is_int


def _data_operands(anchor: Operation) -> list[SSAValue]:
    if isinstance(anchor, (relay.QnnConv2DOp, relay.QnnDenseOp)):
        return [anchor.data, anchor.weight]
    if isinstance(anchor, relay.QnnAddOp):
        return [anchor.lhs, anchor.rhs]
    return list(anchor.operands)


# --------------------------------------------------------------------------------------
# Building the compute op
# --------------------------------------------------------------------------------------


@dataclass
class WeightCache:
    """One accel.weight per constant (by external name or by inline value) per function."""

    fn: func.FuncOp
    by_key: dict[Any, SSAValue] = field(default_factory=dict)

    def get(self, const: relay.ConstantOp, shape: tuple[int, ...] | None = None,
            value: np.ndarray | None = None) -> SSAValue:
        t = const.result.type
        shape = tuple(t.get_shape()) if shape is None else shape
        mtype = MemRefType(t.element_type if value is None else _elem(value), shape)
        if value is None and const.external is not None:
            key = ("ext", const.external.data, shape)
            make = lambda: accel.WeightOp(mtype, external=const.external.data)  # noqa: E731
        else:
            arr = constant_value(const) if value is None else value
            arr = np.asarray(arr).reshape(shape)
            key = ("val", arr.dtype.str, shape, arr.tobytes())
            make = lambda: accel.WeightOp(mtype, value=dense_from_array(arr))  # noqa: E731
        if key not in self.by_key:
            w = make()
            w.location = const.location
            block = self.fn.body.block
            Rewriter.insert_op(w, InsertPoint.at_start(block) if not self.by_key
                               else InsertPoint.after(list(self.by_key.values())[-1].owner))
            self.by_key[key] = w.result
        return self.by_key[key]


def _elem(arr: np.ndarray):
    from accel.compiler.tensors import element_type

    return element_type(arr.dtype)


def _f32(x) -> float:
    return float(np.float32(x))


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
    assert q_in is not None and q_w is not None and form.output_quant is not None
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


def lower_kernel(kernel: accel.KernelOp, weights: WeightCache) -> accel.ComputeOp:
    form = KernelAnalysis(kernel).form()
    anchor = form.anchor
    out = kernel.outs[0]
    if len(kernel.outs) != 1:
        raise NotLowerable("accelerator operations have one result")
    quantized = any(q is not None for q in form.input_quant) or form.output_quant is not None

    def buf(o: Operand, shape: tuple[int, ...] | None = None) -> SSAValue:
        if o.buffer is not None:
            return kernel.ins[o.buffer]
        assert o.const is not None
        return weights.get(o.const, shape)

    if isinstance(anchor, (relay.Conv2DOp, relay.QnnConv2DOp)):
        geometry = {k: anchor.prop(k) for k in ("strides", "padding", "dilation", "groups")}
        channels = anchor.results[0].type.get_shape()[1]
        ins = [buf(form.inputs[0]), buf(form.inputs[1])]
        if form.bias is not None:
            if form.bias_is_int != quantized:
                raise NotLowerable("the bias must be int32 exactly when the convolution is quantized")
            ins.append(buf(form.bias, (channels,)))
        props = {**geometry, **_activation_props(form)}
        if quantized:
            props.update(_quant_props(form, channels))
        return accel.Conv2DOp(ins, out, **props)

    if isinstance(anchor, (relay.DenseOp, relay.MatmulOp, relay.QnnDenseOp)):
        if len(anchor.results[0].type.get_shape()) not in (1, 2) or \
                (len(anchor.results[0].type.get_shape()) == 1 and isinstance(anchor, relay.MatmulOp)):
            raise NotLowerable("matrix products on the accelerator are 2-D (or a vector times a matrix)")
        channels = anchor.results[0].type.get_shape()[-1]
        ins = [buf(form.inputs[0]), buf(form.inputs[1])]
        if form.bias is not None:
            ins.append(buf(form.bias, (channels,)))
        if isinstance(anchor, relay.MatmulOp):
            props = {"transpose_a": anchor.prop("transpose_a"), "transpose_b": anchor.prop("transpose_b")}
        else:
            props = {"transpose_a": False, "transpose_b": True}
        props.update(_activation_props(form))
        if quantized:
            props.update(_quant_props(form, channels))
        return accel.MatmulOp(ins, out, **props)

    if isinstance(anchor, (relay.MaxPool2DOp, relay.AvgPool2DOp, relay.GlobalAvgPool2DOp)):
        if form.activation != "none" or form.bias is not None:
            raise NotLowerable("pooling has no fused epilogue")
        if isinstance(anchor, relay.GlobalAvgPool2DOp):
            h, w = anchor.data.type.get_shape()[2:]
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
        return accel.PoolOp([buf(form.inputs[0])], out, **props)

    # elementwise
    kind = {relay.AddOp: "add", relay.QnnAddOp: "add", relay.MultiplyOp: "mul",
            relay.ReluOp: "relu", relay.ClipOp: "clip"}[type(anchor)]
    ins = [buf(o) for o in form.inputs]
    out_shape = tuple(out.type.get_shape())
    for v in ins:
        if tuple(v.type.get_shape()) != out_shape:
            raise NotLowerable("elementwise operands on the accelerator must have the result's shape")
    props = _activation_props(form)
    if kind == "clip":
        props = {"clip_min": form.clip[0], "clip_max": form.clip[1]}
    if quantized:
        if form.output_quant is None or any(q is None for q in form.input_quant):
            raise NotLowerable("an int8 elementwise form needs quantized inputs and output")
        for side, q in zip(("lhs", "rhs"), form.input_quant):
            if q.scale.size != 1 or q.zero_point.size != 1:
                raise NotLowerable("elementwise quantization must be per tensor")
            props[f"{side}_scale"] = _f32(q.scale[0])
            props[f"{side}_zero_point"] = int(q.zero_point[0])
        props["out_scale"] = _f32(form.output_quant.scale[0])
        props["output_zero_point"] = int(form.output_quant.zero_point[0])
    return accel.EltwiseOp(ins, out, kind=kind, **props)


@dataclass(frozen=True)
class LowerToAccel(ModulePass):
    """Kernels of accelerator functions to accel compute ops (logical form, host buffers)."""

    name = "lower-to-accel"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in op.body.block.ops:
            if not isinstance(fn, func.FuncOp) or TARGET_ATTR not in fn.attributes or fn.is_declaration:
                continue
            target = fn.attributes[TARGET_ATTR]
            if isinstance(target, StringAttr) and target.data == "host":
                continue
            desc = target_context(ctx).named(target.data, fn)
            if not desc.lowers_to_accel:
                continue  # api.lowering = "none": its codegen hook takes the bufferized region
            weights = WeightCache(fn)
            for kernel in list(fn.body.block.ops):
                if not isinstance(kernel, accel.KernelOp):
                    if isinstance(kernel, (relay.RelayOp, relay.CompositeOp)) or any(
                            isinstance(t, TensorType) for t in kernel.result_types):
                        raise CompileError(f"lower-to-accel: @{fn.sym_name.data} is not bufferized (run bufferize first)", kernel)
                    continue
                try:
                    compute = lower_kernel(kernel, weights)
                except NotLowerable as e:
                    what = _describe(kernel)
                    raise CompileError(f"lower-to-accel: cannot run {what} on '{target.data}': {e}", kernel) from None
                compute.location = kernel.location
                stamp_entry(compute, kernel, desc)
                Rewriter.replace_op(kernel, compute)


def stamp_entry(compute: accel.ComputeOp, kernel: accel.KernelOp, desc) -> None:
    """Record on `compute` the description entry that runs it (its declared C call):
    the pattern of the kernel's composite, or the first `[[ops]]` entry accepting its op."""
    anchor = next(o for o in kernel.body.block.ops if not isinstance(o, (relay.ConstantOp, accel.YieldOp)))
    spec = select(anchor, desc)
    if isinstance(spec, str):
        raise CompileError(f"lower-to-accel: '{desc.name}' has no entry for {_describe(kernel)}: {spec}", kernel)
    set_entry(compute, spec.key)


def _describe(kernel: accel.KernelOp) -> str:
    for op in kernel.body.block.ops:
        if isinstance(op, relay.CompositeOp):
            return f"composite '{op.pattern.data}'"
        if not isinstance(op, (relay.ConstantOp, accel.YieldOp)):
            return f"'{op.name}'"
    return "an empty kernel"
