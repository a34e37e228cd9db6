"""split-tall-kernels: a conv taller than the npu's max_kernel, split into kernel-row
slices summed, computes what the one conv computes (float: the same products summed in
another order, within 1e-5 x max|reference|), and offloads (DS-CNN's first layer)."""

from __future__ import annotations

import numpy as np
import pytest

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
    assert len(convs) >= 2 and all(o.weight.type.get_shape()[2] <= 7 for o in convs), case
    got = run_function(module, inputs)["y"]
    assert got.shape == want.shape
    assert float(np.abs(got.astype(np.float64) - want).max()) <= 1e-5 * float(np.abs(want).max()), case


def test_split_conv_offloads_on_npu():
    """Partitioned for the npu, nothing of the split DS-CNN layer is left on the host."""
    module, _ = tall_conv(**CASES["dscnn"])
    ctx = make_context("npu")
    for p in build_passes("byoc"):
        p.apply(ctx, module)
    host = [o for o in module.walk() if isinstance(o, relay.RelayOp) and not isinstance(o, relay.ConstantOp)
            and o.parent_op() is not None and getattr(o.parent_op(), "sym_name", None) is not None
            and o.parent_op().sym_name.data == "main"]
    assert not host, [o.name for o in host]
