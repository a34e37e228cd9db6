"""mean-as-pool: a mean over trailing axes becomes a global average pool of the data viewed
as [1, rows, 1, row length]; the reference interpreter's result is unchanged bit for bit
(numpy sums the same contiguous block in both forms). The int8 LLaMA block, whose RMS
norms the quantizer splits into pow and mean, is one npu region (tests/
test_transformer_models.py, its C against onnxruntime there)."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accel.compiler.driver import make_context
from accel.compiler.frontend.builder import GraphBuilder
from accel.compiler.transforms.mean_as_pool import MeansAsPools
from accel.dialects import relay
from e2e_util import assert_pass_keeps_results


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=st.lists(st.integers(1, 9), min_size=1, max_size=4), data=st.data(), keepdims=st.booleans(),
       seed=st.integers(0, 2**16))
def test_the_result_is_unchanged(shape, data, keepdims, seed):
    rank = len(shape)
    first = data.draw(st.integers(0, rank - 1), label="first reduced axis")
    axes = list(range(first, rank))
    if data.draw(st.booleans(), label="negative axes"):
        axes = [a - rank for a in axes]
    b = GraphBuilder()
    y = b.mean(b.input("x", shape), axis=axes, keepdims=keepdims)
    module = b.build([y])
    inputs = {"x": np.random.default_rng(seed).standard_normal(shape).astype(np.float32) * 8}
    assert_pass_keeps_results(MeansAsPools(), module, inputs)
    scalar = first == 0 and not keepdims  # (no transfer has rank 0: left alone)
    assert any(isinstance(op, relay.MeanOp) for op in module.walk()) == scalar


def test_left_alone_where_no_target_pools():
    """The dsp (matmul and dense only) runs no pool: the mean stays."""
    b = GraphBuilder()
    y = b.mean(b.input("x", (4, 8)), axis=[-1])
    module = b.build([y])
    MeansAsPools().apply(make_context("dsp"), module)
    assert [op.name for op in module.walk() if isinstance(op, relay.RelayOp)] == ["relay.mean"]
