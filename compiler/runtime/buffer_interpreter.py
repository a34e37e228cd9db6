"""The reference interpreter for buffer-level IR (after `bufferize` and the accel lowering).

Buffers are numpy arrays; views (`memref.subview`) are numpy views, so writes through a
tile land in the buffer. `accel.kernel` runs its relay region with the relay interpreter
and copies the results into its output buffers; DMA is a copy; compute ops are the
reference semantics of their fused form (see each `run_*`). Fresh buffers are filled
with NaN (floats) or a marker pattern (ints), so a read of a never-written buffer shows.

`run_module(module, inputs)` runs `@main` whatever its level: tensor functions go to
`accel.compiler.runtime.interpreter.run_function`; bufferized ones get output arrays
allocated for their `accel.output` arguments.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType, ModuleOp
from xdsl.interpreter import Interpreter, InterpreterFunctions, ReturnedValues, impl, impl_terminator, register_impls
from xdsl.interpreters.arith import ArithFunctions
from xdsl.interpreters.func import FuncFunctions
from xdsl.interpreters.scf import ScfFunctions

from accel.compiler.diagnostics import CompileError, one_line
from accel.compiler.runtime import interpreter as relay_interpreter
from accel.compiler.runtime import reference as ref
from accel.compiler.tensors import WeightsError, constant_value, numpy_dtype
from accel.dialects import accel
from accel.dialects.conventions import io_names, is_output_arg


def fresh_buffer(t: MemRefType) -> np.ndarray:
    dt = numpy_dtype(t.element_type)
    shape = tuple(t.get_shape())
    if dt.kind == "f":
        return np.full(shape, np.nan, dtype=dt)
    return np.full(shape, 0x5A if dt.itemsize == 1 else 0x5A5A, dtype=dt) if dt != np.bool_ else np.zeros(shape, dt)


def weight_value(op: accel.WeightOp) -> np.ndarray:
    """A weight's value as a read-only array (buffers of the interpreter are views)."""
    view = constant_value(op).view()
    view.flags.writeable = False
    return view


def _activation(y: np.ndarray, op: accel.ComputeOp) -> np.ndarray:
    act = op.prop("activation")
    if act == "relu":
        return np.maximum(y, np.zeros((), y.dtype))
    if act == "clip":
        return np.clip(y, np.float32(op.prop("clip_min")), np.float32(op.prop("clip_max"))).astype(y.dtype)
    return y


def _requantize(acc: np.ndarray, op: accel.ComputeOp, channel_axis: int, out_dtype: np.dtype) -> np.ndarray:
    """int32 accumulator -> int8: act(f32(acc * in_scale[c])) / out_scale, round half even, + zp."""
    in_scale = np.asarray(op.prop("in_scale"), dtype=np.float32)
    if in_scale.size > 1:
        shape = [1] * acc.ndim
        shape[channel_axis] = in_scale.size
        in_scale = in_scale.reshape(shape)
    real = (acc.astype(np.float32) * in_scale).astype(np.float32)
    real = _activation(real, op)
    return ref.qnn_quantize(real, np.float32(op.prop("out_scale")), np.asarray(op.prop("output_zero_point"), out_dtype))


def _weight_zero_point(op: accel.ComputeOp, dtype: np.dtype) -> np.ndarray:
    zp = op.prop("weight_zero_point")
    return np.asarray(zp if zp else 0, dtype=dtype)


@register_impls
class BufferFunctions(InterpreterFunctions):
    # Index arithmetic of tiled IR that xDSL's ArithFunctions lacks (a last tile shifted
    # inwards: `arith.minsi`).
    @impl(arith.MinSIOp)
    def run_minsi(self, interpreter: Interpreter, op: arith.MinSIOp, args):
        return (min(args[0], args[1]),)

    @impl(arith.MaxSIOp)
    def run_maxsi(self, interpreter: Interpreter, op: arith.MaxSIOp, args):
        return (max(args[0], args[1]),)

    @impl(memref.AllocOp)
    def run_alloc(self, interpreter: Interpreter, op: memref.AllocOp, args):
        return (fresh_buffer(op.memref.type),)

    @impl(memref.CopyOp)
    def run_copy(self, interpreter: Interpreter, op: memref.CopyOp, args):
        np.copyto(args[1], args[0])
        return ()

    @impl(memref.SubviewOp)
    def run_subview(self, interpreter: Interpreter, op: memref.SubviewOp, args):
        source = args[0]
        dyn = list(args[1:])
        offsets = []
        for o in op.static_offsets.get_values():
            offsets.append(dyn.pop(0) if o == DYNAMIC_INDEX else o)
        sizes = []
        for s in op.static_sizes.get_values():
            sizes.append(dyn.pop(0) if s == DYNAMIC_INDEX else s)
        strides = []
        for s in op.static_strides.get_values():
            strides.append(dyn.pop(0) if s == DYNAMIC_INDEX else s)
        index = tuple(slice(o, o + n * st, st) for o, n, st in zip(offsets, sizes, strides))
        view = source[index]
        result_shape = tuple(op.result.type.get_shape())
        return (view.reshape(result_shape) if view.shape != result_shape else view,)

    @impl(memref.ReinterpretCastOp)
    def run_strided_view(self, interpreter: Interpreter, op: memref.ReinterpretCastOp, args):
        source = args[0]
        assert source.flags.c_contiguous, "a strided view of a dense buffer"
        (offset,) = op.static_offsets.get_values()
        item = source.itemsize
        flat = source.reshape(-1)[offset:]
        view = np.lib.stride_tricks.as_strided(flat, tuple(op.static_sizes.get_values()),
                                               tuple(st * item for st in op.static_strides.get_values()))
        return (view,)

    @impl(accel.AllocOp)
    def run_accel_alloc(self, interpreter: Interpreter, op: accel.AllocOp, args):
        return (fresh_buffer(op.result.type),)

    @impl(accel.WeightOp)
    def run_weight(self, interpreter: Interpreter, op: accel.WeightOp, args):
        return (weight_value(op),)

    @impl(accel.DmaStartOp)
    def run_dma_start(self, interpreter: Interpreter, op: accel.DmaStartOp, args):
        if len(args) == 2 or args[2] < args[3]:  # a guarded transfer: issued only where a < b
            np.copyto(args[1], args[0])
        return (op,)

    @impl(accel.DmaWaitOp)
    def run_dma_wait(self, interpreter: Interpreter, op: accel.DmaWaitOp, args):
        return ()

    @impl(accel.KernelOp)
    def run_kernel(self, interpreter: Interpreter, op: accel.KernelOp, args):
        n_in = len(op.ins)
        ins = tuple(np.array(a) for a in args[:n_in])  # tensors are values: copy
        results = interpreter.run_ssacfg_region(op.body, ins, "accel.kernel")
        for out, value in zip(args[n_in:], results):
            np.copyto(out, value)
        return ()

    @impl_terminator(accel.YieldOp)
    def run_yield(self, interpreter: Interpreter, op: accel.YieldOp, args):
        return ReturnedValues(args), ()

    @impl(accel.Conv2DOp)
    def run_conv2d(self, interpreter: Interpreter, op: accel.Conv2DOp, args):
        x, w, *rest = args[:-1]
        out = args[-1]
        geometry = {k: op.prop(k) for k in ("strides", "padding", "dilation", "groups")}
        if op.is_quantized:
            acc = ref.qnn_conv2d(x, w, np.asarray(op.prop("input_zero_point"), x.dtype),
                                 _weight_zero_point(op, w.dtype), **geometry).astype(np.int64)
            if rest:
                acc = acc + rest[0].astype(np.int64).reshape(1, -1, 1, 1)
            y = _requantize(acc.astype(np.int32), op, 1, out.dtype)
        else:
            y = ref.conv2d(x, w, **geometry)
            if rest:
                y = y + rest[0].reshape(1, -1, 1, 1)
            y = _activation(y.astype(out.dtype), op)
        np.copyto(out, y)
        return ()

    @impl(accel.MatmulOp)
    def run_matmul(self, interpreter: Interpreter, op: accel.MatmulOp, args):
        a, b, *rest = args[:-1]
        out = args[-1]
        ta, tb = op.prop("transpose_a"), op.prop("transpose_b")
        if a.ndim == 1:  # a vector data row
            a = a.reshape(1, -1)

        def t(v: np.ndarray) -> np.ndarray:  # the matrix transpose of the last two axes
            return np.swapaxes(v, -1, -2)

        if op.is_quantized:
            x = (t(a) if ta else a).astype(np.int64) - op.prop("input_zero_point")
            wt = b if tb else t(b)  # [..., N, K]
            zp = _weight_zero_point(op, np.int64)
            w = wt.astype(np.int64) - (zp.reshape(-1, 1) if zp.size > 1 else zp)
            acc = x @ t(w)
            if rest:
                acc = acc + rest[0].astype(np.int64)
            y = _requantize(acc.astype(np.int32), op, acc.ndim - 1, out.dtype).reshape(out.shape)
        else:
            y = np.matmul(t(a) if ta else a, t(b) if tb else b).reshape(out.shape)
            if op.prop("accumulate"):
                y = y + out
            if rest:
                y = y + rest[0]
            y = _activation(y.astype(out.dtype), op)
        np.copyto(out, y)
        return ()

    @impl(accel.PoolOp)
    def run_pool(self, interpreter: Interpreter, op: accel.PoolOp, args):
        x, out = args
        geometry = {k: op.prop(k) for k in ("pool_size", "strides", "dilation", "padding", "ceil_mode")}
        quantized = op.is_quantized
        if quantized:
            in_scale = np.float32(op.prop("in_scale")[0]) if op.prop("in_scale") else np.float32(1.0)
            x = ref.qnn_dequantize(x, in_scale, np.asarray(op.prop("input_zero_point"), x.dtype))
        if op.prop("kind") == "max":
            y = ref.max_pool2d(x, **geometry)
        else:
            y = ref.avg_pool2d(x, **geometry, count_include_pad=op.prop("count_include_pad"))
        if quantized:
            y = ref.qnn_quantize(y, np.float32(op.prop("out_scale")), np.asarray(op.prop("output_zero_point"), out.dtype))
        np.copyto(out, y)
        return ()

    @impl(accel.EltwiseOp)
    def run_eltwise(self, interpreter: Interpreter, op: accel.EltwiseOp, args):
        *ins, out = args
        kind = op.prop("kind")
        if kind == "quantize":
            np.copyto(out, ref.qnn_quantize(ins[0], np.float32(op.prop("out_scale")),
                                            np.asarray(op.prop("output_zero_point"), out.dtype)))
            return ()
        if kind == "dequantize":
            np.copyto(out, ref.qnn_dequantize(ins[0], np.float32(op.prop("lhs_scale")),
                                              np.asarray(op.prop("lhs_zero_point"), ins[0].dtype)))
            return ()
        if kind == accel.EltwiseOp.LOOKUP:  # the input's byte indexes the table
            np.copyto(out, np.asarray(op.prop("table"), np.int64)[ins[0].astype(np.uint8)].astype(out.dtype))
            return ()
        if op.is_quantized:
            # A row op's gamma and beta are float: only its data is dequantized.
            data = ins[:1] if kind in accel.EltwiseOp.ROWS else ins
            real = [ref.qnn_dequantize(v, np.float32(op.prop(f"{side}_scale")),
                                       np.asarray(op.prop(f"{side}_zero_point"), v.dtype))
                    for v, side in zip(data, ("lhs", "rhs"))] + ins[len(data):]
            y = _eltwise(kind, real, op)
            y = _activation(y, op)
            y = ref.qnn_quantize(y, np.float32(op.prop("out_scale")), np.asarray(op.prop("output_zero_point"), out.dtype))
        else:
            y = _activation(_eltwise(kind, list(ins), op).astype(out.dtype), op)
        np.copyto(out, y)
        return ()


_BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}
_UNARY = {"relu": ref.relu, "sigmoid": ref.sigmoid, "tanh": ref.tanh, "gelu": ref.gelu, "silu": ref.silu,
          "gelu_tanh": lambda x: ref.gelu(x, "tanh"), "sqrt": ref.sqrt, "exp": ref.exp, "log": ref.log,
          "softmax": ref.softmax}


def _eltwise(kind: str, ins: list[np.ndarray], op: accel.EltwiseOp) -> np.ndarray:
    """One elementwise or row command; a broadcast rhs is aligned with the trailing dims."""
    x = ins[0]
    if kind in _BINARY:
        rhs = ins[1]
        if rhs.shape != x.shape and rhs.size == 1:
            rhs = rhs.reshape(())
        return _BINARY[kind](x, rhs).astype(x.dtype, copy=False)
    if kind in _UNARY:
        return _UNARY[kind](x)
    if kind == "layer_norm":
        gamma = ins[1] if len(ins) > 1 else np.ones(x.shape[-1:], x.dtype)
        beta = ins[2] if len(ins) > 2 else np.zeros(x.shape[-1:], x.dtype)
        return ref.layer_norm(x, gamma, beta, -1, op.prop("epsilon"))
    if kind == "rms_norm":
        gamma = ins[1] if len(ins) > 1 else np.ones(x.shape[-1:], x.dtype)
        return ref.rms_norm(x, gamma, -1, op.prop("epsilon"))
    return ref.clip(x, op.prop("clip_min"), op.prop("clip_max"))


def io_signature(fn: func.FuncOp) -> tuple[list[str], list[str]]:
    """Input and output names of a function at any level (bufferized outputs are the
    arguments marked `accel.output`)."""
    n_out = sum(is_output_arg(fn, i) for i in range(len(fn.body.block.args)))
    if not n_out:
        return io_names(fn)
    names = io_names(fn)[0]
    return names[:-n_out], names[-n_out:]


def run_module(module: ModuleOp, inputs: Mapping[str, Any] | Sequence[Any], name: str = "main") -> dict[str, np.ndarray]:
    """Run `@name` at any level; returns its outputs keyed by output name."""
    fn = relay_interpreter.find_function(module, name)
    n_out = sum(is_output_arg(fn, i) for i in range(len(fn.body.block.args)))
    if not n_out:
        return relay_interpreter.run_function(module, inputs, name)
    names = io_names(fn)[0]
    in_names, out_names = names[:-n_out], names[-n_out:]
    values = relay_interpreter.ordered_inputs(in_names, inputs)
    arrays = []
    for n, v, t in zip(in_names, values, fn.function_type.inputs.data):
        arr = np.asarray(v)
        want = (tuple(t.get_shape()), numpy_dtype(t.element_type))
        if (arr.shape, arr.dtype) != want:
            raise CompileError(f"input '{n}': expected shape {list(want[0])} and dtype {want[1]}, "
                               f"got shape {list(arr.shape)} and dtype {arr.dtype}")
        arrays.append(np.array(arr))
    outs = [fresh_buffer(t) for t in fn.function_type.inputs.data[len(in_names):]]
    interpreter = Interpreter(module)
    for impls in (FuncFunctions(), relay_interpreter.RelayFunctions(), BufferFunctions(), ScfFunctions(), ArithFunctions()):
        interpreter.register_implementations(impls)
    try:
        with np.errstate(all="ignore"):
            interpreter.call_op(fn, (*arrays, *outs))
    except relay_interpreter._OpFailed as e:
        raise e.error from None
    except WeightsError as e:
        raise CompileError(one_line(str(e))) from None
    return dict(zip(out_names, outs))
