"""global-pools: an average pool whose one window is the whole unpadded image becomes a
global average pool; the reference interpreter's result stays within float rounding (the
same mean, summed in another order), on random image sizes beyond the npu's 3x3 windows.
The onnx wheel's ResNet-50 graph is then wholly on the npu (its 7x7 final pool was the
last host op)."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accel.compiler.driver import make_context
from accel.compiler.frontend.builder import GraphBuilder
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.transforms.global_pools import GlobalPools
from accel.dialects import relay


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(h=st.integers(4, 15), w=st.integers(4, 15), c=st.integers(1, 4), seed=st.integers(0, 2**16))
def test_the_result_is_unchanged(h, w, c, seed):
    b = GraphBuilder()
    y = b.avg_pool2d(b.input("x", (1, c, h, w)), pool_size=[h, w])
    module = b.build([y])
    inputs = {"x": np.random.default_rng(seed).standard_normal((1, c, h, w)).astype(np.float32) * 3}
    want = run_function(module, inputs)
    GlobalPools().apply(make_context("npu"), module)
    module.verify()
    assert any(isinstance(op, relay.GlobalAvgPool2DOp) for op in module.walk())
    got = run_function(module, inputs)
    for k, v in want.items():
        assert np.max(np.abs(got[k] - v)) <= 1e-6 * max(float(np.max(np.abs(v))), 1.0), k
