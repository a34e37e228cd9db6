"""resize-as-matmuls: a resize between ops the npu runs becomes products with its
interpolation matrices; the reference interpreter's result is unchanged (nearest: bit for
bit; linear and cubic: the float32 products against the reference's float64 taps, within
1e-5 of the output's max), and the DeepLab-style models keep their head's resize on the npu
(their C against onnxruntime: tests/test_undilate_convs.py)."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accel.compiler.driver import make_context
from accel.compiler.frontend.builder import GraphBuilder
from accel.compiler.runtime import interpreter as relay_interpreter
from accel.compiler.transforms.resize_as_matmuls import ResizesAsMatmuls
from accel.dialects import relay

MODES = ("half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric",
         "tf_half_pixel_for_nn")


def _between_relus(shape, size, **props):
    """x -> relu -> resize -> relu: the resize between two ops the npu runs."""
    b = GraphBuilder()
    x = b.input("x", shape)
    y = b.relu(b.resize2d(b.relu(x), size=list(size), **props))
    return b.build([y], ["y"])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 2), c=st.integers(1, 3), h=st.integers(1, 7), w=st.integers(1, 7),
       oh=st.integers(1, 12), ow=st.integers(1, 12),
       method=st.sampled_from(["nearest", "linear", "cubic"]), mode=st.sampled_from(MODES),
       nearest_mode=st.sampled_from(relay.RESIZE_NEAREST_MODES), antialias=st.booleans(),
       exclude_outside=st.booleans(), seed=st.integers(0, 2**16))
def test_the_result_is_unchanged(n, c, h, w, oh, ow, method, mode, nearest_mode, antialias, exclude_outside, seed):
    props = {"method": method, "coordinate_transformation_mode": mode}
    if method == "nearest":
        props["nearest_mode"] = nearest_mode
    else:
        props.update(antialias=antialias, exclude_outside=exclude_outside)
    module = _between_relus((n, c, h, w), (oh, ow), **props)
    inputs = {"x": np.random.default_rng(seed).standard_normal((n, c, h, w)).astype(np.float32) * 4}
    want = relay_interpreter.run_function(module, inputs)["y"]
    ResizesAsMatmuls().apply(make_context("npu"), module)
    module.verify()
    assert not any(isinstance(op, relay.Resize2DOp) for op in module.walk())
    got = relay_interpreter.run_function(module, inputs)["y"]
    assert got.dtype == want.dtype and got.shape == want.shape
    if method == "nearest":
        assert np.array_equal(got, want)
    else:
        assert float(np.max(np.abs(got - want))) <= 1e-5 * max(float(np.max(np.abs(want))), 1e-30)


def test_an_identity_axis_has_no_product():
    module = _between_relus((1, 2, 4, 5), (4, 9), method="linear")
    ResizesAsMatmuls().apply(make_context("npu"), module)
    dense = [op for op in module.walk() if isinstance(op, relay.DenseOp)]
    assert len(dense) == 1 and [d for d in dense[0].operands[1].type.get_shape()] == [9, 5]
    assert not any(isinstance(op, relay.TransposeOp) for op in module.walk())


def test_left_alone_at_the_end_of_a_network_and_without_a_matrix_engine():
    """A resize whose result leaves the device costs the npu more than the host; the dsp
    (dense and matmul only) runs no transpose."""
    b = GraphBuilder()
    y = b.resize2d(b.relu(b.input("x", (1, 8, 4, 4))), size=[32, 32], method="linear")
    tail = b.build([y])
    ResizesAsMatmuls().apply(make_context("npu"), tail)
    assert any(isinstance(op, relay.Resize2DOp) for op in tail.walk())
    module = _between_relus((1, 2, 4, 4), (8, 8), method="linear")
    ResizesAsMatmuls().apply(make_context("dsp"), module)
    assert any(isinstance(op, relay.Resize2DOp) for op in module.walk())
