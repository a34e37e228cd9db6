"""softmax-last-axis: a softmax along another axis than the last becomes the softmax along
the last axis between two transposes; the reference interpreter's result stays within a
few units in the last place (each softmax over the same elements, summed in another
order), on random ranks, axes and data. A YOLOv8 detector (bench/wheel_models.py's
nudenet) then runs its box decoding on the npu."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accel.compiler.driver import make_context
from accel.compiler.frontend.builder import GraphBuilder
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.transforms.softmax_last_axis import SoftmaxesLastAxis
from accel.dialects import relay


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=st.lists(st.integers(1, 7), min_size=2, max_size=4), data=st.data(), seed=st.integers(0, 2**16))
def test_the_result_is_unchanged(shape, data, seed):
    axis = data.draw(st.integers(-len(shape), len(shape) - 2), label="axis")
    b = GraphBuilder()
    y = b.softmax(b.input("x", shape), axis=axis)
    module = b.build([y])
    inputs = {"x": np.random.default_rng(seed).standard_normal(shape).astype(np.float32) * 6}
    want = run_function(module, inputs)
    SoftmaxesLastAxis().apply(make_context("npu"), module)
    module.verify()
    softmaxes = [op for op in module.walk() if isinstance(op, relay.SoftmaxOp)]
    assert len(softmaxes) == 1 and softmaxes[0].prop("axis") % len(shape) == len(shape) - 1
    got = run_function(module, inputs)
    for k, w in want.items():
        assert got[k].dtype == w.dtype and np.max(np.abs(got[k] - w)) <= 4 * np.finfo(np.float32).eps, k
