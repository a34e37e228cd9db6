"""split-tall-kernels: a conv taller or wider than the npu's max_kernel, split into
kernel slices summed, computes what the one conv computes (float: the same products
summed in another order, within 1e-5 x max|reference|), and offloads (DS-CNN's first
layer; fast style transfer's 9x9 first and last layers)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from accel.compiler.driver import build_passes, make_context
from accel.compiler.frontend.builder import GraphBuilder
from accel.compiler.runtime.interpreter import run_function
from accel.dialects import relay


def tall_conv(c: int, h: int, w: int, oc: int, kh: int, kw: int, stride: int, padding, groups: int, bias: bool):
    rng = np.random.default_rng(kh * 100 + c)
    b = GraphBuilder()
    x = b.input("x", (1, c, h, w))
    wt = rng.standard_normal((oc, c // groups, kh, kw)).astype(np.float32)
    v = b.conv2d(x, b.const(wt), strides=(stride, stride), padding=padding, groups=groups)
    if bias:
        v = b.relu(b.bias_add(v, b.const(rng.standard_normal(oc).astype(np.float32))))
    module = b.build([v], ["y"])
    return module, {"x": rng.standard_normal((1, c, h, w)).astype(np.float32)}


CASES = {
    "dscnn": dict(c=1, h=49, w=10, oc=64, kh=10, kw=4, stride=2, padding=(5, 1, 5, 1), groups=1, bias=True),
    "depthwise14": dict(c=4, h=49, w=8, oc=4, kh=14, kw=3, stride=2, padding=(7, 1, 6, 1), groups=4, bias=False),
    "odd-height": dict(c=3, h=30, w=9, oc=5, kh=9, kw=3, stride=2, padding=(5, 1, 4, 1), groups=1, bias=True),
    "style9x9": dict(c=3, h=20, w=20, oc=8, kh=9, kw=9, stride=1, padding=(4, 4, 4, 4), groups=1, bias=True),
    "wide": dict(c=2, h=6, w=40, oc=4, kh=3, kw=11, stride=1, padding=(1, 5, 1, 5), groups=1, bias=False),
    "strided9x9": dict(c=3, h=23, w=21, oc=4, kh=9, kw=9, stride=2, padding=(4, 4, 4, 4), groups=1, bias=True),
}


@pytest.mark.parametrize("case", CASES)
def test_split_computes_the_same(case):
    module, inputs = tall_conv(**CASES[case])
    want = run_function(module.clone(), inputs)["y"]
    ctx = make_context("npu")
    for p in build_passes("split-tall-kernels"):
        p.apply(ctx, module)
    module.verify()
    convs = [o for o in module.walk() if isinstance(o, relay.Conv2DOp)]
    assert len(convs) >= 2 and all(max(o.weight.type.get_shape()[2:]) <= 7 for o in convs), case
    got = run_function(module, inputs)["y"]
    assert got.shape == want.shape
    assert float(np.abs(got.astype(np.float64) - want).max()) <= 1e-5 * float(np.abs(want).max()), case


@pytest.mark.parametrize("case", ["dscnn", "style9x9"])
def test_split_conv_offloads_on_npu(case):
    """Partitioned for the npu, nothing of the split layer is left on the host."""
    module, _ = tall_conv(**CASES[case])
    ctx = make_context("npu")
    for p in build_passes("byoc"):
        p.apply(ctx, module)
    host = [o for o in module.walk() if isinstance(o, relay.RelayOp) and not isinstance(o, relay.ConstantOp)
            and o.parent_op() is not None and getattr(o.parent_op(), "sym_name", None) is not None
            and o.parent_op().sym_name.data == "main"]
    assert not host, [o.name for o in host]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_kernels_compute_the_same(data):
    """Random kernels up to 12x12 (stride, padding, dilation, groups, bias drawn): the
    interpreter's result within 1e-5 x max|reference|; every conv left has a kernel the
    npu takes (7x7), the weight being a constant."""
    draw = data.draw
    kh, kw = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    s, d = draw(st.integers(1, 2)), draw(st.sampled_from([1, 1, 2]))
    c = draw(st.integers(1, 3))
    groups = draw(st.sampled_from([1, c]))
    h, w = draw(st.integers(1, 20)), draw(st.integers(1, 20))
    pads = [draw(st.integers(0, (k - 1) * d)) for k in (kh, kw, kh, kw)]
    assume(h + pads[0] + pads[2] >= d * (kh - 1) + 1 and w + pads[1] + pads[3] >= d * (kw - 1) + 1)
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    b = GraphBuilder()
    x = b.input("x", (1, c, h, w))
    wt = rng.standard_normal((2 * groups, c // groups, kh, kw)).astype(np.float32)
    v = b.conv2d(x, b.const(wt), strides=(s, s), padding=pads, dilation=(d, d), groups=groups)
    if draw(st.booleans()):
        v = b.bias_add(v, b.const(rng.standard_normal(2 * groups).astype(np.float32)))
    module = b.build([v], ["y"])
    inputs = {"x": rng.standard_normal((1, c, h, w)).astype(np.float32)}
    want = run_function(module.clone(), inputs)["y"]
    ctx = make_context("npu")
    for p in build_passes("split-tall-kernels"):
        p.apply(ctx, module)
    module.verify()
    got = run_function(module, inputs)["y"]
    assert float(np.abs(got.astype(np.float64) - want).max()) <= 1e-5 * max(float(np.abs(want).max()), 1.0)
    convs = [o for o in module.walk() if isinstance(o, relay.Conv2DOp)]
    assert all(max(o.weight.type.get_shape()[2:]) <= 7 for o in convs)
