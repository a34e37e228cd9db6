"""The reference interpreter: runs relay IR on numpy arrays with xDSL's `Interpreter`.

    module = parse(...)                      # relay IR, before or after partitioning
    outs = run_function(module, {"x": x})    # {"y": array(...)}, keyed by output name
    (y,) = interpret(module, x)              # positional

Every relay op maps to its function in `accel.compiler.runtime.reference` (the semantics);
`relay.constant` reads inline or external weights; `relay.composite` runs its body;
`func.call` / `func.return` use xDSL's own `FuncFunctions`, so the output of
`outline-regions` runs as is. Discardable attributes (`accel.target`, ...) are ignored.

Inputs are checked against `@main`'s signature (names from `io_names`, exact shape and
dtype) and every op's result is checked against its IR type, so a reference bug cannot
silently change a shape or dtype. Bad inputs and data-dependent failures (an index out
of range, integer division by zero, an overflowing i32 accumulator) raise a one-line
`CompileError` located at the op.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    ReturnedValues,
    impl,
    impl_terminator,
    register_impls,
)
from xdsl.ir import Attribute, Operation
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import InterpretationError

from accel.compiler.diagnostics import CompileError, one_line
from accel.compiler.narrow_types import BF16, from_archive
from accel.compiler.runtime import reference as ref
from accel.compiler.tensors import UnsupportedDtype, WeightsError, constant_value, numpy_dtype
from accel.dialects import relay
from accel.dialects.conventions import io_names

# --------------------------------------------------------------------------------------
# Kernels
# --------------------------------------------------------------------------------------


class _OpFailed(BaseException):
    """Carries a located CompileError out of the interpreter.

    xDSL wraps any `Exception` raised by an op implementation by printing the whole
    module into the exception's notes; a user error needs none of that (and a large
    module would pay for it), so it travels as a BaseException and is unwrapped by
    `run_function`."""

    def __init__(self, error: CompileError):
        super().__init__(str(error))
        self.error = error


def _expected(t: Attribute) -> tuple[tuple[int, ...], np.dtype]:
    """Shape and numpy dtype of a tensor type (UnsupportedDtype for anything else)."""
    if not isinstance(t, TensorType):
        raise UnsupportedDtype(f"{t} is not a tensor type")
    return tuple(t.get_shape()), numpy_dtype(t.element_type)


def kernel(op_type: type[Operation]):
    """Register `fn(self, op, *operands) -> array` as the implementation of `op_type`:
    reference errors become located CompileErrors, and the result must match the
    op's result type."""

    def annotate(fn: Callable[..., Any]):
        @impl(op_type)
        def run(self, interpreter: Interpreter, op: Operation, args: tuple[Any, ...]):
            widen = op_type not in (relay.CastOp, relay.ReinterpretOp) and any(isinstance(a, np.ndarray) and a.dtype == BF16 for a in args)
            if widen:  # bf16 computes in f32, stored back rounded, as in C (widen-host-floats)
                args = tuple(a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == BF16 else a for a in args)
            try:
                result = np.asarray(fn(self, op, *args))
            except (ValueError, WeightsError) as e:
                raise _OpFailed(CompileError(f"'{op.name}' op {one_line(str(e))}", op)) from None
            shape, dtype = _expected(op.results[0].type)
            if widen and dtype == BF16:
                result = result.astype(BF16)
            if result.shape != shape or result.dtype != dtype:
                raise _OpFailed(
                    CompileError(
                        f"internal error: '{op.name}' produced {result.dtype}{list(result.shape)}, "
                        f"the IR type is {op.results[0].type}",
                        op,
                    )
                )
            return (result,)

        run.__name__ = fn.__name__
        return run

    return annotate


def _with_props(reference_fn: Callable[..., np.ndarray]):
    """A kernel whose operands and properties map one to one onto `reference_fn`."""

    def run(self, op: relay.RelayOp, *args):
        return reference_fn(*args, **op.py_props())

    run.__name__ = reference_fn.__name__
    return run


@register_impls
class RelayFunctions(InterpreterFunctions):
    """Implementations of every relay op (see `reference.py` for the semantics)."""

    run_conv2d = kernel(relay.Conv2DOp)(_with_props(ref.conv2d))
    run_dense = kernel(relay.DenseOp)(_with_props(ref.dense))
    run_matmul = kernel(relay.MatmulOp)(_with_props(ref.matmul))
    run_batch_matmul = kernel(relay.BatchMatmulOp)(_with_props(ref.batch_matmul))
    run_bias_add = kernel(relay.BiasAddOp)(_with_props(ref.bias_add))
    run_add = kernel(relay.AddOp)(_with_props(ref.add))
    run_subtract = kernel(relay.SubtractOp)(_with_props(ref.subtract))
    run_multiply = kernel(relay.MultiplyOp)(_with_props(ref.multiply))
    run_divide = kernel(relay.DivideOp)(_with_props(ref.divide))
    run_relu = kernel(relay.ReluOp)(_with_props(ref.relu))
    run_clip = kernel(relay.ClipOp)(_with_props(ref.clip))
    run_sigmoid = kernel(relay.SigmoidOp)(_with_props(ref.sigmoid))
    run_tanh = kernel(relay.TanhOp)(_with_props(ref.tanh))
    run_erf = kernel(relay.ErfOp)(_with_props(ref.erf))
    run_gelu = kernel(relay.GeluOp)(_with_props(ref.gelu))
    run_hardsigmoid = kernel(relay.HardSigmoidOp)(_with_props(ref.hardsigmoid))
    run_hardswish = kernel(relay.HardSwishOp)(_with_props(ref.hardswish))
    run_silu = kernel(relay.SiluOp)(_with_props(ref.silu))
    run_leaky_relu = kernel(relay.LeakyReluOp)(_with_props(ref.leaky_relu))
    run_softmax = kernel(relay.SoftmaxOp)(_with_props(ref.softmax))
    run_max_pool2d = kernel(relay.MaxPool2DOp)(_with_props(ref.max_pool2d))
    run_avg_pool2d = kernel(relay.AvgPool2DOp)(_with_props(ref.avg_pool2d))
    run_global_avg_pool2d = kernel(relay.GlobalAvgPool2DOp)(_with_props(ref.global_avg_pool2d))
    run_batch_norm = kernel(relay.BatchNormOp)(_with_props(ref.batch_norm))
    run_layer_norm = kernel(relay.LayerNormOp)(_with_props(ref.layer_norm))
    run_rms_norm = kernel(relay.RMSNormOp)(_with_props(ref.rms_norm))
    run_transpose = kernel(relay.TransposeOp)(_with_props(ref.transpose))
    run_pad = kernel(relay.PadOp)(_with_props(ref.pad))
    run_batch_flatten = kernel(relay.BatchFlattenOp)(_with_props(ref.batch_flatten))
    run_take = kernel(relay.TakeOp)(_with_props(ref.take))
    run_quantize = kernel(relay.QuantizeOp)(_with_props(ref.qnn_quantize))
    run_dequantize = kernel(relay.DequantizeOp)(_with_props(ref.qnn_dequantize))
    run_requantize = kernel(relay.RequantizeOp)(_with_props(ref.qnn_requantize))
    run_qnn_add = kernel(relay.QnnAddOp)(_with_props(ref.qnn_add))
    run_resize2d = kernel(relay.Resize2DOp)(_with_props(ref.resize2d))
    run_conv2d_transpose = kernel(relay.Conv2DTransposeOp)(_with_props(ref.conv2d_transpose))
    run_depth_to_space = kernel(relay.DepthToSpaceOp)(_with_props(ref.depth_to_space))
    run_space_to_depth = kernel(relay.SpaceToDepthOp)(_with_props(ref.space_to_depth))
    run_gather = kernel(relay.GatherOp)(_with_props(ref.gather))
    run_max_pool2d_indices = kernel(relay.MaxPool2DIndicesOp)(_with_props(ref.max_pool2d_indices))
    run_gather_nd = kernel(relay.GatherNDOp)(_with_props(ref.gather_nd))
    run_scatter_elements = kernel(relay.ScatterElementsOp)(_with_props(ref.scatter_elements))
    run_scatter_nd = kernel(relay.ScatterNDOp)(_with_props(ref.scatter_nd))
    run_grid_sample = kernel(relay.GridSampleOp)(_with_props(ref.grid_sample))
    run_roi_align = kernel(relay.RoiAlignOp)(_with_props(ref.roi_align))
    run_roi_pool = kernel(relay.RoiPoolOp)(_with_props(ref.roi_pool))
    run_max_unpool = kernel(relay.MaxUnpoolOp)(_with_props(ref.max_unpool))
    run_dyn_clip = kernel(relay.DynClipOp)(_with_props(ref.dyn_clip))
    run_dynamic_scale = kernel(relay.DynamicScaleOp)(_with_props(ref.dynamic_scale))
    run_dynamic_zero_point = kernel(relay.DynamicZeroPointOp)(_with_props(ref.dynamic_zero_point))

    run_cumsum = kernel(relay.CumsumOp)(_with_props(ref.cumsum))
    run_cumprod = kernel(relay.CumprodOp)(_with_props(ref.cumprod))
    run_topk = kernel(relay.TopKOp)(_with_props(ref.topk))
    run_bitwise_and = kernel(relay.BitwiseAndOp)(_with_props(ref.bitwise_and))
    run_bitwise_or = kernel(relay.BitwiseOrOp)(_with_props(ref.bitwise_or))
    run_bitwise_xor = kernel(relay.BitwiseXorOp)(_with_props(ref.bitwise_xor))
    run_bitwise_not = kernel(relay.BitwiseNotOp)(_with_props(ref.bitwise_not))
    run_left_shift = kernel(relay.LeftShiftOp)(_with_props(ref.left_shift))
    run_right_shift = kernel(relay.RightShiftOp)(_with_props(ref.right_shift))
    run_det = kernel(relay.DetOp)(_with_props(ref.det))

    @kernel(relay.ReinterpretOp)
    def run_reinterpret(self, op: relay.ReinterpretOp, data):
        return ref.reinterpret(data, numpy_dtype(op.result.type.element_type))

    @kernel(relay.ConcatenateOp)
    def run_concatenate(self, op: relay.ConcatenateOp, *inputs):
        return ref.concatenate(inputs, axis=op.prop("axis"))

    @kernel(relay.MeanOp)
    def run_mean(self, op: relay.MeanOp, data):
        axes = relay.MeanOp.reduced_axes(data.ndim, op.py_props())
        return ref.mean(data, axes, keepdims=op.prop("keepdims"))

    # -- run-time math ---------------------------------------------------------------
    run_sqrt = kernel(relay.SqrtOp)(_with_props(ref.sqrt))
    run_exp = kernel(relay.ExpOp)(_with_props(ref.exp))
    run_sin = kernel(relay.SinOp)(_with_props(ref.sin))
    run_cos = kernel(relay.CosOp)(_with_props(ref.cos))
    run_tan = kernel(relay.TanOp)(_with_props(ref.tan))
    run_asin = kernel(relay.AsinOp)(_with_props(ref.asin))
    run_acos = kernel(relay.AcosOp)(_with_props(ref.acos))
    run_atan = kernel(relay.AtanOp)(_with_props(ref.atan))
    run_sinh = kernel(relay.SinhOp)(_with_props(ref.sinh))
    run_cosh = kernel(relay.CoshOp)(_with_props(ref.cosh))
    run_asinh = kernel(relay.AsinhOp)(_with_props(ref.asinh))
    run_acosh = kernel(relay.AcoshOp)(_with_props(ref.acosh))
    run_atanh = kernel(relay.AtanhOp)(_with_props(ref.atanh))
    run_floor = kernel(relay.FloorOp)(_with_props(ref.floor))
    run_ceil = kernel(relay.CeilOp)(_with_props(ref.ceil))
    run_round = kernel(relay.RoundOp)(_with_props(ref.round_half_even))
    run_log = kernel(relay.LogOp)(_with_props(ref.log))
    run_negative = kernel(relay.NegativeOp)(_with_props(ref.negative))
    run_abs = kernel(relay.AbsOp)(_with_props(ref.absolute))
    run_power = kernel(relay.PowerOp)(_with_props(ref.power))
    run_maximum = kernel(relay.MaximumOp)(_with_props(ref.maximum))
    run_minimum = kernel(relay.MinimumOp)(_with_props(ref.minimum))
    run_logical_not = kernel(relay.LogicalNotOp)(_with_props(ref.logical_not))
    run_logical_and = kernel(relay.LogicalAndOp)(_with_props(ref.logical_and))
    run_logical_or = kernel(relay.LogicalOrOp)(_with_props(ref.logical_or))
    run_logical_xor = kernel(relay.LogicalXorOp)(_with_props(ref.logical_xor))
    run_where = kernel(relay.WhereOp)(_with_props(ref.where))

    def _compare(self, op: relay.CompareOp, lhs, rhs):
        return ref.compare(op.name.removeprefix("relay."), lhs, rhs)

    run_equal = kernel(relay.EqualOp)(_compare)
    run_not_equal = kernel(relay.NotEqualOp)(_compare)
    run_less = kernel(relay.LessOp)(_compare)
    run_less_equal = kernel(relay.LessEqualOp)(_compare)
    run_greater = kernel(relay.GreaterOp)(_compare)
    run_greater_equal = kernel(relay.GreaterEqualOp)(_compare)

    def _reduce(self, op: relay.ReduceOp, data):
        fn = {relay.SumOp: ref.reduce_sum, relay.ProdOp: ref.reduce_prod, relay.MaxOp: ref.reduce_max,
              relay.MinOp: ref.reduce_min}[type(op)]
        return fn(data, op.reduced_axes(data.ndim, op.py_props()), keepdims=op.prop("keepdims"))

    run_broadcast_to = kernel(relay.BroadcastToOp)(_with_props(ref.broadcast_to))

    @kernel(relay.StridedSliceOp)
    def run_strided_slice(self, op: relay.StridedSliceOp, data):
        return ref.strided_slice(data, op.ranges(data.shape, op.py_props()))

    run_sum = kernel(relay.SumOp)(_reduce)
    run_prod = kernel(relay.ProdOp)(_reduce)
    run_max = kernel(relay.MaxOp)(_reduce)
    run_min = kernel(relay.MinOp)(_reduce)

    @kernel(relay.ReshapeOp)
    def run_reshape(self, op: relay.ReshapeOp, data):
        return ref.reshape(data, relay.resolve_newshape(data.shape, op.prop("newshape")))

    @kernel(relay.CastOp)
    def run_cast(self, op: relay.CastOp, data):
        return ref.cast(data, numpy_dtype(op.result.type), **op.py_props())

    @kernel(relay.QnnConv2DOp)
    def run_qnn_conv2d(self, op: relay.QnnConv2DOp, data, weight, input_zp, kernel_zp, _in_scale, _k_scale):
        return ref.qnn_conv2d(data, weight, input_zp, kernel_zp, **op.py_props())

    @kernel(relay.QnnDenseOp)
    def run_qnn_dense(self, op: relay.QnnDenseOp, data, weight, input_zp, kernel_zp, _in_scale, _k_scale):
        return ref.qnn_dense(data, weight, input_zp, kernel_zp)

    @kernel(relay.ConstantOp)
    def run_constant(self, op: relay.ConstantOp):
        value = constant_value(op).view()
        value.flags.writeable = False  # shared with the weights cache
        return value

    @impl(relay.CompositeOp)
    def run_composite(self, interpreter: Interpreter, op: relay.CompositeOp, args: tuple[Any, ...]):
        return interpreter.run_ssacfg_region(op.body, args, op.pattern.data)

    @impl_terminator(relay.YieldOp)
    def run_yield(self, interpreter: Interpreter, op: relay.YieldOp, args: tuple[Any, ...]):
        return ReturnedValues(args), ()


# --------------------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------------------


def find_function(module: ModuleOp, name: str = "main") -> func.FuncOp:
    fn = SymbolTable.lookup_symbol(module, name)
    if not isinstance(fn, func.FuncOp):
        raise CompileError(f"the module has no function @{name}")
    if not fn.body.blocks:
        raise CompileError(f"function @{name} has no body", fn)
    return fn


def _check_inputs(fn: func.FuncOp, names: list[str], arrays: Sequence[Any]) -> list[np.ndarray]:
    checked = []
    for name, value, t in zip(names, arrays, fn.function_type.inputs.data):
        arr = np.asarray(value)
        try:
            shape, dtype = _expected(t)
        except UnsupportedDtype:
            raise CompileError(f"input '{name}' has type {t}, which the interpreter cannot take", fn) from None
        arr = from_archive(arr, dtype)
        if arr.shape != shape or arr.dtype != dtype:
            raise CompileError(
                f"input '{name}': expected shape {list(shape)} and dtype {dtype}, "
                f"got shape {list(arr.shape)} and dtype {arr.dtype}"
            )
        checked.append(arr)
    return checked


def ordered_inputs(names: list[str], inputs: Mapping[str, Any] | Sequence[Any]) -> list[Any]:
    """`inputs` (by name, or a sequence in order) as a list in the order of `names`; a
    missing, unexpected or miscounted input is a one-line CompileError."""
    if isinstance(inputs, Mapping):
        missing = [n for n in names if n not in inputs]
        if missing:
            raise CompileError(f"missing input '{missing[0]}' (the inputs are: {', '.join(names) or 'none'})")
        extra = [k for k in inputs if k not in names]
        if extra:
            raise CompileError(f"unexpected input '{extra[0]}' (the inputs are: {', '.join(names) or 'none'})")
        return [inputs[n] for n in names]
    values = list(inputs)
    if len(values) != len(names):
        raise CompileError(f"expected {len(names)} inputs ({', '.join(names)}), got {len(values)}")
    return values


def _run(module: ModuleOp, fn: func.FuncOp, arrays: list[np.ndarray]) -> tuple[np.ndarray, ...]:
    # Imported here: `xdsl.interpreters` imports every xDSL interpreter (RISC-V, linalg,
    # ...: 0.15 s), which constant folding (`OpEvaluator`, in every byoc run) never needs.
    from xdsl.interpreters.func import FuncFunctions

    interpreter = Interpreter(module)
    interpreter.register_implementations(FuncFunctions())
    interpreter.register_implementations(RelayFunctions())
    try:
        with np.errstate(all="ignore"):  # IEEE results (inf, nan) are the semantics
            results = interpreter.call_op(fn, tuple(arrays))
    except _OpFailed as e:
        raise e.error from None
    except InterpretationError as e:
        # e.g. an op the interpreter has no implementation for, or a bodiless callee.
        raise CompileError(one_line(str(e.args[0]) if e.args else str(e))) from None
    except WeightsError as e:
        raise CompileError(one_line(str(e))) from None
    # Results own their memory: a view of an input or of a (read-only) constant would
    # let the caller's writes leak into either.
    return tuple(_owned(np.asarray(r)) for r in results)


def _owned(arr: np.ndarray) -> np.ndarray:
    return arr if arr.base is None and arr.flags.writeable else arr.copy()


def run_function(
    module: ModuleOp, inputs: Mapping[str, Any] | Sequence[Any], name: str = "main"
) -> dict[str, np.ndarray]:
    """Run `@name` on `inputs` (a dict keyed by input name, or a sequence in argument
    order); returns the results keyed by output name, in order."""
    fn = find_function(module, name)
    in_names, out_names = io_names(fn)
    if len(set(out_names)) != len(out_names):
        dup = next(n for n in out_names if out_names.count(n) > 1)
        raise CompileError(f"two outputs of @{name} are named '{dup}'", fn)
    arrays = _check_inputs(fn, in_names, ordered_inputs(in_names, inputs))
    return dict(zip(out_names, _run(module, fn, arrays)))


class OpEvaluator:
    """Runs single relay ops on known operand values with the interpreter's kernels
    (constant folding evaluates ops with exactly the semantics the interpreter runs)."""

    def __init__(self, module: ModuleOp):
        self._interpreter = Interpreter(module)
        self._interpreter.register_implementations(RelayFunctions())

    def evaluate(self, op: Operation, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        """The op's results; a data-dependent failure (integer division by zero, ...)
        is the op's located CompileError."""
        try:
            with np.errstate(all="ignore"):
                return tuple(_owned(np.asarray(r)) for r in self._interpreter.run_op(op, tuple(operands)))
        except _OpFailed as e:
            raise e.error from None


def interpret(module: ModuleOp, *arrays: Any, name: str = "main") -> tuple[np.ndarray, ...]:
    """Run `@name` on positional inputs; returns its results in order."""
    fn = find_function(module, name)
    in_names, _ = io_names(fn)
    checked = _check_inputs(fn, in_names, ordered_inputs(in_names, arrays))
    return _run(module, fn, checked)
