"""unstride-pools: a pool at a stride the npu does not take becomes the pool at stride 1
subsampled by a strided slice; the reference interpreter's result is unchanged bit for
bit (the same windows), max and average, any padding, ceil_mode where the stride-1 pool
reaches the last window. A CRNN (tests/models, its max pools at stride (2, 1)) is one npu
region (two before), its C against onnxruntime."""

from __future__ import annotations

import os

import numpy as np
import onnx
from e2e_util import MODELS, assert_pass_keeps_results, input_signature, ort_run
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from accel.compiler import api
from accel.compiler.frontend.builder import GraphBuilder
from accel.compiler.transforms.unstride_pools import UnstridePools
from accel.dialects import relay
from accel.dialects.relay import shape_of


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_result_is_unchanged(data):
    draw = data.draw
    kind = draw(st.sampled_from(["max_pool2d", "avg_pool2d"]))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    sh, sw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    h, w = draw(st.integers(1, 10)), draw(st.integers(1, 10))
    pads = [draw(st.integers(0, k - 1)) for k in (kh, kw, kh, kw)]
    assume(h + pads[0] + pads[2] >= kh and w + pads[1] + pads[3] >= kw)
    props = dict(pool_size=[kh, kw], strides=[sh, sw], padding=pads, ceil_mode=draw(st.booleans()))
    b = GraphBuilder()
    y = getattr(b, kind)(b.input("x", (1, 3, h, w)), **props)
    module = b.build([y])
    inputs = {"x": np.random.default_rng(draw(st.integers(0, 2**16))).standard_normal((1, 3, h, w)).astype(np.float32)}
    assert_pass_keeps_results(UnstridePools(), module, inputs)
    pools = [op for op in module.walk() if isinstance(op, (relay.MaxPool2DOp, relay.AvgPool2DOp))]
    oh, ow = shape_of(pools[0].result.type)[2:] if not any(isinstance(op, relay.StridedSliceOp)
                                                         for op in module.walk()) else (None, None)
    if oh is not None:  # left alone: a stride the npu takes, more than 4x the work, or ceil_mode past
        effective = [1 if out == 1 else s for out, s in ((oh, sh), (ow, sw))]
        assert [sh, sw] in ([1, 1], [2, 2]) or effective in ([1, 1], [2, 2]) or effective[0] * effective[1] > 4 \
            or props["ceil_mode"] or max(kh, kw) > 3


def test_crnn_is_one_npu_region(tmp_path):
    path = os.path.join(MODELS, "crnn_legacy.onnx")
    compiled = api.compile(path, "npu", str(tmp_path / "out"))
    assert len(compiled.report["regions"]) == 1, compiled.report["rejected"]
    assert not any(r["op"] == "relay.nn.max_pool2d" for r in compiled.report["rejected"])
    rng = np.random.default_rng(0)
    feeds = {n: rng.standard_normal(shape).astype(np.float32) for n, shape in input_signature(onnx.load(path))}
    got = compiled.run(feeds)
    for name, want in ort_run(path, feeds).items():
        err = float(np.abs(got[name] - want).max())
        assert err <= 1e-4 * float(np.abs(want).max()), (name, err)
