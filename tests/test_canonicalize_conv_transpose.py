"""canonicalize-conv-transpose preserves what a graph computes (reference interpreter):
random transposed convolutions (channels, kernel 1-5, stride 1-3, asymmetric padding,
output padding, odd sizes), with or without a constant bias, an activation or a batch
norm after them, become a conv2d + depth_to_space + slice within 1e-5 of the output's
largest magnitude (the sums are reassociated); groups other than 1, dilation other than 1
and unequal strides stay transposed convolutions. `canonicalize` folds the batch norm into
the transposed convolution first, so it too ends up in the conv2d's bias.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accel.compiler.driver import make_context
from accel.compiler.frontend.builder import GraphBuilder
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.transforms.canonicalize import Canonicalize
from accel.compiler.transforms.canonicalize_conv_transpose import CanonicalizeConvTranspose, phase_weight
from accel.dialects import relay

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TOLERANCE = 1e-5


def ops_of(module, cls) -> list:
    return [op for op in module.walk() if isinstance(op, cls)]


@SETTINGS
@given(data=st.data())
def test_transposed_convolutions_become_convolutions(data):
    draw = data.draw
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    c, o = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    kh, kw = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    s = draw(st.integers(1, 3))
    strides = [s, s] if draw(st.integers(0, 5)) else [s, s % 3 + 1]
    groups = 1 if draw(st.integers(0, 5)) else 2
    dilation = [1, 1] if draw(st.integers(0, 5)) else [2, 1]
    pads = [draw(st.integers(0, kh - 1)), draw(st.integers(0, kw - 1)), draw(st.integers(0, kh - 1)),
            draw(st.integers(0, kw - 1))]
    out_pad = [draw(st.integers(0, max(strides[0], dilation[0]) - 1)),
               draw(st.integers(0, max(strides[1], dilation[1]) - 1))]
    h, w = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    c, o = c * groups, o
    b = GraphBuilder()
    x = b.input("x", (draw(st.integers(1, 2)), c, h, w))
    weight = b.const(rng.uniform(-1, 1, (c, o, kh, kw)).astype(np.float32))
    out_h = (h - 1) * strides[0] - pads[0] - pads[2] + dilation[0] * (kh - 1) + 1 + out_pad[0]
    out_w = (w - 1) * strides[1] - pads[1] - pads[3] + dilation[1] * (kw - 1) + 1 + out_pad[1]
    if out_h < 1 or out_w < 1:
        return
    y = b.op(relay.Conv2DTransposeOp, x, weight, strides=strides, padding=pads, groups=groups, dilation=dilation,
             output_padding=out_pad)
    epilogue = draw(st.sampled_from(["none", "bias", "bias_relu", "sigmoid", "batch_norm"]))
    if epilogue.startswith("bias"):
        y = b.bias_add(y, b.const(rng.uniform(-1, 1, (o * groups,)).astype(np.float32)))
    if epilogue == "bias_relu":
        y = b.op(relay.ReluOp, y)
    if epilogue == "sigmoid":
        y = b.op(relay.SigmoidOp, y)
    if epilogue == "batch_norm":
        stats = [rng.uniform(0.5, 1.5, o * groups), rng.uniform(-1, 1, o * groups), rng.uniform(-1, 1, o * groups),
                 rng.uniform(0.5, 2, o * groups)]
        y = b.batch_norm(y, *[b.const(p.astype(np.float32)) for p in stats], epsilon=1e-3)
    module = b.build([y])
    inputs = {"x": rng.standard_normal(tuple(x.type.get_shape())).astype(np.float32)}
    want = next(iter(run_function(module, inputs).values()))
    (Canonicalize() if epilogue == "batch_norm" else CanonicalizeConvTranspose()).apply(make_context(), module)
    module.verify()
    got = next(iter(run_function(module, inputs).values()))
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=0, atol=TOLERANCE * max(1.0, float(np.abs(want).max())))
    rewritable = groups == 1 and dilation == [1, 1] and strides[0] == strides[1]
    assert bool(ops_of(module, relay.Conv2DTransposeOp)) != rewritable
    if rewritable and epilogue != "none":
        # The epilogue runs on the convolution's phases, before the pixel shuffle.
        conv = ops_of(module, relay.Conv2DOp)[0]
        assert not isinstance(next(iter(conv.result.uses)).operation, (relay.DepthToSpaceOp, relay.StridedSliceOp))
    assert not ops_of(module, relay.BatchNormOp)


def test_phase_weight_of_a_stride_two_kernel_four():
    """DCGAN's k=4, s=2: four 2x2 phase kernels, taps reversed, no zero taps."""
    w = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    p = phase_weight(w, (2, 2))
    assert p.shape == (4, 1, 2, 2)
    # phase (0, 0) takes taps 2 and 0 of each axis, reversed into positions 0, 1.
    np.testing.assert_array_equal(p[0, 0], [[w[0, 0, 2, 2], w[0, 0, 2, 0]], [w[0, 0, 0, 2], w[0, 0, 0, 0]]])
    assert np.count_nonzero(p) == 15  # all 16 taps once (tap 0 is the value 0)


@SETTINGS
@given(data=st.data())
def test_qdq_transposed_convolutions_become_qdq_convolutions(data):
    """A QDQ transposed convolution (int8 data and weight dequantized, the weight per tensor
    or per output channel with nonzero zero points, an int32 bias dequantized, a relu and a
    per-tensor quantize): the conv2d reads the dequantized int8 weight rearranged, the bias
    and the quantize come before the pixel shuffle, which moves int8 data. Within one
    quantization step of the reference (the float sums are reassociated)."""
    draw = data.draw
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    c, o = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    k, s = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    h, w = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    per_channel = draw(st.booleans())
    b = GraphBuilder()
    x = b.input("x", (1, c, h, w), np.int8)
    xs, xz = b.const(np.array(0.05, np.float32)), b.const(np.array(-3, np.int8))
    data_in = b.qnn_dequantize(x, xs, xz)
    q = rng.integers(-127, 128, (c, o, k, k)).astype(np.int8)
    if per_channel:
        scale, zp = rng.uniform(0.01, 0.05, o).astype(np.float32), rng.integers(-3, 4, o).astype(np.int8)
        weight = b.qnn_dequantize(b.const(q), b.const(scale), b.const(zp), axis=1)
    else:
        weight = b.qnn_dequantize(b.const(q), b.const(np.array(0.02, np.float32)), b.const(np.array(2, np.int8)))
    y = b.op(relay.Conv2DTransposeOp, data_in, weight, strides=[s, s])
    bias = b.qnn_dequantize(b.const(rng.integers(-500, 500, o).astype(np.int32)),
                            b.const(rng.uniform(0.0005, 0.001, o).astype(np.float32)), b.const(np.zeros(o, np.int32)),
                            axis=0)
    y = b.op(relay.ReluOp, b.bias_add(y, bias))
    y = b.qnn_quantize(y, b.const(np.array(0.1, np.float32)), b.const(np.array(5, np.int8)))
    module = b.build([y])
    inputs = {"x": rng.integers(-128, 128, (1, c, h, w)).astype(np.int8)}
    want = next(iter(run_function(module, inputs).values()))
    CanonicalizeConvTranspose().apply(make_context(), module)
    module.verify()
    got = next(iter(run_function(module, inputs).values()))
    assert np.max(np.abs(got.astype(np.int32) - want.astype(np.int32)), initial=0) <= 1
    assert not ops_of(module, relay.Conv2DTransposeOp)
    conv = ops_of(module, relay.Conv2DOp)[0]
    assert isinstance(conv.weight.owner, relay.DequantizeOp) and isinstance(conv.data.owner, relay.DequantizeOp)
    if s > 1:
        shuffle = ops_of(module, relay.DepthToSpaceOp)[0]
        assert relay.is_int8(shuffle.result.type.element_type)
