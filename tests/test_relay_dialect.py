"""Builder-level tests of the relay dialect: every op infers its result type from its
operands and properties (the verifier's own inference), and a wrong build raises a
VerifyException whose message names the offending operand or property."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, IntegerType, Signedness, TensorType, f16, f32, i8, i32, i64
from xdsl.dialects.func import Func
from xdsl.ir import Block
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, VerifyException

from accel.compiler.tensors import array_from_dense, dense_from_array
from accel.dialects import relay

u8 = IntegerType(8, Signedness.UNSIGNED)


def t(*shape: int, dtype=f32) -> TensorType:
    return TensorType(dtype, list(shape))


def vals(*types: TensorType):
    """Fresh SSA values (block arguments) of the given types."""
    return Block(arg_types=types).args


def shape(op) -> tuple[int, ...]:
    op.verify()  # what the builder inferred, the verifier accepts
    return tuple(op.results[0].type.get_shape())


def raises(message: str):
    return pytest.raises(VerifyException, match=re.escape(message))


# --------------------------------------------------------------------------------------
# Convolution, dense, matmul
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data, weight, props, expected",
    [
        ((1, 3, 8, 8), (8, 3, 3, 3), {}, (1, 8, 6, 6)),
        ((1, 3, 8, 8), (8, 3, 3, 3), dict(strides=(2, 2), padding=(1, 1, 1, 1)), (1, 8, 4, 4)),
        ((1, 3, 9, 8), (8, 3, 3, 3), dict(strides=(2, 3)), (1, 8, 4, 2)),
        # asymmetric padding: (top, left, bottom, right)
        ((1, 3, 8, 8), (4, 3, 3, 3), dict(padding=(0, 1, 2, 0)), (1, 4, 8, 7)),
        # dilation 2 turns a 3x3 kernel into a 5x5 window
        ((2, 3, 9, 9), (4, 3, 3, 3), dict(dilation=(2, 2)), (2, 4, 5, 5)),
        ((1, 3, 10, 10), (4, 3, 3, 3), dict(dilation=(3, 1), padding=(1, 1, 1, 1)), (1, 4, 6, 10)),
        # grouped: weight has C / groups input channels
        ((1, 8, 6, 6), (16, 2, 3, 3), dict(groups=4), (1, 16, 4, 4)),
        # depthwise
        ((1, 8, 6, 6), (8, 1, 3, 3), dict(groups=8, padding=(1, 1, 1, 1)), (1, 8, 6, 6)),
        ((1, 3, 7, 7), (4, 3, 1, 1), dict(strides=(3, 3)), (1, 4, 3, 3)),
    ],
)
def test_conv2d_infers_shape(data, weight, props, expected):
    x, w = vals(t(*data), t(*weight))
    op = relay.Conv2DOp(x, w, **props)
    assert shape(op) == expected
    assert op.result.type.element_type == f32


def test_conv2d_defaults_are_tvm_defaults():
    x, w = vals(t(1, 3, 8, 8), t(8, 3, 3, 3))
    op = relay.Conv2DOp(x, w)
    assert op.py_props() == {"strides": (1, 1), "padding": (0, 0, 0, 0), "dilation": (1, 1), "groups": 1}


@pytest.mark.parametrize(
    "data, weight, props, message",
    [
        ((1, 3, 8, 8), (8, 4, 3, 3), {}, "operand 'weight' has 4 input channels per group, expected 3"),
        ((1, 6, 8, 8), (8, 2, 3, 3), dict(groups=3), "property 'groups' (3) must divide"),
        ((1, 6, 8, 8), (6, 6, 3, 3), dict(groups=0), "property 'groups' must be positive"),
        ((1, 3, 8, 8), (8, 3, 3, 3), dict(strides=(1, 1, 1)), "property 'strides' must have 2 elements"),
        ((1, 3, 8, 8), (8, 3, 3, 3), dict(strides=(0, 1)), "property 'strides' must be positive"),
        ((1, 3, 8, 8), (8, 3, 3, 3), dict(padding=(1, 1)), "property 'padding' must have 4 elements"),
        ((1, 3, 8, 8), (8, 3, 3, 3), dict(padding=(0, -1, 0, 0)), "property 'padding' must be non-negative"),
        ((1, 3, 8, 8), (8, 3, 3, 3), dict(dilation=(1, 0)), "property 'dilation' must be positive"),
        ((1, 3, 2, 2), (8, 3, 3, 3), {}, "the kernel 3x3 does not fit the padded input 2x2"),
        ((3, 8, 8), (8, 3, 3, 3), {}, "operand 'data' must have rank 4"),
        ((1, 3, 8, 8), (8, 3, 3), {}, "operand 'weight' must have rank 4"),
    ],
)
def test_conv2d_errors_name_the_culprit(data, weight, props, message):
    x, w = vals(t(*data), t(*weight))
    with raises(message):
        relay.Conv2DOp(x, w, **props)


def test_conv2d_dtypes():
    x, w = vals(t(1, 3, 8, 8, dtype=i8), t(8, 3, 3, 3, dtype=i8))
    with raises("operand 'data' must have a float element type"):
        relay.Conv2DOp(x, w)
    x, w = vals(t(1, 3, 8, 8), t(8, 3, 3, 3, dtype=f16))
    with raises("operands 'data' and 'weight' must have the same element type"):
        relay.Conv2DOp(x, w)


def test_unknown_property_is_a_type_error():
    x, w = vals(t(1, 3, 8, 8), t(8, 3, 3, 3))
    with pytest.raises(TypeError, match="relay.nn.conv2d has no property 'stride'"):
        relay.Conv2DOp(x, w, stride=(2, 2))


def test_dense():
    x, w, x3 = vals(t(4, 16), t(10, 16), t(2, 3, 16))
    assert shape(relay.DenseOp(x, w)) == (4, 10)
    assert shape(relay.DenseOp(x3, w)) == (2, 3, 10)
    bad_w, scalar = vals(t(10, 15), t())
    with raises("operand 'weight' has K = 15 but 'data' has K = 16"):
        relay.DenseOp(x, bad_w)
    with raises("operand 'data' must have rank >= 1"):
        relay.DenseOp(scalar, w)
    (w3,) = vals(t(1, 10, 16))
    with raises("operand 'weight' must have rank 2"):
        relay.DenseOp(x, w3)


@pytest.mark.parametrize(
    "a, b, ta, tb, expected",
    [
        ((3, 5), (5, 4), False, False, (3, 4)),
        ((5, 3), (5, 4), True, False, (3, 4)),
        ((3, 5), (4, 5), False, True, (3, 4)),
        ((5, 3), (4, 5), True, True, (3, 4)),
    ],
)
def test_matmul_transposes(a, b, ta, tb, expected):
    x, y = vals(t(*a), t(*b))
    assert shape(relay.MatmulOp(x, y, transpose_a=ta, transpose_b=tb)) == expected


def test_matmul_errors():
    x, y, z = vals(t(3, 5), t(4, 5), t(2, 3, 5))
    with raises("contraction sizes differ: 'lhs' has 5, 'rhs' has 4"):
        relay.MatmulOp(x, y)
    with raises("operand 'lhs' must have rank 2"):
        relay.MatmulOp(z, y)


def test_batch_matmul_broadcasts_batch_dims_and_defaults_to_transposed_rhs():
    a, b, c, d = vals(t(2, 3, 5), t(2, 4, 5), t(1, 5, 4), t(7, 1, 3, 5))
    op = relay.BatchMatmulOp(a, b)
    assert op.prop("transpose_b") is True
    assert shape(op) == (2, 3, 4)
    assert shape(relay.BatchMatmulOp(a, c, transpose_b=False)) == (2, 3, 4)
    assert shape(relay.BatchMatmulOp(d, b)) == (7, 2, 3, 4)
    (e,) = vals(t(3, 4, 5))
    with raises("operands 'lhs' [2] and 'rhs' [3] are not broadcast-compatible"):
        relay.BatchMatmulOp(a, e)
    with raises("contraction sizes differ"):
        relay.BatchMatmulOp(a, c)


def test_bias_add():
    x, b, c = vals(t(1, 8, 4, 4), t(8), t(4))
    assert shape(relay.BiasAddOp(x, b)) == (1, 8, 4, 4)
    assert shape(relay.BiasAddOp(x, c, axis=-1)) == (1, 8, 4, 4)
    with raises("operand 'bias' has 4 elements but 'data' has 8 along axis 1"):
        relay.BiasAddOp(x, c)
    with raises("property 'axis' 4 is out of range for rank 4"):
        relay.BiasAddOp(x, b, axis=4)
    (b2,) = vals(t(8, 1))
    with raises("operand 'bias' must have rank 1"):
        relay.BiasAddOp(x, b2)


# --------------------------------------------------------------------------------------
# Elementwise
# --------------------------------------------------------------------------------------

BINARY = [relay.AddOp, relay.SubtractOp, relay.MultiplyOp, relay.DivideOp]


@pytest.mark.parametrize("cls", BINARY)
@pytest.mark.parametrize(
    "a, b, expected",
    [
        ((2, 3), (2, 3), (2, 3)),
        ((2, 3), (3,), (2, 3)),
        ((3,), (2, 3), (2, 3)),
        ((4, 1, 1), (2, 3), (4, 2, 3)),
        ((1, 3), (2, 1), (2, 3)),
        ((), (2, 3), (2, 3)),
        ((5, 1, 4), (1, 6, 1), (5, 6, 4)),
        ((0, 3), (1, 3), (0, 3)),
    ],
)
def test_binary_broadcasting(cls, a, b, expected):
    x, y = vals(t(*a), t(*b))
    assert shape(cls(x, y)) == expected
    assert expected == np.broadcast_shapes(a, b)


@pytest.mark.parametrize("cls", BINARY)
def test_binary_errors(cls):
    x, y, z = vals(t(2, 3), t(2), t(2, 3, dtype=f16))
    with raises("operands 'lhs' [2, 3] and 'rhs' [2] are not broadcast-compatible (dimension 1: 3 vs 2)"):
        cls(x, y)
    with raises("operands 'lhs' and 'rhs' must have the same element type, got f32 and f16"):
        cls(x, z)


def test_integer_binary_ops_are_allowed():
    x, y = vals(t(4, dtype=i32), t(dtype=i32))
    assert relay.DivideOp(x, y).result.type == t(4, dtype=i32)


FLOAT_UNARY = [relay.SigmoidOp, relay.TanhOp, relay.ErfOp, relay.GeluOp, relay.LeakyReluOp, relay.SoftmaxOp,
               relay.HardSigmoidOp, relay.HardSwishOp, relay.SiluOp]


@pytest.mark.parametrize("cls", FLOAT_UNARY + [relay.ReluOp])
def test_unary_keeps_type(cls):
    (x,) = vals(t(2, 3, 4))
    op = cls(x)
    op.verify()
    assert op.result.type == x.type


@pytest.mark.parametrize("cls", FLOAT_UNARY)
def test_float_unary_rejects_integers(cls):
    (x,) = vals(t(4, dtype=i8))
    with raises("operand 'data' must have a float element type, got tensor<4xi8>"):
        cls(x)


def test_relu_and_clip_accept_integers():
    (x,) = vals(t(4, dtype=i8))
    assert relay.ReluOp(x).result.type == x.type
    assert relay.ClipOp(x, a_min=-128, a_max=127).result.type == x.type


def test_activation_defaults():
    (x,) = vals(t(2, 3))
    assert relay.LeakyReluOp(x).prop("alpha") == 0.01
    assert relay.SoftmaxOp(x).prop("axis") == -1
    assert relay.GeluOp(x).prop("approximate") == "none"
    assert relay.GeluOp(x, approximate="tanh").prop("approximate") == "tanh"


def test_activation_errors():
    (x,) = vals(t(2, 3))
    with raises("property 'axis' 2 is out of range for rank 2"):
        relay.SoftmaxOp(x, axis=2)
    with raises("property 'approximate' must be one of \"none\", \"tanh\", got \"erf\""):
        relay.GeluOp(x, approximate="erf").verify()
    with raises("properties 'a_min' and 'a_max' are required"):
        relay.ClipOp(x, a_min=0.0)
    with raises("property 'a_min' (6.0) is greater than 'a_max' (0.0)"):
        relay.ClipOp(x, a_min=6.0, a_max=0.0)


def test_clip_infinite_bounds():
    (x,) = vals(t(2))
    op = relay.ClipOp(x, a_min=-math.inf, a_max=6.0)
    op.verify()
    assert op.prop("a_min") == -math.inf


def test_cast():
    (x,) = vals(t(2, 3))
    op = relay.CastOp(x, i8)
    op.verify()
    assert op.result.type == t(2, 3, dtype=i8)
    assert relay.CastOp(op.result, f16).result.type == t(2, 3, dtype=f16)
    bad = relay.CastOp.build(operands=[x], result_types=[t(3, 2, dtype=i8)])
    with raises("result shape tensor<3x2xi8> must equal the operand shape tensor<2x3xf32>"):
        bad.verify()


# --------------------------------------------------------------------------------------
# Pooling and normalization
# --------------------------------------------------------------------------------------


def brute_force_pool_extent(size, k, s, d, lo, hi, ceil_mode):
    """Count windows by sliding them: every window that fits the padded input; with
    ceil_mode one more partial window when cells at the end are left uncovered, unless it
    would start in the trailing padding (the PyTorch/ONNX rule)."""
    eff = d * (k - 1) + 1
    padded = size + lo + hi
    starts = list(range(0, padded - eff + 1, s))
    last_covered = starts[-1] + eff - 1
    if ceil_mode and last_covered < padded - 1 and starts[-1] + s < size + lo:
        starts.append(starts[-1] + s)
    return len(starts)


@pytest.mark.parametrize("cls", [relay.MaxPool2DOp, relay.AvgPool2DOp])
@pytest.mark.parametrize("ceil_mode", [False, True])
@pytest.mark.parametrize(
    "size, k, s, d, pad",
    [
        (7, 3, 2, 1, (1, 1)),
        (6, 3, 2, 1, (0, 0)),
        (8, 2, 2, 1, (0, 0)),
        (5, 2, 2, 1, (0, 0)),
        (6, 3, 3, 1, (1, 1)),
        (9, 3, 2, 2, (0, 0)),
        (10, 3, 4, 1, (2, 1)),
        (4, 4, 1, 1, (0, 0)),
        (5, 3, 3, 1, (2, 2)),
    ],
)
def test_pool_extent_matches_window_count(cls, ceil_mode, size, k, s, d, pad):
    (x,) = vals(t(1, 2, size, size + 1))
    lo, hi = pad
    op = cls(x, pool_size=(k, k), strides=(s, s), dilation=(d, d), padding=(lo, lo, hi, hi), ceil_mode=ceil_mode)
    want_h = brute_force_pool_extent(size, k, s, d, lo, hi, ceil_mode)
    want_w = brute_force_pool_extent(size + 1, k, s, d, lo, hi, ceil_mode)
    assert shape(op) == (1, 2, want_h, want_w)


def test_pool_ceil_mode_examples():
    (x,) = vals(t(1, 1, 7, 7))
    # floor((7 + 2 - 3) / 2) + 1 = 4 either way
    assert shape(relay.MaxPool2DOp(x, pool_size=(3, 3), strides=(2, 2), padding=(1, 1, 1, 1))) == (1, 1, 4, 4)
    # 6x6 input, 3x3 window, stride 2: floor gives 2, ceil gives 3
    (y,) = vals(t(1, 1, 6, 6))
    assert shape(relay.MaxPool2DOp(y, pool_size=(3, 3), strides=(2, 2))) == (1, 1, 2, 2)
    assert shape(relay.MaxPool2DOp(y, pool_size=(3, 3), strides=(2, 2), ceil_mode=True)) == (1, 1, 3, 3)
    # a window that would start in the trailing padding is dropped: 5 + 1 + 1, k 2, s 2
    (z,) = vals(t(1, 1, 5, 5))
    op = relay.AvgPool2DOp(z, pool_size=(2, 2), strides=(2, 2), padding=(1, 1, 1, 1), ceil_mode=True)
    assert shape(op) == (1, 1, 3, 3)


def test_pool_defaults_and_errors():
    (x,) = vals(t(1, 4, 7, 7))
    op = relay.AvgPool2DOp(x, pool_size=(2, 2))
    assert op.py_props() == {
        "pool_size": (2, 2),
        "strides": (1, 1),
        "dilation": (1, 1),
        "padding": (0, 0, 0, 0),
        "ceil_mode": False,
        "count_include_pad": False,
    }
    with raises("missing property 'pool_size'"):
        relay.MaxPool2DOp(x)
    with raises("property 'padding' [2, 2, 2, 2] must be smaller than the window [2, 2]"):
        relay.MaxPool2DOp(x, pool_size=(2, 2), padding=(2, 2, 2, 2))
    with raises("property 'pool_size' must have 2 elements"):
        relay.MaxPool2DOp(x, pool_size=(2,))
    with raises("property 'strides' must be positive"):
        relay.AvgPool2DOp(x, pool_size=(2, 2), strides=(0, 1))
    with raises("the window [9, 9] does not fit the padded input 7x7"):
        relay.MaxPool2DOp(x, pool_size=(9, 9))
    (q,) = vals(t(1, 4, 7, 7, dtype=i8))
    assert shape(relay.MaxPool2DOp(q, pool_size=(2, 2))) == (1, 4, 6, 6)
    with raises("operand 'data' must have a float element type"):
        relay.AvgPool2DOp(q, pool_size=(2, 2))


def test_global_avg_pool2d():
    (x, y) = vals(t(2, 4, 7, 5), t(2, 4, 7))
    assert shape(relay.GlobalAvgPool2DOp(x)) == (2, 4, 1, 1)
    with raises("operand 'data' must have rank 4"):
        relay.GlobalAvgPool2DOp(y)


def test_batch_norm():
    x, c, d = vals(t(2, 3, 4), t(3), t(4))
    op = relay.BatchNormOp(x, c, c, c, c)
    assert shape(op) == (2, 3, 4)
    assert op.prop("epsilon") == 1e-5
    assert op.prop("axis") == 1
    assert shape(relay.BatchNormOp(x, d, d, d, d, axis=-1)) == (2, 3, 4)
    with raises("operand 'moving_var' has 4 elements but 'data' has 3 along axis 1"):
        relay.BatchNormOp(x, c, c, c, d)
    with raises("operand 'gamma' has 4 elements"):
        relay.BatchNormOp(x, d, c, c, c)


def test_layer_norm():
    x, n, g2, bad = vals(t(2, 3, 4), t(4), t(3, 4), t(3))
    assert shape(relay.LayerNormOp(x, n, n)) == (2, 3, 4)
    assert shape(relay.LayerNormOp(x, g2, g2, axis=1)) == (2, 3, 4)
    with raises("operand 'beta' must have the normalized shape [4], got tensor<3xf32>"):
        relay.LayerNormOp(x, n, bad)
    with raises("operand 'gamma' must have the normalized shape [3, 4]"):
        relay.LayerNormOp(x, n, n, axis=-2)


def test_rms_norm():
    x, n, g2, bad, ints = vals(t(2, 3, 4), t(4), t(3, 4), t(3), t(2, 3, 4, dtype=i8))
    assert shape(relay.RMSNormOp(x, n)) == (2, 3, 4)
    assert shape(relay.RMSNormOp(x, g2, axis=1)) == (2, 3, 4)
    with raises("operand 'gamma' must have the normalized shape [4], got tensor<3xf32>"):
        relay.RMSNormOp(x, bad)
    with raises("operand 'gamma' must have the normalized shape [3, 4]"):
        relay.RMSNormOp(x, n, axis=-2)
    with raises("property 'axis'"):
        relay.RMSNormOp(x, n, axis=3)
    with raises("operand 'data' must have a float element type, got tensor<2x3x4xi8>"):
        relay.RMSNormOp(ints, n)


@pytest.mark.parametrize(
    "props, expected",
    [
        ({}, ()),
        (dict(axis=[]), ()),
        (dict(keepdims=True), (1, 1, 1, 1)),
        (dict(axis=[1]), (2, 4, 5)),
        (dict(axis=[2, -1]), (2, 3)),
        (dict(axis=[2, 3], keepdims=True), (2, 3, 1, 1)),
        (dict(axis=[2, 3], exclude=True), (4, 5)),
        (dict(axis=[0], exclude=True, keepdims=True), (2, 1, 1, 1)),
        # TVM: no axis means every axis, `exclude` notwithstanding
        (dict(exclude=True), ()),
    ],
)
def test_mean(props, expected):
    (x,) = vals(t(2, 3, 4, 5))
    assert shape(relay.MeanOp(x, **props)) == expected


def test_mean_errors():
    (x, q) = vals(t(2, 3), t(2, 3, dtype=i8))
    with raises("property 'axis' repeats axis -1"):
        relay.MeanOp(x, axis=[1, -1])
    with raises("property 'axis' entry 2 is out of range for rank 2"):
        relay.MeanOp(x, axis=[2])
    with raises("operand 'data' must have a float element type"):
        relay.MeanOp(q)


# --------------------------------------------------------------------------------------
# Shape manipulation
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "newshape, expected",
    [
        ((6, 4), (6, 4)),
        ((0, -1), (2, 12)),
        ((-1,), (24,)),
        ((0, 0, 4), (2, 3, 4)),
        ((-1, 0, 2), (4, 3, 2)),
        ((1, 2, 1, 12), (1, 2, 1, 12)),
        ((4, -1, 3), (4, 2, 3)),
    ],
)
def test_reshape_codes(newshape, expected):
    (x,) = vals(t(2, 3, 4))
    assert shape(relay.ReshapeOp(x, newshape=newshape)) == expected


@pytest.mark.parametrize(
    "newshape, message",
    [
        ((5, 5), "property 'newshape' [5, 5] gives [5, 5] (25 elements) for operand 'data' [2, 3, 4] (24 elements)"),
        ((-1, -1), "property 'newshape' has more than one -1"),
        ((5, -1), "property 'newshape' [5, -1] does not fit operand 'data' [2, 3, 4] (24 elements)"),
        ((0, 0, 0, 0), "property 'newshape' copies dimension 3 that the input lacks"),
        ((2, -2, 6), "property 'newshape' has an invalid entry -2"),
    ],
)
def test_reshape_errors(newshape, message):
    (x,) = vals(t(2, 3, 4))
    with raises(message):
        relay.ReshapeOp(x, newshape=newshape)


def test_reshape_needs_newshape():
    (x,) = vals(t(2, 3, 4))
    with raises("missing property 'newshape'"):
        relay.ReshapeOp(x)


def test_transpose():
    (x,) = vals(t(2, 3, 4))
    assert shape(relay.TransposeOp(x)) == (4, 3, 2)
    assert shape(relay.TransposeOp(x, axes=(0, -1, 1))) == (2, 4, 3)
    with raises("property 'axes' [0, 1, 1] is not a permutation"):
        relay.TransposeOp(x, axes=(0, 1, 1))
    with raises("property 'axes' must have 3 entries, got [1, 0]"):
        relay.TransposeOp(x, axes=(1, 0))
    with raises("property 'axes' entry 3 is out of range for rank 3"):
        relay.TransposeOp(x, axes=(0, 1, 3))


def test_concatenate():
    a, b, c = vals(t(2, 3), t(2, 5), t(3, 5))
    assert shape(relay.ConcatenateOp(a, b, a, axis=1)) == (2, 11)
    assert shape(relay.ConcatenateOp(a, a)) == (4, 3)
    assert shape(relay.ConcatenateOp(b, c, axis=-2)) == (5, 5)
    assert shape(relay.ConcatenateOp(a)) == (2, 3)
    with raises("operand 'inputs[1]' tensor<3x5xf32> does not match tensor<2x3xf32> outside axis 1"):
        relay.ConcatenateOp(a, c, axis=1)
    (h,) = vals(t(2, 3, dtype=f16))
    with raises("operand 'inputs[1]' has element type f16, expected f32"):
        relay.ConcatenateOp(a, h)
    with raises("needs at least one operand"):
        relay.ConcatenateOp()


def test_pad():
    (x,) = vals(t(1, 2, 3, 3))
    op = relay.PadOp(x, pad_width=(0, 0, 0, 0, 1, 1, 1, 2))
    assert shape(op) == (1, 2, 5, 6)
    assert op.prop("pad_value") == 0.0 and op.prop("pad_mode") == "constant"
    assert shape(relay.PadOp(x, pad_width=(0, 0, 0, 0, 2, 2, 2, 2), pad_mode="reflect")) == (1, 2, 7, 7)
    assert shape(relay.PadOp(x, pad_width=(0, 0, 0, 0, 5, 0, 0, 5), pad_mode="edge")) == (1, 2, 8, 8)
    with raises("property 'pad_width' must have 8 elements, got [1, 1, 1, 1]"):
        relay.PadOp(x, pad_width=(1, 1, 1, 1))
    with raises("property 'pad_width': reflect padding of dimension 2 (3, 0) must be smaller than its size 3"):
        relay.PadOp(x, pad_width=(0, 0, 0, 0, 3, 0, 0, 0), pad_mode="reflect")
    with raises("property 'pad_width' must be non-negative"):
        relay.PadOp(x, pad_width=(0, 0, 0, 0, -1, 0, 0, 0))
    with raises("missing property 'pad_width'"):
        relay.PadOp(x)


def test_batch_flatten():
    (x, s) = vals(t(2, 3, 4, 5), t())
    assert shape(relay.BatchFlattenOp(x)) == (2, 60)
    with raises("operand 'data' must have rank >= 1"):
        relay.BatchFlattenOp(s)


def test_take():
    x, i, j, f = vals(t(5, 4), t(2, 3, dtype=i64), t(dtype=i32), t(3))
    assert shape(relay.TakeOp(x, i)) == (2, 3, 4)
    assert shape(relay.TakeOp(x, i, axis=1)) == (5, 2, 3)
    assert shape(relay.TakeOp(x, i, axis=-1)) == (5, 2, 3)
    assert shape(relay.TakeOp(x, j)) == (4,)
    with raises("operand 'indices' must be an integer tensor, got tensor<3xf32>"):
        relay.TakeOp(x, f)
    with raises("property 'axis' -3 is out of range for rank 2"):
        relay.TakeOp(x, i, axis=-3)


# --------------------------------------------------------------------------------------
# Quantized ops
# --------------------------------------------------------------------------------------


def test_quantize_dequantize():
    x, s, z, cs, cz = vals(t(1, 8, 4, 4), t(), t(dtype=i8), t(8), t(8, dtype=u8))
    q = relay.QuantizeOp(x, s, z)
    assert q.result.type == t(1, 8, 4, 4, dtype=i8)
    assert q.prop("axis") == -1
    d = relay.DequantizeOp(q.result, s, z)
    assert d.result.type == t(1, 8, 4, 4)
    p = relay.QuantizeOp(x, cs, cz, axis=1)
    assert p.result.type == t(1, 8, 4, 4, dtype=u8)
    assert relay.DequantizeOp(p.result, cs, cz, axis=1).result.type == t(1, 8, 4, 4)


def test_quantize_errors():
    x, s, z, cs, xi = vals(t(2, 4), t(), t(dtype=i8), t(2), t(2, 4, dtype=i32))
    with raises("operand 'data' must have a float element type"):
        relay.QuantizeOp(xi, s, z)
    with raises("operand 'scale' has 2 elements but 'data' has 4 along axis -1"):
        relay.QuantizeOp(x, cs, z)
    with raises("operand 'zero_point' must be an integer tensor"):
        relay.QuantizeOp(x, s, s)
    (zz,) = vals(t(2, 2, dtype=i8))
    with raises("operand 'zero_point' must be a scalar or 1-D, got tensor<2x2xi8>"):
        relay.QuantizeOp(x, s, zz)
    with raises("property 'axis' 2 is out of range for rank 2"):
        relay.QuantizeOp(x, cs, z, axis=2)


def test_dequantize_errors():
    q, s, z, iz, uz = vals(t(4, dtype=i8), t(), t(dtype=i8), t(dtype=i32), t(dtype=u8))
    with raises("operand 'scale' must be a float tensor, got tensor<i32>"):
        relay.DequantizeOp(q, iz, z)
    with raises("operand 'zero_point' has element type ui8, expected the data's i8"):
        relay.DequantizeOp(q, s, uz)
    (f,) = vals(t(4))
    with raises("operand 'data' must have an integer element type"):
        relay.DequantizeOp(f, s, z)


def test_requantize():
    x, s, z, os, oz = vals(t(1, 8, dtype=i32), t(), t(dtype=i32), t(8), t(dtype=i8))
    op = relay.RequantizeOp(x, s, z, os, oz, axis=1)
    assert shape(op) == (1, 8)
    assert op.result.type.element_type == i8
    with raises("operand 'input_zero_point' has element type i8, expected i32"):
        relay.RequantizeOp(x, s, oz, os, oz)
    with raises("operand 'output_scale' has 8 elements but 'data' has 1 along axis 0"):
        relay.RequantizeOp(x, s, z, os, oz, axis=0)


def test_qnn_conv2d():
    x, w, xz, wz, xs, ws = vals(t(1, 4, 6, 6, dtype=i8), t(8, 4, 3, 3, dtype=i8), t(dtype=i8), t(8, dtype=i8), t(), t(8))
    op = relay.QnnConv2DOp(x, w, xz, wz, xs, ws, strides=(2, 2), padding=(1, 1, 1, 1))
    assert op.result.type == t(1, 8, 3, 3, dtype=i32)
    op.verify()
    (bad_ws,) = vals(t(4))
    with raises("operand 'kernel_scale' has 4 elements but 'weight' has 8 along axis 0"):
        relay.QnnConv2DOp(x, w, xz, wz, xs, bad_ws)
    (vec_z,) = vals(t(4, dtype=i8))
    with raises("operand 'input_zero_point' must be a scalar, got tensor<4xi8>"):
        relay.QnnConv2DOp(x, w, vec_z, wz, xs, ws)
    (fx,) = vals(t(1, 4, 6, 6))
    with raises("operand 'data' must have an 8-bit integer element type"):
        relay.QnnConv2DOp(fx, w, xz, wz, xs, ws)
    (gw,) = vals(t(8, 2, 3, 3, dtype=i8))
    assert relay.QnnConv2DOp(x, gw, xz, wz, xs, ws, groups=2).result.type == t(1, 8, 4, 4, dtype=i32)


def test_qnn_dense():
    x, w, xz, wz, xs, ws = vals(t(2, 16, dtype=u8), t(10, 16, dtype=i8), t(dtype=u8), t(dtype=i8), t(), t(10))
    assert relay.QnnDenseOp(x, w, xz, wz, xs, ws).result.type == t(2, 10, dtype=i32)
    (bad_w,) = vals(t(10, 8, dtype=i8))
    with raises("operand 'weight' has K = 8 but 'data' is tensor<2x16xui8>"):
        relay.QnnDenseOp(x, bad_w, xz, wz, xs, ws)
    (vs,) = vals(t(2))
    with raises("operand 'input_scale' must be a scalar, got tensor<2xf32>"):
        relay.QnnDenseOp(x, w, xz, wz, vs, ws)


def test_qnn_add():
    a, b, s, z, uz, vs = vals(t(2, 3, dtype=i8), t(3, dtype=i8), t(), t(dtype=i8), t(dtype=u8), t(3))
    op = relay.QnnAddOp(a, b, s, z, s, z, s, uz)
    assert op.result.type == t(2, 3, dtype=u8)  # the output zero point's type
    with raises("operand 'rhs_zero_point' has element type ui8, expected i8"):
        relay.QnnAddOp(a, b, s, z, s, uz, s, z)
    with raises("operand 'lhs_scale' must be a scalar, got tensor<3xf32>"):
        relay.QnnAddOp(a, b, vs, z, s, z, s, z)


# --------------------------------------------------------------------------------------
# Constants, composites, and properties in IR text
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "array",
    [
        np.array([[1.5, -2.0], [0.0, 3.25]], np.float32),
        np.full((2, 3), 7.0, np.float32),
        np.array([True, False, True]),
        np.array([-128, 0, 127], np.int8),
        np.array([0, 255], np.uint8),
        np.array(-7, np.int64),
        np.array([1.0, 0.5], np.float16),
        np.array([np.nan, np.inf, -np.inf, -0.0], np.float32),
    ],
    ids=["f32", "splat", "bool", "i8", "u8", "scalar", "f16", "non-finite"],
)
def test_constant_round_trips_through_text(array):
    op = relay.ConstantOp(dense_from_array(array))
    op.verify()
    assert op.result.type == TensorType(op.value.type.element_type, list(array.shape))
    (parsed,) = parse_ops(str(op))
    np.testing.assert_array_equal(array_from_dense(parsed.value), array)
    assert array_from_dense(parsed.value).dtype == array.dtype


@pytest.mark.parametrize(
    "literal",
    [
        "dense<1.5> : tensor<2x3xf32>",
        "dense<[1.0, -2.5, 0.0, 3.25]> : tensor<4xf32>",
        "dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>",
        "dense<[true, false, true]> : tensor<3xi1>",
        "dense<false> : tensor<2xi1>",
        "dense<[1, 0]> : tensor<2xi1>",
        "dense<[-128, 0, 127]> : tensor<3xi8>",
        "dense<[255, 128]> : tensor<2xi8>",
        "dense<[0, 255]> : tensor<2xui8>",
        "dense<[-1, 2]> : tensor<2xsi8>",
        "dense<-7> : tensor<i64>",
        "dense<[0x10, 7]> : tensor<2xi32>",
        "dense<[1.0, 0.5]> : tensor<2xf16>",
        "dense<0.1> : tensor<3xf16>",
        "dense<[1, 2]> : tensor<2xf32>",
        "dense<[1.0e-45, 3.4028234663852886e+38]> : tensor<2xf32>",
        "dense<[[[1.0]], [[2.0]]]> : tensor<2x1x1xf64>",
        'dense<"0x0000C07F0000807F"> : tensor<2xf32>',
        "dense<> : tensor<0xf32>",
        "dense<[[]]> : tensor<1x0xf32>",
        "dense<0> : tensor<0x3xi8>",
    ],
)
def test_constant_parser_agrees_with_xdsl(literal):
    """relay.constant reads its dense literal itself (for speed); it must read exactly what
    xDSL's attribute parser reads."""
    (op,) = parse_ops("%c = relay.constant " + literal)
    assert op.value == Parser(context(), literal).parse_attribute()


def test_constant_hex_elements_are_bit_patterns():
    (op,) = parse_ops("%c = relay.constant dense<[0x7FC00000, 0xFF800000, 1.5]> : tensor<3xf32>")
    values = array_from_dense(op.value)
    assert np.isnan(values[0]) and values[1] == -np.inf and values[2] == 1.5


def test_constant_needs_exactly_one_source():
    op = relay.ConstantOp(external="w", type=t(2))
    op.properties["value"] = dense_from_array(np.zeros(2, np.float32))
    with raises("needs exactly one of an inline value and an external name"):
        op.verify()


def test_composite_verifier():
    x, w = vals(t(4), t(4))
    body = Block(arg_types=[t(4)])
    relu = relay.ReluOp(body.args[0])
    body.add_ops([relu, relay.YieldOp(relu.result)])
    from xdsl.ir import Region

    op = relay.CompositeOp("npu.relu", [x], [t(4)], Region(body))
    op.verify()
    bad = relay.CompositeOp("relu", [x], [t(4)], op.body.clone())
    with raises("pattern name 'relu' must be '<target>.<pattern>'"):
        bad.verify()
    wrong_results = relay.CompositeOp("npu.relu", [x], [t(5)], op.body.clone())
    with raises("relay.yield types (tensor<4xf32>) do not match the results (tensor<5xf32>)"):
        wrong_results.verify()


def context() -> Context:
    ctx = Context()
    for dialect in (Builtin, Func, relay.Relay):
        ctx.load_dialect(dialect)
    return ctx


def parse_ops(text: str):
    """Parse ops at the top level of a block (values defined before use)."""
    module = Parser(context(), text).parse_module()
    return list(module.ops)


def print_generic(op) -> str:
    import io

    out = io.StringIO()
    Printer(stream=out, print_generic_format=True).print_op(op)
    return out.getvalue()


@pytest.mark.parametrize(
    "value",
    [1e-5, 0.01, 0.1234567890123, 1e20, 5e-324, 1.7976931348623157e308, -0.0, -2.5, math.inf, -math.inf, 3.0],
)
def test_float_properties_print_and_parse_back_exactly(value):
    (x,) = vals(t(2))
    op = relay.LeakyReluOp(x, alpha=value)
    for text in (relay_text(op), print_generic(op)):
        module = Parser(context(), "func.func @f(%x: tensor<2xf32>) {\n" + text + "\nfunc.return\n}").parse_module()
        (parsed,) = [o for o in module.walk() if isinstance(o, relay.LeakyReluOp)]
        got = parsed.prop("alpha")
        assert got == value and math.copysign(1.0, got) == math.copysign(1.0, value), text


def test_nan_property_round_trips():
    (x,) = vals(t(2))
    op = relay.LeakyReluOp(x, alpha=math.nan)
    assert "alpha = nan" in relay_text(op)
    module = Parser(context(), "func.func @f(%x: tensor<2xf32>) {\n" + relay_text(op) + "\nfunc.return\n}").parse_module()
    (parsed,) = [o for o in module.walk() if isinstance(o, relay.LeakyReluOp)]
    assert math.isnan(parsed.prop("alpha"))


def relay_text(op) -> str:
    """`op` printed with its operand named %x (how it appears inside @f)."""
    op.operands[0].name_hint = "x"
    return str(op)


def test_printed_float_spellings():
    (x,) = vals(t(2))
    assert "{a_min = -inf, a_max = 6.0}" in relay_text(relay.ClipOp(x, a_min=-math.inf, a_max=6.0))
    assert "{epsilon = 0.001}" in relay_text(relay.LayerNormOp(x, x, x, epsilon=1e-3))
    assert "{alpha = 1.0e+20}" in relay_text(relay.LeakyReluOp(x, alpha=1e20))
    # the default (1e-5) is not printed
    assert "epsilon" not in relay_text(relay.LayerNormOp(x, x, x, epsilon=1e-5))


@pytest.mark.parametrize(
    "entry, message",
    [
        ("slope = 0.1", "'relay.nn.leaky_relu' has no property 'slope' (properties: alpha)"),
        ("alpha = [1, 2]", "property 'alpha' of 'relay.nn.leaky_relu' must be a float"),
        ("alpha = 1e-3", "a float needs a '.' before its exponent"),
        ("alpha = 0.5 : i32", "expected a float type"),
        ("alpha = 0.5, alpha = 0.5", "'alpha' is given twice"),
        ("alpha 0.5", "Expected '=' after property 'alpha'"),
        ("alpha = 0x7FF00000000000000", "a hex float literal has at most 16 digits"),
    ],
)
def test_malformed_property_is_a_located_parse_error(entry, message):
    text = "func.func @f(%x: tensor<2xf32>) {\n  %y = relay.nn.leaky_relu %x {" + entry + "} : tensor<2xf32>\n  func.return\n}"
    with pytest.raises(ParseError, match=re.escape(message)) as info:
        Parser(context(), text, "f.mlir").parse_module()
    location = info.value.span.get_location()
    assert location.line == 2 and location.col > len("  %y = relay.nn.leaky_relu %x {")


def test_hex_float_property_is_the_bit_pattern():
    text = "func.func @f(%x: tensor<2xf32>) {\n  %y = relay.clip %x {a_min = 0xFFF0000000000000, a_max = 0x4018000000000000} : tensor<2xf32>\n  func.return\n}"
    (clip,) = [o for o in Parser(context(), text).parse_module().walk() if isinstance(o, relay.ClipOp)]
    assert clip.prop("a_min") == -math.inf and clip.prop("a_max") == 6.0


def test_generic_form_names_a_property_of_the_wrong_kind():
    text = (
        'func.func @f(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) {\n'
        '  %y = "relay.nn.conv2d"(%x, %w) <{strides = 2 : i64}> : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>\n'
        "  func.return\n}"
    )
    module = Parser(context(), text).parse_module()
    with pytest.raises(VerifyException, match=re.escape("property 'strides' must be a list of integers like [1, 1], got 2 : i64")):
        module.verify()


# ---- ops of issue 11 (resize, conv2d_transpose, depth/space, gather, max-pool
# indices, dyn.clip, dynamic quantization parameters) ----


def test_resize2d():
    (x,) = vals(t(1, 3, 4, 5))
    assert shape(relay.Resize2DOp(x, size=(8, 3))) == (1, 3, 8, 3)
    op = relay.Resize2DOp(x, size=(8, 10))
    assert relay.Resize2DOp.scales((4, 5), op.py_props()) == (2.0, 2.0)
    op = relay.Resize2DOp(x, size=(6, 7), scale_h=1.5, scale_w=1.4)
    assert relay.Resize2DOp.scales((4, 5), op.py_props()) == (1.5, 1.4)
    (q,) = vals(t(1, 1, 2, 2, dtype=i8))
    assert shape(relay.Resize2DOp(q, size=(4, 4))) == (1, 1, 4, 4)  # nearest moves any type
    with pytest.raises(VerifyException, match="operand 'data' must have a float element type"):
        relay.Resize2DOp(q, size=(4, 4), method="linear")
    with pytest.raises(VerifyException, match="property 'size' must have 2 elements"):
        relay.Resize2DOp(x, size=(4,))
    with pytest.raises(VerifyException, match="property 'scale_w' must be a positive finite number"):
        relay.Resize2DOp(x, size=(4, 4), scale_w=0.0)


def test_conv2d_transpose():
    x, w = vals(t(2, 4, 5, 5), t(4, 3, 3, 3))
    assert shape(relay.Conv2DTransposeOp(x, w)) == (2, 3, 7, 7)
    assert shape(relay.Conv2DTransposeOp(x, w, strides=(2, 2), padding=(1, 1, 1, 1), output_padding=(1, 0))) == (
        2, 3, 10, 9)
    assert shape(relay.Conv2DTransposeOp(x, w, groups=2)) == (2, 6, 7, 7)
    assert shape(relay.Conv2DTransposeOp(x, w, dilation=(2, 1))) == (2, 3, 9, 7)
    (w_bad,) = vals(t(3, 3, 3, 3))
    with pytest.raises(VerifyException, match="operand 'weight' has 3 input channels, 'data' has 4"):
        relay.Conv2DTransposeOp(x, w_bad)
    with pytest.raises(VerifyException, match="property 'groups' \\(3\\) must be positive and divide"):
        relay.Conv2DTransposeOp(x, w, groups=3)


def test_depth_space():
    (x,) = vals(t(1, 8, 2, 3))
    assert shape(relay.DepthToSpaceOp(x, block_size=2)) == (1, 2, 4, 6)
    assert shape(relay.DepthToSpaceOp(x, block_size=2, mode="CRD")) == (1, 2, 4, 6)
    (y,) = vals(t(1, 2, 4, 6))
    assert shape(relay.SpaceToDepthOp(y, block_size=2)) == (1, 8, 2, 3)
    with pytest.raises(VerifyException, match="must be a multiple of block_size"):
        relay.DepthToSpaceOp(x, block_size=3)
    with pytest.raises(VerifyException, match="property 'block_size' must be a positive integer"):
        relay.SpaceToDepthOp(y)


def test_gather():
    x, i = vals(t(3, 4), t(2, 4, dtype=i64))
    assert shape(relay.GatherOp(x, i)) == (2, 4)
    (i1,) = vals(t(3, 2, dtype=i32))
    assert shape(relay.GatherOp(x, i1, axis=-1)) == (3, 2)
    with pytest.raises(VerifyException, match="operand 'indices' has 3 elements along axis 0, 'data' only 2"):
        relay.GatherOp(*vals(t(2, 4), t(3, 4, dtype=i64)), axis=1)


def test_gather_nd():
    x, i = vals(t(2, 3, 4), t(2, 5, 1, dtype=i64))
    assert shape(relay.GatherNDOp(x, i, batch_dims=1)) == (2, 5, 4)
    (i2,) = vals(t(6, 3, dtype=i32))
    assert shape(relay.GatherNDOp(x, i2)) == (6,)
    with pytest.raises(VerifyException, match=r"the last dimension of 'indices' \(3\) must be in \[1, 2\]"):
        relay.GatherNDOp(*vals(t(2, 3, 4), t(2, 3, dtype=i64)), batch_dims=1)
    with pytest.raises(VerifyException, match=r"the batch dimensions of 'indices' \[6\] and 'data' \[2\] differ"):
        relay.GatherNDOp(*vals(t(2, 3, 4), t(6, 1, dtype=i64)), batch_dims=1)


def test_scatter_elements():
    x, i, u = vals(t(3, 4), t(2, 4, dtype=i64), t(2, 4))
    op = relay.ScatterElementsOp(x, i, u, reduction="max")
    assert op.result.type == x.type
    with pytest.raises(VerifyException, match="operand 'updates' must have the shape of 'indices'"):
        relay.ScatterElementsOp(*vals(t(3, 4), t(2, 4, dtype=i64), t(2, 3)))
    with pytest.raises(VerifyException, match="reduction 'mul' needs a numeric 'data'"):
        relay.ScatterElementsOp(*vals(t(3, dtype=IntegerType(1)), t(2, dtype=i64), t(2, dtype=IntegerType(1))),
                                reduction="mul")


def test_scatter_nd():
    x, i, u = vals(t(4, 3, 2), t(5, 2, dtype=i32), t(5, 2))
    assert relay.ScatterNDOp(x, i, u, reduction="add").result.type == x.type
    with pytest.raises(VerifyException, match=r"operand 'updates' must have shape \[5, 2\]"):
        relay.ScatterNDOp(*vals(t(4, 3, 2), t(5, 2, dtype=i32), t(5, 3)))
    with pytest.raises(VerifyException, match="operands 'data' and 'updates' must have the same element type"):
        relay.ScatterNDOp(*vals(t(4, 3, 2), t(5, 2, dtype=i32), t(5, 2, dtype=i64)))


def test_max_pool2d_indices():
    (x,) = vals(t(1, 2, 5, 5))
    op = relay.MaxPool2DIndicesOp(x, pool_size=(2, 2), strides=(2, 2))
    assert shape(op) == (1, 2, 2, 2) and op.result.type.element_type == i64
    with pytest.raises(VerifyException, match="property 'storage_order' must be 0 or 1"):
        relay.MaxPool2DIndicesOp(x, pool_size=(2, 2), storage_order=3)


def test_grid_sample():
    x, g = vals(t(2, 3, 5, 6), t(2, 4, 7, 2))
    assert shape(relay.GridSampleOp(x, g)) == (2, 3, 4, 7)
    x3, g3 = vals(t(1, 2, 3, 4, 5), t(1, 6, 2, 2, 3))
    assert shape(relay.GridSampleOp(x3, g3, method="nearest", padding_mode="reflection")) == (1, 2, 6, 2, 2)
    with pytest.raises(VerifyException, match="method 'cubic' needs 2-D"):
        relay.GridSampleOp(x3, g3, method="cubic")
    with pytest.raises(VerifyException, match=r"operand 'grid' must be \[2, \?, \?, 2\]"):
        relay.GridSampleOp(x, vals(t(2, 4, 7, 3))[0])
    with pytest.raises(VerifyException, match="must have a float element type"):
        relay.GridSampleOp(*vals(t(2, 3, 5, 6, dtype=i8), t(2, 4, 7, 2, dtype=i8)))


def test_roi_align():
    x, r, b = vals(t(2, 3, 9, 9), t(5, 4), t(5, dtype=i64))
    assert shape(relay.RoiAlignOp(x, r, b, output_height=2, output_width=3, mode="max")) == (5, 3, 2, 3)
    with pytest.raises(VerifyException, match="operand 'batch_indices' must be an integer tensor of 5 elements"):
        relay.RoiAlignOp(x, r, vals(t(4, dtype=i64))[0])
    with pytest.raises(VerifyException, match="operand 'rois' must be \\[R, 4\\]"):
        relay.RoiAlignOp(x, vals(t(5, 5))[0], b)
    with pytest.raises(VerifyException, match="'output_height' and 'output_width' must be positive"):
        relay.RoiAlignOp(x, r, b, output_height=0)


def test_roi_pool():
    x, r = vals(t(2, 3, 9, 9), t(5, 5))
    assert shape(relay.RoiPoolOp(x, r, pooled_shape=(2, 3), spatial_scale=0.5)) == (5, 3, 2, 3)
    with pytest.raises(VerifyException, match="operand 'rois' must be \\[R, 5\\]"):
        relay.RoiPoolOp(x, vals(t(5, 4))[0], pooled_shape=(1, 1))
    with pytest.raises(VerifyException, match="property 'pooled_shape' must be two positive extents"):
        relay.RoiPoolOp(x, r, pooled_shape=(0, 2))
    with pytest.raises(VerifyException, match="property 'pooled_shape' must be two positive extents"):
        relay.RoiPoolOp(x, r)
    with pytest.raises(VerifyException, match="operand 'data' must have a float element type"):
        relay.RoiPoolOp(*vals(t(2, 3, 9, 9, dtype=i64), t(5, 5, dtype=i64)), pooled_shape=(1, 1))
    with pytest.raises(VerifyException, match="property 'spatial_scale' must be finite"):
        relay.RoiPoolOp(x, r, pooled_shape=(1, 1), spatial_scale=float("inf"))


def test_max_unpool():
    x, i = vals(t(1, 2, 2, 2), t(1, 2, 2, 2, dtype=i64))
    assert shape(relay.MaxUnpoolOp(x, i, shape=(1, 2, 4, 4))) == (1, 2, 4, 4)
    with pytest.raises(VerifyException, match="operand 'indices' must have the shape of 'data'"):
        relay.MaxUnpoolOp(x, vals(t(1, 2, 2, dtype=i64))[0], shape=(1, 2, 4, 4))
    with pytest.raises(VerifyException, match="operand 'indices' must be an integer tensor"):
        relay.MaxUnpoolOp(x, vals(t(1, 2, 2, 2))[0], shape=(1, 2, 4, 4))


def test_dyn_clip():
    x, lo, hi = vals(t(2, 3, dtype=i8), t(dtype=i8), t(1, dtype=i8))
    assert shape(relay.DynClipOp(x, lo, hi)) == (2, 3)
    with pytest.raises(VerifyException, match="operands 'data' and 'a_max' must have the same element type"):
        relay.DynClipOp(x, lo, vals(t(dtype=f32))[0])


def test_dynamic_quantization_parameters():
    (x,) = vals(t(2, 8))
    assert relay.DynamicScaleOp(x).result.type == t(dtype=f32)
    assert relay.DynamicZeroPointOp(x).result.type == t(dtype=u8)
    with pytest.raises(VerifyException, match="operand 'data' must be a float32 tensor"):
        relay.DynamicScaleOp(vals(t(2, dtype=f16))[0])


def test_every_graph_op_is_covered_here():
    """Each op of GRAPH_OPS is built somewhere in this file (keeps the list honest when
    ops are added)."""
    source = open(__file__).read()
    missing = [cls.__name__ for cls in relay.GRAPH_OPS if f"relay.{cls.__name__}" not in source]
    assert not missing, f"ops without builder tests: {missing}"


def test_every_op_has_round_trip_and_negative_lit_tests():
    """The issue's bar: every relay op has a round-trip lit test (custom and generic form,
    tests/lit/relay/*.mlir) and a negative verifier test (*-invalid.mlir, checked by its
    `'<op>' op ...` error line)."""
    lit = Path(__file__).parent / "lit" / "relay"
    positive = "\n".join(p.read_text() for p in sorted(lit.glob("*.mlir")) if not p.stem.endswith("-invalid"))
    negative = "\n".join(p.read_text() for p in sorted(lit.glob("*-invalid.mlir")))
    ops = [*relay.GRAPH_OPS, relay.CompositeOp, relay.YieldOp]
    no_round_trip = [op.name for op in ops if not re.search(re.escape(op.name) + r"[ \"(]", positive)]
    no_negative = [op.name for op in ops if f"error: '{op.name}' op " not in negative]
    assert not no_round_trip, f"ops without a round-trip lit test: {no_round_trip}"
    assert not no_negative, f"ops without a negative verifier lit test: {no_negative}"


# --------------------------------------------------------------------------------------
# Run-time math
# --------------------------------------------------------------------------------------

i1 = IntegerType(1)


@pytest.mark.parametrize("cls", [relay.SqrtOp, relay.ExpOp, relay.LogOp, relay.FloorOp, relay.CeilOp, relay.RoundOp,
                                 relay.SinOp, relay.CosOp, relay.TanOp, relay.AsinOp, relay.AcosOp, relay.AtanOp,
                                 relay.SinhOp, relay.CoshOp, relay.AsinhOp, relay.AcoshOp, relay.AtanhOp])
def test_math_float_unary(cls):
    (x,) = vals(t(2, 3))
    assert cls(x).result.type == t(2, 3)
    (n,) = vals(t(4, dtype=i32))
    with pytest.raises(VerifyException, match="operand 'data' must have a float element type"):
        cls(n)


@pytest.mark.parametrize("cls", [relay.NegativeOp, relay.AbsOp])
def test_negative_and_abs_take_floats_and_integers_not_bools(cls):
    x, n, b = vals(t(2, 3), t(4, dtype=i8), t(4, dtype=i1))
    assert cls(x).result.type == t(2, 3)
    assert cls(n).result.type == t(4, dtype=i8)
    with pytest.raises(VerifyException, match="float or integer element type"):
        cls(b)


@pytest.mark.parametrize("cls", [relay.PowerOp, relay.MaximumOp, relay.MinimumOp])
def test_math_binary_broadcasts(cls):
    a, b = vals(t(2, 3, 1), t(4))
    assert shape(cls(a, b)) == (2, 3, 4)
    with pytest.raises(VerifyException, match="not broadcast-compatible"):
        cls(*vals(t(2, 3), t(2)))


def test_power_is_float_only_and_maximum_takes_integers():
    a, b = vals(t(4, dtype=i32), t(4, dtype=i32))
    assert relay.MaximumOp(a, b).result.type == t(4, dtype=i32)
    with pytest.raises(VerifyException, match="operand 'lhs' must have a float element type"):
        relay.PowerOp(a, b)


COMPARE = [relay.EqualOp, relay.NotEqualOp, relay.LessOp, relay.LessEqualOp, relay.GreaterOp, relay.GreaterEqualOp]


@pytest.mark.parametrize("cls", COMPARE)
def test_comparisons_broadcast_to_bool(cls):
    a, b = vals(t(3, 1), t(4))
    assert cls(a, b).result.type == t(3, 4, dtype=i1)
    with pytest.raises(VerifyException, match="same element type"):
        cls(*vals(t(4), t(4, dtype=i32)))


def test_logical_not_and_where():
    c, x, y = vals(t(1, 4, dtype=i1), t(3, 1), t())
    assert relay.LogicalNotOp(c).result.type == t(1, 4, dtype=i1)
    assert relay.WhereOp(c, x, y).result.type == t(3, 4)
    with pytest.raises(VerifyException, match="operand 'data' must be a boolean"):
        relay.LogicalNotOp(x)
    with pytest.raises(VerifyException, match="operand 'condition' must be a boolean"):
        relay.WhereOp(x, x, y)
    with pytest.raises(VerifyException, match="'x' and 'y' must have the same element type"):
        relay.WhereOp(c, x, *vals(t(dtype=i32)))


@pytest.mark.parametrize("cls", [relay.SumOp, relay.ProdOp, relay.MaxOp, relay.MinOp])
def test_reductions_share_mean_axes_rules_and_take_integers(cls):
    x, n = vals(t(2, 3, 4), t(2, 3, 4, dtype=i32))
    assert shape(cls(x, axis=[-1], keepdims=True)) == (2, 3, 1)
    assert shape(cls(x)) == ()
    assert shape(cls(x, axis=[1], exclude=True)) == (3,)
    assert cls(n, axis=[0]).result.type == t(3, 4, dtype=i32)
    with pytest.raises(VerifyException, match="repeats axis"):
        cls(x, axis=[1, -2])
    with pytest.raises(VerifyException, match="float or integer element type"):
        cls(*vals(t(2, dtype=i1)))


def test_strided_slice_is_numpy_basic_slicing():
    (x,) = vals(t(2, 9, 4))
    assert shape(relay.StridedSliceOp(x, begin=[7, -1], end=[0, -100], strides=[-2, -2], axes=[1, 2])) == (2, 4, 2)
    assert shape(relay.StridedSliceOp(x, begin=[1], end=[100])) == (1, 9, 4)  # clamped, default axes
    with pytest.raises(VerifyException, match="the slice 3:3:1 of axis 1 .size 9. is empty"):
        relay.StridedSliceOp(x, begin=[3], end=[3], axes=[1])
    with pytest.raises(VerifyException, match="must not contain 0"):
        relay.StridedSliceOp(x, begin=[0], end=[1], strides=[0])
    with pytest.raises(VerifyException, match=r"property 'end' \[1\] must have as many entries as 'begin' \[0, 0\]"):
        relay.StridedSliceOp(x, begin=[0, 0], end=[1])
    with pytest.raises(VerifyException, match="repeats axis"):
        relay.StridedSliceOp(x, begin=[0, 0], end=[1, 1], axes=[1, -2])


def test_broadcast_to():
    (x,) = vals(t(3, 1, dtype=i1))
    assert relay.BroadcastToOp(x, shape=[2, 1, 4]).result.type == t(2, 3, 4, dtype=i1)
    assert relay.BroadcastToOp(x, shape=[2]).result.type == t(3, 2, dtype=i1)  # numpy: both sides broadcast
    with pytest.raises(VerifyException, match="operands 'data' .3, 1. and 'shape' .2, 2. are not broadcast-compatible"):
        relay.BroadcastToOp(x, shape=[2, 2])


@pytest.mark.parametrize("cls", [relay.LogicalAndOp, relay.LogicalOrOp, relay.LogicalXorOp])
def test_logical_binary_ops_take_bools_and_broadcast(cls):
    a, b = vals(t(2, 1, dtype=i1), t(3, dtype=i1))
    assert cls(a, b).result.type == t(2, 3, dtype=i1)
    with pytest.raises(VerifyException, match="operand 'rhs' must be a boolean"):
        cls(a, *vals(t(3, dtype=i8)))


# --------------------------------------------------------------------------------------
# Scans, top k and integer bit ops
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [relay.CumsumOp, relay.CumprodOp])
def test_cumulative_ops_keep_the_type(cls):
    x, i = vals(t(2, 5), t(3, dtype=i32))
    assert cls(x, axis=-1, exclusive=True, reverse=True).result.type == t(2, 5)
    assert cls(i).result.type == t(3, dtype=i32)
    with pytest.raises(VerifyException, match="property 'axis' 2 is out of range for rank 2"):
        cls(x, axis=2)
    with pytest.raises(VerifyException, match="must have rank >= 1"):
        cls(*vals(t()))
    with pytest.raises(VerifyException, match="must have a float or integer element type"):
        cls(*vals(t(2, dtype=i1)))


def test_topk_indices_and_values():
    (x,) = vals(t(2, 5, 3, dtype=u8))
    assert relay.TopKOp(x, k=2, axis=1).result.type == t(2, 2, 3, dtype=i64)
    assert relay.TopKOp(x, k=3, is_ascend=True, ret_type="values").result.type == t(2, 5, 3, dtype=u8)
    with pytest.raises(VerifyException, match=r"property 'k' must be in \[0, 5\] \(the size of axis 1\), got 6"):
        relay.TopKOp(x, k=6, axis=1)
    with pytest.raises(TypeError):
        relay.TopKOp(x, k=1, largest=True)


@pytest.mark.parametrize("cls", [relay.BitwiseAndOp, relay.BitwiseOrOp, relay.BitwiseXorOp, relay.LeftShiftOp,
                                 relay.RightShiftOp])
def test_bitwise_binary_ops_take_integers_and_broadcast(cls):
    a, b = vals(t(2, 1, dtype=i8), t(3, dtype=i8))
    assert cls(a, b).result.type == t(2, 3, dtype=i8)
    with pytest.raises(VerifyException, match="operand 'lhs' must have an integer element type"):
        cls(*vals(t(3), t(3)))
    with pytest.raises(VerifyException, match="operand 'lhs' must have an integer element type"):
        cls(*vals(t(3, dtype=i1), t(3, dtype=i1)))


def test_bitwise_not_and_reinterpret():
    x, f, b = vals(t(4, dtype=u8), t(2, 2), t(4, dtype=i1))
    assert relay.BitwiseNotOp(x).result.type == t(4, dtype=u8)
    with pytest.raises(VerifyException, match="must have an integer element type"):
        relay.BitwiseNotOp(f)
    op = relay.ReinterpretOp(f, i32)
    op.verify()
    assert op.result.type == t(2, 2, dtype=i32)
    relay.ReinterpretOp(b, u8).verify()  # booleans are bytes
    with pytest.raises(VerifyException, match="must be of one size of at least 8 bits"):
        relay.ReinterpretOp(f, f16).verify()
    with pytest.raises(VerifyException, match="the result must not be boolean"):
        relay.ReinterpretOp(x, i1).verify()


def test_det_of_square_matrices():
    x, m = vals(t(2, 3, 3), t(4, 4, dtype=f16))
    assert relay.DetOp(x).result.type == t(2)
    assert relay.DetOp(m).result.type == t(dtype=f16)
    with pytest.raises(VerifyException, match=r"must be square matrices \[..., M, M\]"):
        relay.DetOp(*vals(t(2, 3)))
    with pytest.raises(VerifyException, match="must have a float element type"):
        relay.DetOp(*vals(t(2, 2, dtype=i32)))
