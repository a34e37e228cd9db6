"""Unit tests of the ONNX importer: the module it builds, per-version op semantics,
attribute handling checked numerically against onnxruntime, constants and weights, and
the one-line errors (also through accel-opt's exit code)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh
from xdsl.dialects import func
from xdsl.dialects.builtin import NameLoc

from accel.compiler.diagnostics import CompileError, ModelWarning
from accel.compiler.frontend.onnx import import_onnx_file, import_onnx_model
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.tensors import constant_value
from accel.dialects import relay
from accel.dialects.conventions import io_names

ort = pytest.importorskip("onnxruntime")

rng = np.random.default_rng(0)


@pytest.fixture(autouse=True)
def _seeded():
    """Every test sees the same random numbers, whatever runs before it (xdist)."""
    global rng
    rng = np.random.default_rng(0)


def f32(*shape) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def vi(name, shape, t=T.FLOAT):
    return h.make_tensor_value_info(name, t, shape)


def make(nodes, inputs, outputs, inits=(), opset=17, ir_version=None, extra_opsets=()):
    graph = h.make_graph(nodes, "g", inputs, outputs, [nh.from_array(np.asarray(a), n) for n, a in inits])
    m = h.make_model(graph, opset_imports=[h.make_opsetid("", opset), *extra_opsets])
    if ir_version is not None:
        m.ir_version = ir_version
    return m


def ops(module) -> list[str]:
    return [op.name for op in module.walk() if op.name.startswith("relay.")]


def main_fn(module) -> func.FuncOp:
    return next(op for op in module.walk() if isinstance(op, func.FuncOp))


def run_both(model: onnx.ModelProto, feeds: dict, tmp_path=None) -> tuple[list, list]:
    """(interpreter outputs, onnxruntime outputs) of `model`."""
    module = import_onnx_model(model)
    got = run_function(module, feeds)
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    want = ort.InferenceSession(model.SerializeToString(), so).run(None, feeds)
    return [got[o.name] for o in model.graph.output], want


def assert_matches_ort(model, feeds, rtol=1e-5):
    """Equal shapes and dtypes; values within rtol of the largest reference magnitude
    (summation order differs between the two)."""
    got, want = run_both(model, feeds)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol * float(np.abs(w).max(initial=1.0)))


def import_error(model: onnx.ModelProto, path=None) -> str:
    with pytest.raises(CompileError) as info:
        if path is None:
            import_onnx_model(model)
        else:
            onnx.save(model, path)
            import_onnx_file(path)
    text = str(info.value)
    assert "\n" not in text
    return text


# --------------------------------------------------------------------------------------
# The module
# --------------------------------------------------------------------------------------


def test_main_signature_names_and_locations():
    m = make([h.make_node("Add", ["a", "w"], ["s"], name="add_1"), h.make_node("Relu", ["s"], ["out"])],
             [vi("a", [2, 3])], [vi("out", [2, 3])], [("w", f32(2, 3))])
    module = import_onnx_model(m)
    fn = main_fn(module)
    assert io_names(fn) == (["a"], ["out"])
    located = {op.name: op.location for op in module.walk() if isinstance(op, relay.RelayOp)}
    assert isinstance(located["relay.add"], NameLoc) and located["relay.add"].desc.data == "add_1"
    # An unnamed node is located at its first output.
    assert located["relay.nn.relu"].desc.data == "out"


def test_ir3_initializers_listed_as_inputs_are_constants():
    m = make([h.make_node("Mul", ["x", "k"], ["y"])], [vi("x", [4]), vi("k", [4])], [vi("y", [4])],
             [("k", np.arange(4, dtype=np.float32))], opset=9, ir_version=3)
    module = import_onnx_model(m)
    assert io_names(main_fn(module))[0] == ["x"]
    x = np.ones(4, np.float32)
    np.testing.assert_array_equal(run_function(module, {"x": x})["y"], np.arange(4, dtype=np.float32))


def test_large_constants_are_external_small_ones_inline(tmp_path):
    path = str(tmp_path / "m.onnx")
    big, small = f32(4, 5), f32(5)
    m = make([h.make_node("MatMul", ["x", "big"], ["p"]), h.make_node("Add", ["p", "small"], ["y"])],
             [vi("x", [3, 4])], [vi("y", [3, 5])], [("big", big), ("small", small)])
    onnx.save(m, path)
    module = import_onnx_file(path)
    assert module.attributes["relay.weights"].data == os.path.abspath(path)
    consts = {op.result.name_hint: op for op in module.walk() if isinstance(op, relay.ConstantOp)}
    assert consts["big"].external.data == "big" and consts["big"].value is None
    assert consts["small"].value is not None
    np.testing.assert_array_equal(constant_value(consts["big"]), big)
    # Without a file (bytes from stdin, or a model in memory) everything is inline.
    for module in (import_onnx_file("-", data=m.SerializeToString()), import_onnx_model(m)):
        assert "relay.weights" not in module.attributes
        assert all(op.value is not None for op in module.walk() if isinstance(op, relay.ConstantOp))


def test_constant_node_tensors_are_external_too(tmp_path):
    path = str(tmp_path / "m.onnx")
    w = f32(3, 8)
    m = make([h.make_node("Constant", [], ["w"], value=nh.from_array(w, "w")), h.make_node("MatMul", ["x", "w"], ["y"])],
             [vi("x", [2, 3])], [vi("y", [2, 8])])
    onnx.save(m, path)
    module = import_onnx_file(path)
    (c,) = [op for op in module.walk() if isinstance(op, relay.ConstantOp)]
    assert c.external.data == "w"
    x = f32(2, 3)
    np.testing.assert_allclose(run_function(module, {"x": x})["y"], x @ w, rtol=1e-6)


def test_reshaped_weight_keeps_its_file_name(tmp_path):
    """Reshape/Unsqueeze/Identity of an initializer only change its shape: still external."""
    path = str(tmp_path / "m.onnx")
    w = f32(24)
    m = make([h.make_node("Identity", ["w"], ["wi"]), h.make_node("Reshape", ["wi", "shape"], ["w2"]),
              h.make_node("Add", ["x", "w2"], ["y"])],
             [vi("x", [2, 3, 4])], [vi("y", [2, 3, 4])], [("w", w), ("shape", np.array([2, 3, 4], np.int64))])
    onnx.save(m, path)
    module = import_onnx_file(path)
    (c,) = [op for op in module.walk() if isinstance(op, relay.ConstantOp)]
    assert c.external.data == "w" and c.result.type.get_shape() == (2, 3, 4)
    x = f32(2, 3, 4)
    np.testing.assert_allclose(run_function(module, {"x": x})["y"], x + w.reshape(2, 3, 4))


def test_external_data_file(tmp_path):
    path = str(tmp_path / "m.onnx")
    w = f32(16, 16)
    m = make([h.make_node("MatMul", ["x", "w"], ["y"])], [vi("x", [2, 16])], [vi("y", [2, 16])], [("w", w)])
    onnx.save(m, path, save_as_external_data=True, location="m.onnx.data", size_threshold=0)
    module = import_onnx_file(path)
    x = f32(2, 16)
    np.testing.assert_allclose(run_function(module, {"x": x})["y"], x @ w, rtol=1e-5)
    unloaded = onnx.load(path, load_external_data=False)
    assert "external data files; pass its path as weights_path" in import_error(unloaded)
    module = import_onnx_model(unloaded, weights_path=path)
    np.testing.assert_allclose(run_function(module, {"x": x})["y"], x @ w, rtol=1e-5)
    os.remove(path + ".data")
    with pytest.raises(CompileError, match="cannot read the model's external data"):
        import_onnx_file(path)


# --------------------------------------------------------------------------------------
# Shape subgraphs
# --------------------------------------------------------------------------------------


def test_shape_subgraph_folds_to_one_reshape():
    nodes = [
        h.make_node("Shape", ["x"], ["s"]),
        h.make_node("Gather", ["s", "i0"], ["b"], axis=0),
        h.make_node("Slice", ["s", "one", "big"], ["rest"]),
        h.make_node("ReduceProd", ["rest"], ["prod"], keepdims=1),
        h.make_node("Unsqueeze", ["b", "ax0"], ["bu"]),
        h.make_node("Concat", ["bu", "prod"], ["shape"], axis=0),
        h.make_node("Cast", ["shape"], ["shape64"], to=T.INT64),
        h.make_node("Reshape", ["x", "shape64"], ["y"]),
        h.make_node("ConstantOfShape", ["shape64"], ["ones"], value=nh.from_array(np.array([2.0], np.float32))),
        h.make_node("Mul", ["y", "ones"], ["z"]),
    ]
    m = make(nodes, [vi("x", [2, 3, 4])], [vi("z", [2, 12])],
             [("i0", np.array(0, np.int64)), ("one", np.array([1], np.int64)), ("big", np.array([99], np.int64)),
              ("ax0", np.array([0], np.int64))])
    module = import_onnx_model(m)
    assert ops(module) == ["relay.reshape", "relay.constant", "relay.multiply"]
    (c,) = [op for op in module.walk() if isinstance(op, relay.ConstantOp)]
    assert c.value.type.get_shape() == (2, 12)  # a splat, not 24 printed values
    x = f32(2, 3, 4)
    np.testing.assert_array_equal(run_function(module, {"x": x})["z"], x.reshape(2, 12) * 2)


def test_unknown_op_on_constants_is_folded_by_the_reference():
    """An op without a converter evaluates when all its inputs are known."""
    m = make([h.make_node("Range", ["a", "b", "c"], ["r"]), h.make_node("Cast", ["r"], ["rf"], to=T.FLOAT),
              h.make_node("Add", ["x", "rf"], ["y"])],
             [vi("x", [5])], [vi("y", [5])],
             [("a", np.array(0, np.int64)), ("b", np.array(5, np.int64)), ("c", np.array(1, np.int64))])
    module = import_onnx_model(m)
    x = f32(5)
    np.testing.assert_array_equal(run_function(module, {"x": x})["y"], x + np.arange(5, dtype=np.float32))


# --------------------------------------------------------------------------------------
# Per-version semantics
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("opset", [11, 13])
def test_softmax_version_semantics(opset):
    m = make([h.make_node("Softmax", ["x"], ["y"], axis=1)], [vi("x", [2, 3, 4])], [vi("y", [2, 3, 4])], opset=opset)
    x = f32(2, 3, 4)
    got = run_function(import_onnx_model(m), {"x": x})["y"]
    if opset < 13:  # coerced to [2, 12], normalized over the 12
        flat = np.exp(x.reshape(2, 12) - x.reshape(2, 12).max(1, keepdims=True))
        want = (flat / flat.sum(1, keepdims=True)).reshape(2, 3, 4)
    else:
        e = np.exp(x - x.max(1, keepdims=True))
        want = e / e.sum(1, keepdims=True)
    np.testing.assert_allclose(got, want, rtol=1e-5)
    assert_matches_ort(m, {"x": x})


@pytest.mark.parametrize("opset", [9, 15])
def test_batchnorm_uses_running_statistics(opset):
    scale, bias, mean, var = f32(3), f32(3), f32(3), np.abs(f32(3)) + 0.5
    m = make([h.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], epsilon=1e-3)],
             [vi("x", [2, 3, 4, 4])], [vi("y", [2, 3, 4, 4])],
             [("s", scale), ("b", bias), ("m", mean), ("v", var)], opset=opset)
    x = f32(2, 3, 4, 4)
    got = run_function(import_onnx_model(m), {"x": x})["y"]
    c = (slice(None), None, None)
    want = (x - mean[c]) / np.sqrt(var[c] + 1e-3) * scale[c] + bias[c]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_clip_attributes_then_inputs():
    x = f32(10) * 3
    old = make([h.make_node("Clip", ["x"], ["y"], min=-1.0, max=0.5)], [vi("x", [10])], [vi("y", [10])], opset=6)
    new = make([h.make_node("Clip", ["x", "lo", "hi"], ["y"])], [vi("x", [10])], [vi("y", [10])],
               [("lo", np.array(-1.0, np.float32)), ("hi", np.array(0.5, np.float32))], opset=11)
    only_max = make([h.make_node("Clip", ["x", "", "hi"], ["y"])], [vi("x", [10])], [vi("y", [10])],
                    [("hi", np.array(0.5, np.float32))], opset=13)
    for m in (old, new):
        np.testing.assert_array_equal(run_function(import_onnx_model(m), {"x": x})["y"], np.clip(x, -1, 0.5))
    np.testing.assert_array_equal(run_function(import_onnx_model(only_max), {"x": x})["y"], np.minimum(x, 0.5))


def test_dropout_is_the_identity():
    m = make([h.make_node("Dropout", ["x", "ratio"], ["y", "mask"])], [vi("x", [3, 4])],
             [vi("y", [3, 4]), vi("mask", [3, 4], T.BOOL)], [("ratio", np.array(0.5, np.float32))], opset=13)
    module = import_onnx_model(m)
    assert "relay.nn.dropout" not in ops(module)
    x = f32(3, 4)
    out = run_function(module, {"x": x})
    np.testing.assert_array_equal(out["y"], x)
    assert out["mask"].dtype == np.bool_ and out["mask"].all()


def test_reduce_mean_axes_attribute_then_input():
    x = f32(2, 3, 4)
    old = make([h.make_node("ReduceMean", ["x"], ["y"], axes=[1, 2], keepdims=0)], [vi("x", [2, 3, 4])],
               [vi("y", [2])], opset=13)
    new = make([h.make_node("ReduceMean", ["x", "axes"], ["y"], keepdims=0)], [vi("x", [2, 3, 4])],
               [vi("y", [2])], [("axes", np.array([1, 2], np.int64))], opset=18)
    for m in (old, new):
        np.testing.assert_allclose(run_function(import_onnx_model(m), {"x": x})["y"], x.mean((1, 2)), rtol=1e-6)


def test_unused_opset_domains_are_ignored():
    m = make([h.make_node("Relu", ["x"], ["y"])], [vi("x", [2])], [vi("y", [2])],
             extra_opsets=[h.make_opsetid("com.microsoft", 1), h.make_opsetid("ai.onnx.ml", 3)])
    assert ops(import_onnx_model(m)) == ["relay.nn.relu"]


def test_old_opset_is_version_converted():
    """Opset 7 (below 9): converted to 13 first; Upsample-free graphs import."""
    m = make([h.make_node("Add", ["x", "b"], ["s"]), h.make_node("Relu", ["s"], ["y"])],
             [vi("x", [2, 3])], [vi("y", [2, 3])], [("b", f32(3))], opset=7)
    x = f32(2, 3)
    module = import_onnx_model(m)
    np.testing.assert_allclose(run_function(module, {"x": x})["y"], np.maximum(x + nh.to_array(m.graph.initializer[0]), 0))


# --------------------------------------------------------------------------------------
# Attributes, checked against onnxruntime
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("attrs", [
    dict(auto_pad="SAME_UPPER", strides=[2, 2]),
    dict(auto_pad="SAME_LOWER", strides=[2, 2]),
    dict(auto_pad="VALID", dilations=[2, 1], strides=[1, 2]),
    dict(pads=[0, 1, 2, 1], strides=[2, 1]),
    dict(group=2, pads=[1, 1, 1, 1]),
], ids=str)
def test_conv_attributes(attrs):
    groups = attrs.get("group", 1)
    m = make([h.make_node("Conv", ["x", "w", "b"], ["y"], **attrs)], [vi("x", [1, 4, 7, 8])], [vi("y", None)],
             [("w", f32(6, 4 // groups, 3, 3)), ("b", f32(6))])
    assert_matches_ort(m, {"x": f32(1, 4, 7, 8)})


@pytest.mark.parametrize("auto_pad,pads", [("SAME_UPPER", [0, 0, 1, 1]), ("SAME_LOWER", [1, 1, 0, 0])])
def test_conv_same_padding_with_dilations(auto_pad, pads):
    """onnxruntime refuses auto_pad SAME with dilations: compare with the explicit pads
    the ONNX formula gives (input 8, kernel 2, dilation 2, stride 2: total padding 1)."""
    w, x = f32(3, 2, 2, 2), f32(1, 2, 8, 8)
    auto = make([h.make_node("Conv", ["x", "w"], ["y"], auto_pad=auto_pad, dilations=[2, 2], strides=[2, 2])],
                [vi("x", [1, 2, 8, 8])], [vi("y", None)], [("w", w)])
    explicit = make([h.make_node("Conv", ["x", "w"], ["y"], pads=pads, dilations=[2, 2], strides=[2, 2])],
                    [vi("x", [1, 2, 8, 8])], [vi("y", None)], [("w", w)])
    (conv,) = [op for op in import_onnx_model(auto).walk() if isinstance(op, relay.Conv2DOp)]
    assert conv.prop("padding") == tuple(pads)
    got = run_function(import_onnx_model(auto), {"x": x})["y"]
    _, (want,) = run_both(explicit, {"x": x})
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_depthwise_conv_and_1d_conv():
    dw = make([h.make_node("Conv", ["x", "w"], ["y"], group=4, pads=[1, 1, 1, 1])], [vi("x", [1, 4, 6, 6])],
              [vi("y", None)], [("w", f32(8, 1, 3, 3))])
    assert_matches_ort(dw, {"x": f32(1, 4, 6, 6)})
    conv1d = make([h.make_node("Conv", ["x", "w", "b"], ["y"], pads=[2, 1], strides=[2], dilations=[2])],
                  [vi("x", [2, 3, 11])], [vi("y", None)], [("w", f32(5, 3, 3)), ("b", f32(5))])
    module = import_onnx_model(conv1d)
    assert "relay.nn.conv2d" in ops(module)
    assert_matches_ort(conv1d, {"x": f32(2, 3, 11)})


def test_1d_windows_take_square_strides():
    """A 1-D convolution or pool runs as its 2-D form of height 1, whose output height is
    1 whatever the stride along it: the stride (and dilation) of the height is the
    width's, so a strided Conv1d (Whisper's second convolution) or MaxPool1d is a 2x2-
    strided op, which targets list (the npu: 1x1 and 2x2), and offloads."""
    from accel.compiler.driver import make_context
    from accel.compiler.transforms.byoc import Byoc

    m = make([h.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1], strides=[2]),
              h.make_node("Relu", ["c"], ["r"]),
              h.make_node("MaxPool", ["r"], ["y"], kernel_shape=[2], strides=[2])],
             [vi("x", [1, 8, 32])], [vi("y", None)], [("w", f32(16, 8, 3)), ("b", f32(16))])
    module = import_onnx_model(m)
    windows = [op for op in module.walk() if isinstance(op, (relay.Conv2DOp, relay.MaxPool2DOp))]
    assert [tuple(op.prop("strides")) for op in windows] == [(2, 2), (2, 2)]
    assert_matches_ort(m, {"x": f32(1, 8, 32)})
    Byoc(cost_model=False).apply(make_context("npu"), module)
    assert not [op for op in module.walk() if op.attributes.get("accel.target") is not None
                and op.attributes["accel.target"].data == "host" and isinstance(op, (relay.Conv2DOp, relay.MaxPool2DOp))]
    assert sum(1 for op in module.walk() if isinstance(op, func.CallOp)) == 1


def test_a_long_1d_signal_tiles_along_its_length(tmp_path):
    """A 1-D convolution runs as the 2-D one of a column, [N, C, L, 1], so the tiler splits
    a long signal by rows: a Conv1d over 2,048 samples of 32 channels (256 KiB in, 256 KiB
    out; WaveNet's length) offloads on the 64 KiB npu (as [N, C, 1, L] it fitted no tiling
    and stayed on the host), and matches onnxruntime within 1e-4 of the output's max."""
    from accel.compiler.driver import compile_to_directory
    from accel.compiler.runtime.run_compiled import run_directory

    m = make([h.make_node("Conv", ["x", "w", "b"], ["c"], pads=[2, 0], dilations=[1]),
              h.make_node("Relu", ["c"], ["y"])],
             [vi("x", [1, 32, 2048])], [vi("y", [1, 32, 2046])], [("w", f32(32, 32, 5) * 0.1), ("b", f32(32))])
    path = str(tmp_path / "conv1d.onnx")
    onnx.save(m, path)
    report = compile_to_directory(path, "npu-64k", str(tmp_path / "out"))
    assert report["ops"]["host"] == 0 and report["macs"]["offloaded"] == report["macs"]["total"], report["rejected"]
    feeds = {"x": f32(1, 32, 2048)}
    got, _ = run_directory(str(tmp_path / "out"), feeds)
    (want,) = ort.InferenceSession(m.SerializeToString()).run(None, feeds)
    assert float(np.abs(got["y"] - want).max()) <= 1e-4 * float(np.abs(want).max())


@pytest.mark.parametrize("op,attrs", [
    ("MaxPool", dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)),
    ("MaxPool", dict(kernel_shape=[2, 3], pads=[1, 0, 0, 2], dilations=[2, 1])),
    ("MaxPool", dict(kernel_shape=[3, 3], auto_pad="SAME_UPPER", strides=[2, 2])),
    ("AveragePool", dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=1)),
    ("AveragePool", dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=0, strides=[2, 2], ceil_mode=1)),
    ("AveragePool", dict(kernel_shape=[2, 2], pads=[0, 1, 1, 0], strides=[2, 2])),
    ("AveragePool", dict(kernel_shape=[3, 3], auto_pad="SAME_LOWER", strides=[2, 2])),
], ids=str)
def test_pool_attributes(op, attrs):
    m = make([h.make_node(op, ["x"], ["y"], **attrs)], [vi("x", [1, 2, 7, 8])], [vi("y", None)], opset=19)
    assert_matches_ort(m, {"x": f32(1, 2, 7, 8)})


@pytest.mark.parametrize("op", ["GlobalMaxPool", "GlobalAveragePool"])
@pytest.mark.parametrize("shape", [(2, 3, 9), (1, 2, 7, 8), (1, 2, 3, 4, 5)], ids=str)
def test_global_pools_of_any_spatial_rank(op, shape):
    """A 1-D signal (Magika's GlobalMaxPool over 1x512x508) or a volume pools as a 2-D
    image does."""
    m = make([h.make_node(op, ["x"], ["y"])], [vi("x", list(shape))], [vi("y", None)])
    assert_matches_ort(m, {"x": f32(*shape)})


def test_global_pool_of_rank_2_is_an_error():
    m = make([h.make_node("GlobalMaxPool", ["x"], ["y"])], [vi("x", [2, 3])], [vi("y", None)])
    assert "the input must have rank >= 3, got 2" in import_error(m)


@pytest.mark.parametrize("attrs,a_shape,b_shape,c_shape", [
    (dict(transB=1), (3, 5), (4, 5), (4,)),
    (dict(transB=1, alpha=0.5, beta=2.0), (3, 5), (4, 5), (1, 4)),
    (dict(transA=1), (5, 3), (5, 4), (3, 4)),
    (dict(transA=1, transB=1, beta=0.0), (5, 3), (4, 5), (3, 1)),
    (dict(), (3, 5), (5, 4), None),
], ids=str)
def test_gemm_attributes(attrs, a_shape, b_shape, c_shape):
    inits = [("b", f32(*b_shape))] + ([("c", f32(*c_shape))] if c_shape else [])
    inputs = ["a", "b"] + (["c"] if c_shape else [])
    m = make([h.make_node("Gemm", inputs, ["y"], **attrs)], [vi("a", list(a_shape))], [vi("y", None)], inits)
    assert_matches_ort(m, {"a": f32(*a_shape)})
    if attrs == dict(transB=1):
        assert ops(import_onnx_model(m)) == ["relay.constant", "relay.nn.dense", "relay.constant", "relay.nn.bias_add"]


@pytest.mark.parametrize("a_shape,b_shape", [((3, 4), (4, 5)), ((2, 3, 4), (4, 5)), ((2, 1, 3, 4), (3, 4, 2)),
                                             ((4,), (4, 5)), ((2, 3, 4), (4,)), ((4,), (4,))], ids=str)
def test_matmul_shapes(a_shape, b_shape):
    m = make([h.make_node("MatMul", ["a", "b"], ["y"])], [vi("a", list(a_shape)), vi("b", list(b_shape))],
             [vi("y", None)])
    assert_matches_ort(m, {"a": f32(*a_shape), "b": f32(*b_shape)})


def test_matmul_forms():
    two_d = make([h.make_node("MatMul", ["a", "w"], ["y"])], [vi("a", [3, 4])], [vi("y", [3, 5])], [("w", f32(4, 5))])
    assert "relay.nn.matmul" in ops(import_onnx_model(two_d))
    batched = make([h.make_node("MatMul", ["a", "w"], ["y"])], [vi("a", [2, 3, 4])], [vi("y", [2, 3, 5])],
                   [("w", f32(4, 5))])
    (bmm,) = [op for op in import_onnx_model(batched).walk() if isinstance(op, relay.BatchMatmulOp)]
    assert bmm.prop("transpose_b") is False


def test_pad_modes_and_versions():
    x = f32(1, 2, 4, 5)
    for mode in ("constant", "edge", "reflect"):
        m = make([h.make_node("Pad", ["x", "pads", "v"], ["y"], mode=mode)], [vi("x", [1, 2, 4, 5])], [vi("y", None)],
                 [("pads", np.array([0, 0, 1, 2, 0, 0, 2, 1], np.int64)), ("v", np.array(1.5, np.float32))], opset=13)
        assert_matches_ort(m, {"x": x})
    old = make([h.make_node("Pad", ["x"], ["y"], pads=[0, 0, 1, 0, 0, 0, 0, 1], value=-2.0)],
               [vi("x", [1, 2, 4, 5])], [vi("y", None)], opset=9)
    got = run_function(import_onnx_model(old), {"x": x})["y"]
    np.testing.assert_array_equal(got, np.pad(x, [(0, 0), (0, 0), (1, 0), (0, 1)], constant_values=-2.0))


def test_gather_squeeze_unsqueeze_flatten_transpose_concat():
    table = f32(10, 4)
    nodes = [
        h.make_node("Gather", ["table", "ids"], ["emb"], axis=0),  # [2, 3, 4]
        h.make_node("Unsqueeze", ["emb", "ax"], ["u"]),  # [2, 1, 3, 4]
        h.make_node("Transpose", ["u"], ["t"], perm=[0, 3, 1, 2]),  # [2, 4, 1, 3]
        h.make_node("Squeeze", ["t", "ax2"], ["s"]),  # [2, 4, 3]
        h.make_node("Concat", ["s", "s"], ["c"], axis=-1),  # [2, 4, 6]
        h.make_node("Flatten", ["c"], ["y"], axis=2),  # [8, 6]
    ]
    m = make(nodes, [vi("ids", [2, 3], T.INT64)], [vi("y", [8, 6])],
             [("table", table), ("ax", np.array([1], np.int64)), ("ax2", np.array([2], np.int64))])
    module = import_onnx_model(m)
    assert "relay.take" in ops(module)
    assert_matches_ort(m, {"ids": np.array([[0, 9, -1], [3, 3, 2]], np.int64)})


def test_slice_and_split_are_strided_slices():
    nodes = [h.make_node("Slice", ["x", "st", "en", "ax", "sp"], ["s"]),
             h.make_node("Split", ["s"], ["a", "b"], axis=1, num_outputs=2)]
    m = make(nodes, [vi("x", [2, 9, 4])], [vi("a", None), vi("b", None)],
             [("st", np.array([1, -1], np.int64)), ("en", np.array([8, -100], np.int64)),
              ("ax", np.array([1, 2], np.int64)), ("sp", np.array([2, -2], np.int64))], opset=18)
    assert ops(import_onnx_model(m)) == ["relay.strided_slice"] * 3
    assert_matches_ort(m, {"x": f32(2, 9, 4)})


def test_activations():
    nodes = [h.make_node("LeakyRelu", ["x"], ["a"], alpha=0.2), h.make_node("Gelu", ["a"], ["b"], approximate="tanh"),
             h.make_node("HardSwish", ["b"], ["c"]), h.make_node("PRelu", ["c", "slope"], ["d"]),
             h.make_node("Erf", ["d"], ["e"]), h.make_node("Sigmoid", ["e"], ["f"]), h.make_node("Tanh", ["f"], ["y"])]
    m = make(nodes, [vi("x", [2, 3, 4])], [vi("y", [2, 3, 4])], [("slope", f32(3, 1))], opset=20)
    assert_matches_ort(m, {"x": f32(2, 3, 4) * 3})


def test_layer_norm_with_statistics_outputs():
    m = make([h.make_node("LayerNormalization", ["x", "g", "b"], ["y", "mean", "inv"], axis=1, epsilon=1e-3)],
             [vi("x", [2, 3, 4])], [vi("y", None), vi("mean", None), vi("inv", None)], [("g", f32(3, 4)), ("b", f32(3, 4))])
    assert_matches_ort(m, {"x": f32(2, 3, 4)})


@pytest.mark.parametrize("axis,scale", [(-1, (4,)), (1, (3, 4)), (1, (1, 4))], ids=str)
def test_rms_normalization(axis, scale):
    """ONNX RMSNormalization (opset 23): a broadcast scale is expanded to the normalized
    shape; the importer emits relay.nn.rms_norm."""
    m = make([h.make_node("RMSNormalization", ["x", "s"], ["y"], axis=axis, epsilon=1e-3)], [vi("x", [2, 3, 4])],
             [vi("y", None)], [("s", f32(*scale))], opset=23)
    assert "relay.nn.rms_norm" in ops(import_onnx_model(m))
    assert_matches_ort(m, {"x": f32(2, 3, 4) * 3})


def test_rms_normalization_stash_type_is_an_error():
    m = make([h.make_node("RMSNormalization", ["x", "s"], ["y"], stash_type=0)], [vi("x", [2, 4])],
             [vi("y", None)], [("s", f32(4))], opset=23)
    assert "stash_type 0 is not supported (only 1: float32)" in import_error(m)


def test_integer_elementwise_and_cast():
    m = make([h.make_node("Div", ["a", "b"], ["q"]), h.make_node("Cast", ["q"], ["y"], to=T.FLOAT)],
             [vi("a", [6], T.INT32), vi("b", [6], T.INT32)], [vi("y", [6])], opset=13)
    a = np.array([7, -7, 7, -7, 0, 9], np.int32)
    b = np.array([2, 2, -2, -2, 3, 4], np.int32)
    got = run_function(import_onnx_model(m), {"a": a, "b": b})["y"]
    np.testing.assert_array_equal(got, np.array([3, -3, -3, 3, 0, 2], np.float32))  # truncation toward zero


# --------------------------------------------------------------------------------------
# Quantized ops
# --------------------------------------------------------------------------------------


def test_per_axis_qdq_and_qlinear_ops_match_onnxruntime():
    w = rng.integers(-127, 128, (4, 3, 3, 3)).astype(np.int8)
    nodes = [
        h.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
        h.make_node("QLinearConv", ["xq", "xs", "xz", "w", "ws", "wz", "ys", "yz", "bias"], ["yq"], pads=[1, 1, 1, 1]),
        h.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"]),
        h.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wd"], axis=0),
    ]
    m = make(nodes, [vi("x", [1, 3, 5, 5])], [vi("y", [1, 4, 5, 5]), vi("wd", [4, 3, 3, 3])],
             [("xs", np.array(0.02, np.float32)), ("xz", np.array(5, np.uint8)), ("w", w),
              ("ws", np.array([0.01, 0.02, 0.015, 0.03], np.float32)), ("wz", np.zeros(4, np.int8)),
              ("ys", np.array(0.05, np.float32)), ("yz", np.array(120, np.uint8)),
              ("bias", rng.integers(-500, 500, 4).astype(np.int32))], opset=13)
    module = import_onnx_model(m)
    names = ops(module)
    assert {"relay.qnn.conv2d", "relay.qnn.requantize", "relay.nn.bias_add", "relay.qnn.quantize",
            "relay.qnn.dequantize"} <= set(names)
    got, want = run_both(m, {"x": f32(1, 3, 5, 5)})
    for g, w_ in zip(got, want):
        assert g.dtype == w_.dtype
        np.testing.assert_allclose(g, w_, atol=0.05 + 1e-6)  # at most one output step
    mm = make([h.make_node("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys", "yz"], ["y"])],
              [vi("a", [2, 3, 4], T.UINT8)], [vi("y", [2, 3, 5], T.UINT8)],
              [("as", np.array(0.1, np.float32)), ("az", np.array(10, np.uint8)),
               ("b", rng.integers(0, 255, (4, 5)).astype(np.uint8)), ("bs", np.array(0.05, np.float32)),
               ("bz", np.array(128, np.uint8)), ("ys", np.array(0.5, np.float32)), ("yz", np.array(100, np.uint8))])
    a = rng.integers(0, 255, (2, 3, 4)).astype(np.uint8)
    got, want = run_both(mm, {"a": a})
    assert np.abs(got[0].astype(int) - want[0].astype(int)).max() <= 1


# --------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------


def test_error_unsupported_op_names_op_and_node(tmp_path):
    m = make([h.make_node("StringNormalizer", ["x"], ["y"], name="norm_1")], [vi("x", [3, 3])], [vi("y", [])])
    msg = import_error(m, str(tmp_path / "m.onnx"))
    assert msg == (f"{tmp_path / 'm.onnx'}: error: node 'norm_1' (StringNormalizer): op StringNormalizer (opset 17) "
                   "is not supported")


@pytest.mark.parametrize("node,expected", [
    (h.make_node("Conv", ["x", "w"], ["y"], name="c1", auto_pad="SAME_MIDDLE"), "node 'c1' (Conv): auto_pad 'SAME_MIDDLE'"),
    (h.make_node("Conv", ["x", "w"], ["y"], name="c2", kernel_shape=[5, 5]), "node 'c2' (Conv): kernel_shape [5, 5]"),
    (h.make_node("Conv", ["x", "w"], ["y"], name="c3", pads=[-1, 0, 0, 0]), "node 'c3' (Conv): negative pads"),
    (h.make_node("Conv", ["x", "w"], ["y"], name="c4", foo=1), "node 'c4' (Conv): attribute 'foo' is not supported"),
    (h.make_node("Conv", ["x", "w"], ["y"], name="c5", group=3), "node 'c5' (Conv): property 'groups' (3)"),
], ids=lambda v: getattr(v, "name", None) or str(v)[:20])
def test_error_bad_attributes(node, expected):
    m = make([node], [vi("x", [1, 2, 6, 6])], [vi("y", None)], [("w", f32(2, 2, 3, 3))])
    assert expected in import_error(m)


def test_error_dynamic_dimension():
    m = make([h.make_node("Relu", ["x"], ["y"])], [vi("x", [1, "seq", 4])], [vi("y", [1, "seq", 4])])
    assert import_error(m) == ("error: graph input 'x' has a dynamic dimension 1 ('seq'); give its size with "
                               "--input-shapes x=1x?x4 (each ? a size)")
    assert main_fn(import_onnx_model(m, input_shapes="x=1x7x4")).function_type.inputs.data[0].get_shape() == (1, 7, 4)


def test_error_runtime_values_where_constants_are_needed():
    m = make([h.make_node("Unsqueeze", ["x", "axes"], ["y"], name="u")], [vi("x", [3]), vi("axes", [1], T.INT64)],
             [vi("y", [1, 3])])
    assert "node 'u' (Unsqueeze): the axes input ('axes') must be a constant" in import_error(m)


def test_error_ops_of_other_domains_and_bad_opsets():
    m = make([h.make_node("GroupNorm", ["x"], ["y"], name="g", domain="com.microsoft")], [vi("x", [3])], [vi("y", [3])],
             extra_opsets=[h.make_opsetid("com.microsoft", 1)])
    assert "node 'g' (GroupNorm): ops of domain 'com.microsoft' are not supported" in import_error(m)
    other = make([h.make_node("Relu", ["x"], ["y"], name="r", domain="ai.onnx.ml")], [vi("x", [3])], [vi("y", [3])],
                 extra_opsets=[h.make_opsetid("ai.onnx.ml", 3)])
    assert "node 'r' (Relu): ops of domain 'ai.onnx.ml' are not supported" in import_error(other)
    newer = make([h.make_node("Relu", ["x"], ["y"])], [vi("x", [3])], [vi("y", [3])], opset=40)
    assert "opset 40 of the default domain is newer than the importer supports" in import_error(newer)
    gelu_too_early = make([h.make_node("Gelu", ["x"], ["y"], name="g")], [vi("x", [3])], [vi("y", [3])], opset=17)
    assert "node 'g' (Gelu): 'Gelu' is not an op of the ONNX domain at opset 17" in import_error(gelu_too_early)


def test_error_graph_not_topologically_sorted():
    m = make([h.make_node("Relu", ["t"], ["y"], name="second"), h.make_node("Relu", ["x"], ["t"], name="first")],
             [vi("x", [3])], [vi("y", [3])])
    assert "node 'second' (Relu): input 't' is not produced by any earlier node" in import_error(m)


def test_declared_output_shape_mismatch_warns():
    """A declared output shape the graph does not compute (an exporter's stale shape):
    one warning, and the computed shape is used, as onnxruntime does."""
    for declared in ([3, 2], [1, "seqlen"]):
        m = make([h.make_node("Relu", ["x"], ["y"])], [vi("x", [2, 3])], [vi("y", declared)])
        shown = str(declared).replace('"', "'")
        message = f"graph output 'y' is declared with shape {shown} but computes [2, 3]; the computed shape is used"
        with pytest.warns(ModelWarning) as caught:
            module = import_onnx_model(m)
        assert [str(w.message) for w in caught] == [f"warning: {message}"]
        assert main_fn(module).function_type.outputs.data[0].get_shape() == (2, 3)


def test_error_declared_output_type_mismatch():
    m = make([h.make_node("Relu", ["x"], ["y"])], [vi("x", [2, 3])], [vi("y", [2, 3], T.INT64)])
    assert import_error(m) == "error: graph output 'y' is declared INT64 but computes f32"


def test_declared_negative_output_size_is_dynamic():
    """paddle2onnx declares unknown sizes as -1: they are not checked, the others are."""
    m = make([h.make_node("Relu", ["x"], ["y"])], [vi("x", [2, 3])], [vi("y", [-1, 3])])
    assert main_fn(import_onnx_model(m)).function_type.outputs.data[0].get_shape() == (2, 3)
    wrong = make([h.make_node("Relu", ["x"], ["y"])], [vi("x", [2, 3])], [vi("y", [-1, 4])])
    with pytest.warns(ModelWarning, match=r"declared with shape \['\?', 4\] but computes \[2, 3\]"):
        import_onnx_model(wrong)


def test_input_shapes_from_python():
    """`input_shapes` takes shapes by name as well as the option's text; a bound input
    takes its given shape too; an initializer's shape is its value's."""
    m = make([h.make_node("Reshape", ["x", "s"], ["y"], name="r")],
             [vi("x", ["n", 6]), vi("s", [None], T.INT64)], [vi("y", ["n", 2, 3])], [("w", f32(2))])
    module = import_onnx_model(m, bind_inputs={"s": np.array([-1, 2, 3])}, input_shapes={"x": (4, 6), "s": [3]})
    assert [t.get_shape() for t in main_fn(module).function_type.inputs.data] == [(4, 6)]
    assert main_fn(module).function_type.outputs.data[0].get_shape() == (4, 2, 3)
    assert run_function(module, {"x": np.ones((4, 6), np.float32)})["y"].shape == (4, 2, 3)
    with pytest.raises(CompileError, match="--input-shapes: input 's' has rank 1 \\(\\?\\), the given shape 1x3 rank 2"):
        import_onnx_model(m, bind_inputs={"s": np.array([-1, 2, 3])}, input_shapes={"x": (4, 6), "s": (1, 3)})
    m.graph.input.append(vi("w", [2]))  # IR < 4 style: the initializer listed as an input
    with pytest.raises(CompileError, match="--input-shapes: 'w' is an initializer of the model; its shape is its value's"):
        import_onnx_model(m, input_shapes="x=4x6,w=2")
    with pytest.raises(CompileError, match=r"--input-shapes: the shape of 'x' \(4x-6\) must be positive sizes"):
        import_onnx_model(m, input_shapes={"x": (4, -6)})
    # An input that declares no shape: bound, it takes the value's; given, it takes that one.
    no_shape = make([h.make_node("Reshape", ["x", "s"], ["y"], name="r")],
                    [vi("x", [4, 6]), h.make_tensor_value_info("s", T.INT64, None)], [vi("y", None)])
    module = import_onnx_model(no_shape, bind_inputs={"s": np.array([2, 3, 4])})
    assert main_fn(module).function_type.outputs.data[0].get_shape() == (2, 3, 4)
    module = import_onnx_model(no_shape, bind_inputs={"s": np.array([[8, 3]])}, input_shapes="s=1x2")
    assert main_fn(module).function_type.outputs.data[0].get_shape() == (8, 3)


def test_lstm_weights_sliced_from_a_file_tensor(tmp_path):
    """PyTorch's export reorders an LSTM's gates by slicing and concatenating the file's
    weight: the slices stay relay ops on the file tensor (no anonymous copies of the
    weights), and their values are still known where the LSTM needs a constant."""
    wih = f32(16, 5)
    gates = [("i", 0, 4), ("o", 12, 16), ("f", 4, 8), ("c", 8, 12)]
    nodes = [h.make_node("Slice", ["wih", f"{g}_lo", f"{g}_hi", "axis0"], [f"w_{g}"], name=f"slice_{g}")
             for g, _, _ in gates]
    nodes += [h.make_node("Concat", [f"w_{g}" for g, _, _ in gates], ["w_cat"], name="concat", axis=0),
              h.make_node("Unsqueeze", ["w_cat", "axis0"], ["w"], name="unsqueeze"),
              h.make_node("LSTM", ["x", "w", "r"], ["", "y_h"], name="lstm", hidden_size=4)]
    inits = [("wih", wih), ("r", f32(1, 16, 4)), ("axis0", np.array([0], np.int64))]
    inits += [(f"{g}_{k}", np.array([v], np.int64)) for g, lo, hi in gates for k, v in (("lo", lo), ("hi", hi))]
    m = make(nodes, [vi("x", [3, 1, 5])], [vi("y_h", [1, 1, 4])], inits)
    path = str(tmp_path / "lstm.onnx")
    onnx.save(m, path)
    module = import_onnx_file(path)
    of_weight = [op for op in module.walk() if isinstance(op, relay.StridedSliceOp)
                 and isinstance(op.data.owner, relay.ConstantOp) and op.data.owner.external is not None]
    assert len(of_weight) == 4 and {op.data.owner.external.data for op in of_weight} == {"wih"}
    x = f32(3, 1, 5)
    (want,) = ort.InferenceSession(path).run(None, {"x": x})
    np.testing.assert_allclose(run_function(module, {"x": x})["y_h"], want, rtol=1e-5, atol=1e-6)


def test_error_corrupt_files(tmp_path):
    good = make([h.make_node("Relu", ["x"], ["y"])], [vi("x", [2, 3])], [vi("y", [2, 3])], [("unused", f32(40))])
    data = good.SerializeToString()
    for name, blob in (("truncated", data[: len(data) // 2]), ("garbage", b"\x00\xff not a model"),
                       ("empty", b""), ("text", b"hello world\n")):
        path = tmp_path / f"{name}.onnx"
        path.write_bytes(blob)
        with pytest.raises(CompileError) as info:
            import_onnx_file(str(path))
        assert str(info.value).startswith(f"{path}: error: not a valid ONNX model"), str(info.value)


def test_a_constant_too_large_to_build_is_one_error_naming_the_node():
    """A causal attention over a million-token sequence (a declared shape) makes a mask
    of 2^20 x 2^20 floats (4 TiB) at import: an error naming the node, not a MemoryError
    (accel-fuzz --parsers --seed 418, case 754)."""
    model = h.make_model(
        h.make_graph([h.make_node("Attention", ["x", "w", "b"], ["y"], name="self_attn", domain="com.microsoft",
                                  num_heads=2, unidirectional=1)], "g", [vi("x", [1, 1 << 20, 8])],
                     [vi("y", [1, 1 << 20, 8])],
                     [nh.from_array(f32(8, 24), "w"), nh.from_array(f32(24), "b")]),
        opset_imports=[h.make_opsetid("", 17), h.make_opsetid("com.microsoft", 1)])
    with pytest.raises(CompileError) as info:
        import_onnx_model(model)
    message = str(info.value)
    assert "node 'self_attn' (Attention): a value of the node is too large to build" in message, message
    assert "\n" not in message


def test_accel_opt_errors_are_one_line_and_exit_1(tmp_path):
    accel_opt = os.path.join(os.path.dirname(sys.executable), "accel-opt")
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x07\x12\x03abc\xff\xff")
    unsupported = tmp_path / "op.onnx"
    onnx.save(make([h.make_node("StringNormalizer", ["x"], ["y"], name="norm")], [vi("x", [2, 2])], [vi("y", [])]),
              unsupported)
    for path in (bad, unsupported):
        proc = subprocess.run([accel_opt, str(path)], capture_output=True, text=True)
        assert proc.returncode == 1
        assert proc.stdout == ""
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"accel-opt: {path}: error: "), proc.stderr


def test_unsupported_initializer_is_an_error_only_when_used():
    c64 = onnx.TensorProto(name="b", data_type=T.COMPLEX64, dims=[2], float_data=[0, 0, 0, 0])
    graph = h.make_graph([h.make_node("Relu", ["x"], ["y"])], "g", [vi("x", [2])], [vi("y", [2])], [c64])
    m = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])
    assert ops(import_onnx_model(m)) == ["relay.nn.relu"]
    graph = h.make_graph([h.make_node("Add", ["x", "b"], ["y"], name="add")], "g", [vi("x", [2])], [vi("y", [2])], [c64])
    m = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])
    assert import_error(m) == "error: node 'add' (Add): initializer 'b': element type COMPLEX64 is not supported"


def test_error_malformed_shape_computation():
    m = make([h.make_node("Concat", ["a", "b"], ["c"], axis=0, name="cat"), h.make_node("Reshape", ["x", "c"], ["y"])],
             [vi("x", [2, 3])], [vi("y", None)], [("a", np.zeros((2, 2), np.int64)), ("b", np.zeros(3, np.int64))])
    assert import_error(m).startswith("error: node 'cat' (Concat): cannot evaluate the node: ")


@pytest.mark.parametrize("indices", [np.array(0), np.array(-2), np.array([1]), np.array([0, 2, 4]), np.array([3, 1])],
                         ids=["scalar", "negative", "one", "stepped", "descending"])
def test_gather_of_constant_indices_in_steps_is_a_slice(indices):
    """A gather of run-time data by constant indices in increasing steps (ViT's class token
    x[:, 0], Swin's qkv[0]) is a strided slice (a reshape drops the axis of a scalar
    index), which targets run as a copy; other indices stay a take."""
    m = make([h.make_node("Gather", ["x", "i"], ["y"], axis=1)], [vi("x", [2, 5, 3])], [vi("y", None)],
             [("i", indices.astype(np.int64))])
    module = import_onnx_model(m)
    in_steps = indices.size == 1 or bool(np.all(np.diff(indices) > 0))
    assert ("relay.strided_slice" in ops(module)) == in_steps and ("relay.take" in ops(module)) != in_steps
    assert_matches_ort(m, {"x": f32(2, 5, 3)})
