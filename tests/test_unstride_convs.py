"""unstride-convs: convolutions strided beyond the npu's strides (patch embeddings, stems)
as stride-1 convolutions on the space-to-depth image.

The property test draws random convolutions (stride, kernel a multiple of it or not,
padding before and after, sizes; float with a bias, QDQ int8 with a per-channel weight,
or `relay.qnn.conv2d`) and checks the reference interpreter's result against the rewrite
(`relay.qnn.conv2d` bit for bit; float within 1e-6 of the output's largest magnitude, as
the same products are summed in another order; QDQ within one quantization step, where
such a difference meets a rounding boundary) and that the rewrite happens exactly where
the pass's conditions hold. The model test compiles the test suite's vision transformer
(a 4x4 patch embedding with stride 4), float and int8, for the npu: without the pass its
patch embedding runs on the host, with it on the npu (float: every MAC), and the results
match onnxruntime (float within 1e-5 of the output's largest magnitude, int8
within one quantization step).
"""

from __future__ import annotations

import os

import numpy as np
import onnx
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from accel.compiler.driver import make_context
from accel.compiler.frontend.builder import GraphBuilder
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.runtime.run_compiled import run_directory
from accel.compiler.transforms.unstride_convs import UnstrideConvs, axis_space
from accel.dialects import relay
from e2e_util import compiled_with_and_without, ort_run, output_step, quantize_qdq

MODELS = os.path.join(os.path.dirname(__file__), "models")
NPU_STRIDES, NPU_MAX_KERNEL, NPU_MAX_CHANNELS = (1, 2), 7, 1024


def relay_ops(module) -> list:
    return [op for op in module.walk() if isinstance(op, relay.RelayOp)]


def test_axis_space_reads_what_the_strided_conv_reads():
    """For every size, stride and padding: the rows kept and padded, with the new conv's
    padding, give the strided conv's output length, and the padding before is in it
    (whole phases as the new conv's, the rest as constant rows before the data)."""
    for s in (2, 3, 4, 16):
        for m in (1, 2):
            k = m * s
            for size in range(1, 3 * k):
                for before in range(0, 2 * s + 2):
                    for after in range(0, 2 * s + 1):
                        out = (size + before + after - k) // s + 1
                        if out < 1:
                            continue
                        a = axis_space(size, s, before, after)
                        if (size + before + after) // s * s <= before:  # reads only padding
                            assert a is None
                            continue
                        rows = a.pad_before + a.keep + a.pad
                        assert rows % s == 0 and 0 < a.keep <= size and 0 <= a.pad < s and 0 <= a.pad_before < s
                        assert a.conv_before * s + a.pad_before == before
                        assert rows // s + a.conv_before + a.conv_after - m + 1 == out
                        # the padding after that the new conv adds is padding of the old one
                        assert a.pad + a.conv_after * s <= after
    assert axis_space(1, 4, 9, 0) is None  # (reads rows 0..7 of the padded 10: padding only)
    assert axis_space(49, 2, 5, 5) == (49, 0, 2, 2, 1)  # DS-CNN's rows: one constant row before


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_unstrided_convs_match(data):
    draw = data.draw
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    s = draw(st.integers(2, 4))
    k = s * draw(st.integers(1, 2)) if draw(st.integers(0, 4)) else draw(st.integers(1, 5))
    if s == 2 and draw(st.integers(0, 3)) == 0:
        k = 2 * draw(st.integers(4, 5))  # a kernel the npu refuses at a stride it takes (8, 10)
    n, c, o = draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    h, w = draw(st.integers(1, 3 * k)), draw(st.integers(1, 3 * k))
    top, left = (s * draw(st.integers(0, 1)) if draw(st.integers(0, 4)) else draw(st.integers(0, 2)) for _ in range(2))
    bottom, right = draw(st.integers(0, 2 * s)), draw(st.integers(0, 2 * s))
    assume(h + top + bottom >= k and w + left + right >= k)
    props = dict(strides=[s, s], padding=[top, left, bottom, right])
    form = draw(st.sampled_from(["float", "qdq", "qnn"]))
    b = GraphBuilder()
    x = b.input("x", (n, c, h, w), np.int8 if form == "qnn" else np.float32)
    wshape = (o, c, k, k)
    if form == "qnn":
        y = b.qnn_conv2d(x, b.const(rng.integers(-128, 128, wshape).astype(np.int8)), b.const(np.array(3, np.int8)),
                         b.const(rng.integers(-3, 4, o).astype(np.int8)), b.const(np.array(0.5, np.float32)),
                         b.const(rng.uniform(0.01, 0.1, o).astype(np.float32)), **props)
    else:
        data_in, weight = x, b.const(rng.standard_normal(wshape).astype(np.float32))
        if form == "qdq":
            scale, zp = b.const(np.array(0.05, np.float32)), b.const(np.array(-7, np.int8))
            data_in = b.qnn_dequantize(b.qnn_quantize(x, scale, zp), scale, zp)
            weight = b.qnn_dequantize(b.const(rng.integers(-128, 128, wshape).astype(np.int8)),
                                      b.const(rng.uniform(0.01, 0.1, o).astype(np.float32)),
                                      b.const(np.zeros(o, np.int8)), axis=0)
        y = b.bias_add(b.conv2d(data_in, weight, **props), b.const(rng.standard_normal(o).astype(np.float32)))
        if form == "qdq":
            y = b.qnn_quantize(y, b.const(np.array(0.1, np.float32)), b.const(np.array(5, np.int8)))
    module = b.build([y])
    inputs = {"x": rng.integers(-128, 128, (n, c, h, w)).astype(np.int8) if form == "qnn"
              else rng.standard_normal((n, c, h, w)).astype(np.float32)}
    want = run_function(module, inputs)
    UnstrideConvs().apply(make_context("npu"), module)
    module.verify()
    got = run_function(module, inputs)
    for name, value in want.items():
        if form == "qnn":
            assert np.array_equal(got[name], value), name
        elif form == "qdq":
            assert np.max(np.abs(got[name].astype(np.int32) - value.astype(np.int32)), initial=0) <= 1, name
        else:
            assert np.max(np.abs(got[name] - value), initial=0) <= 1e-6 * max(np.max(np.abs(value)), 1.0), name
    npu_takes = s in NPU_STRIDES and k <= NPU_MAX_KERNEL
    # Along an axis with one output the stride is never applied (that axis is kept as it
    # is, cut to the rows the output reads); a kernel not a multiple of the stride is
    # extended by zero taps, to at most twice its taps.
    outs = [(h + top + bottom - k) // s + 1, (w + left + right - k) // s + 1]
    es = [1 if out == 1 else s for out in outs]
    ext = [k + -k % e for e in es]

    def reads_data(size, e, before, after, k2):
        if e == 1:
            return k - before > 0
        return (size + before + after + k2 - k) // e * e > before

    rewritable = (not npu_takes and es != [1, 1] and ext[0] * ext[1] <= 2 * k * k
                  and reads_data(h, es[0], top, bottom, ext[0]) and reads_data(w, es[1], left, right, ext[1])
                  and max(ext[0] // es[0], ext[1] // es[1]) <= NPU_MAX_KERNEL
                  and c * es[0] * es[1] <= NPU_MAX_CHANNELS)
    convs = [op for op in relay_ops(module) if isinstance(op, (relay.Conv2DOp, relay.QnnConv2DOp))]
    assert len(convs) == 1
    assert (tuple(convs[0].prop("strides")) == (1, 1)) == rewritable
    if rewritable and form == "qdq":  # the layout runs on the int8 data; the conv reads a dequantize
        assert isinstance(convs[0].data.owner, relay.DequantizeOp)
        assert all(relay.is_int8(op.result.type.element_type) for op in relay_ops(module)
                   if isinstance(op, relay.TransposeOp))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_strides_per_axis_and_grouped_convs_match(data):
    """Strides of their own per axis (PP-OCR's (2, 1), an STFT's hop along one axis), one
    group (space-to-depth along each axis by its stride) or depthwise (a stride-1 conv and
    a strided slice, its bias before the slice): the reference's result, and the conv at
    stride 1 where the npu takes it so."""
    draw = data.draw
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    sh, sw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    kh, kw = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    depthwise = draw(st.booleans())
    n, c = draw(st.integers(1, 2)), draw(st.integers(1, 3))
    o = c if depthwise else draw(st.integers(1, 3))
    h, w = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    top, left, bottom, right = (draw(st.integers(0, 2)) for _ in range(4))
    assume(h + top + bottom >= kh and w + left + right >= kw)
    props = dict(strides=[sh, sw], padding=[top, left, bottom, right], groups=c if depthwise else 1)
    b = GraphBuilder()
    x = b.input("x", (n, c, h, w))
    weight = b.const(rng.standard_normal((o, 1 if depthwise else c, kh, kw)).astype(np.float32))
    y = b.bias_add(b.conv2d(x, weight, **props), b.const(rng.standard_normal(o).astype(np.float32)))
    module = b.build([y])
    inputs = {"x": rng.standard_normal((n, c, h, w)).astype(np.float32)}
    want = run_function(module, inputs)
    UnstrideConvs().apply(make_context("npu"), module)
    module.verify()
    got = run_function(module, inputs)
    for name, value in want.items():
        assert np.max(np.abs(got[name] - value), initial=0) <= 1e-6 * max(np.max(np.abs(value)), 1.0), name
    convs = [op for op in relay_ops(module) if isinstance(op, relay.Conv2DOp)]
    assert len(convs) == 1
    outs = [(h + top + bottom - kh) // sh + 1, (w + left + right - kw) // sw + 1]
    effective = [1 if out == 1 else st_ for out, st_ in zip(outs, (sh, sw))]
    npu_takes = (sh, sw) in ((1, 1), (2, 2)) and max(kh, kw) <= NPU_MAX_KERNEL
    grouped = depthwise and c > 1  # (one channel: one group, the space-to-depth form)
    if grouped and not npu_takes and effective != [1, 1] and effective[0] * effective[1] <= 4:
        assert tuple(convs[0].prop("strides")) == (1, 1)
        # the bias stays on the conv (its pattern), the slice picks the strided outputs
        assert isinstance(convs[0].result.first_use.operation, relay.BiasAddOp)
    if tuple(convs[0].prop("strides")) == (1, 1) and not npu_takes:
        assert any(isinstance(op, relay.StridedSliceOp) for op in relay_ops(module)) or not grouped


# --------------------------------------------------------------------------------------
# A vision transformer and a ConvNeXt-style network through C
# --------------------------------------------------------------------------------------

def _feeds(path: str, seed: int) -> dict[str, np.ndarray]:
    m = onnx.load(path, load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    rng = np.random.default_rng(seed)
    return {i.name: rng.standard_normal([d.dim_value for d in i.type.tensor_type.shape.dim]).astype(np.float32)
            for i in m.graph.input if i.name not in inits}


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> dict[tuple[str, str], tuple[str, dict, str]]:
    d = tmp_path_factory.mktemp("patches")
    paths = {"vit": os.path.join(MODELS, "vit_legacy.onnx"), "vit_int8": str(d / "vit_int8.onnx")}
    quantize_qdq(paths["vit"], paths["vit_int8"])
    return compiled_with_and_without(tmp_path_factory, paths, "unstride-convs")


@pytest.mark.parametrize("model", ["vit", "vit_int8"])
def test_patch_embedding_offloads(compiled, model):
    _, plain, _ = compiled[(model, "plain")]
    _, with_pass, _ = compiled[(model, "pass")]
    assert [r for r in plain["rejected"] if "strides 4x4" in str(r["reason"])], plain["rejected"]
    assert plain["macs"]["offloaded"] < plain["macs"]["total"]
    assert not [r for r in with_pass["rejected"] if "conv" in r["op"]], with_pass["rejected"]
    assert with_pass["macs"]["offloaded"] > plain["macs"]["offloaded"]
    if model == "vit":  # (the int8 one keeps a few tiny attention products on the host: not profitable)
        assert with_pass["macs"]["offloaded"] == with_pass["macs"]["total"]


def test_float_vit_matches_onnxruntime(compiled):
    d, _, path = compiled[("vit", "pass")]
    for seed in range(2):
        feeds = _feeds(path, seed)
        want = ort_run(path, feeds)
        got, _ = run_directory(d, feeds)
        for name, value in want.items():
            assert float(np.max(np.abs(got[name] - value))) <= 1e-5 * float(np.max(np.abs(value))), name


def test_int8_vit_matches_onnxruntime_within_one_step(compiled):
    d, _, path = compiled[("vit_int8", "pass")]
    model = onnx.load(path)
    for seed in range(2):
        feeds = _feeds(path, seed)
        want = ort_run(path, feeds, optimize=False)
        got, _ = run_directory(d, feeds)
        for name, value in want.items():
            assert float(np.max(np.abs(got[name] - value))) <= output_step(model, name) * 1.001, name
