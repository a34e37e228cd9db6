"""ONNX ops relay composes from its own ops (`compiler/frontend/onnx/ops_composed.py`).

Each op is imported and interpreted on random inputs and compared with onnxruntime
(float within 1e-5 of the output's max |value|: exp/log/pow round differently in the last
bits; integer and bool results exactly); one model holding all of them is compiled to C
(host kernels), built and run, and compared with onnxruntime the same way; and the
composite LRN / InstanceNormalization of a small CNN partition with their convolutions
onto the npu. The ONNX node tests of these ops run in tests/test_onnx_conformance.py.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh
from onnx.reference import ReferenceEvaluator

from accel.compiler.diagnostics import CompileError
from accel.compiler.driver import compile_to_directory, make_context
from accel.compiler.frontend.onnx import import_onnx_model
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.runtime.run_compiled import run_directory
from accel.compiler.transforms.canonicalize import Canonicalize

ort = pytest.importorskip("onnxruntime")

rng = np.random.default_rng(0)
SHAPE = [2, 4, 3, 5]


def make(nodes, inputs, outputs, inits=(), opset=18):
    graph = h.make_graph(nodes, "g", inputs, outputs, [nh.from_array(np.asarray(a), n) for n, a in inits])
    return h.make_model(graph, opset_imports=[h.make_opsetid("", opset)])


def vi(name, shape, t=T.FLOAT):
    return h.make_tensor_value_info(name, t, shape)


def ort_outputs(model, feeds) -> dict[str, np.ndarray]:
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)))


def assert_matches(got: dict, want: dict) -> None:
    assert set(got) == set(want)
    for k, w in want.items():
        g = np.asarray(got[k])
        assert g.dtype == w.dtype and g.shape == w.shape, (k, g.dtype, g.shape, w.dtype, w.shape)
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5 * max(float(np.abs(w).max()), 1.0), err_msg=k)
        else:
            np.testing.assert_array_equal(g, w, err_msg=k)


# One node per op: (op type, attributes, extra initializers, output type, output shape, opset).
CASES = {
    "ReduceL1": ({"keepdims": 0}, [("axes", np.array([1, 3], np.int64))], T.FLOAT, [2, 3], 18),
    "ReduceL2": ({}, [("axes", np.array([-1], np.int64))], T.FLOAT, [2, 4, 3, 1], 18),
    "ReduceSumSquare": ({"keepdims": 0}, [], T.FLOAT, [], 18),
    "ReduceLogSumExp": ({"keepdims": 0}, [("axes", np.array([2], np.int64))], T.FLOAT, [2, 4, 5], 18),
    "ReduceLogSum": ({"keepdims": 1}, [("axes", np.array([1], np.int64))], T.FLOAT, [2, 1, 3, 5], 18),
    "ArgMax": ({"axis": 1, "keepdims": 0}, [], T.INT64, [2, 3, 5], 13),
    "ArgMin": ({"axis": -1, "select_last_index": 1}, [], T.INT64, [2, 4, 3, 1], 13),
    "Hardmax": ({"axis": 1}, [], T.FLOAT, SHAPE, 11),
    "LogSoftmax": ({"axis": 2}, [], T.FLOAT, SHAPE, 13),
    "Elu": ({"alpha": 0.7}, [], T.FLOAT, SHAPE, 13),
    "Selu": ({}, [], T.FLOAT, SHAPE, 13),
    "Celu": ({"alpha": 1.5}, [], T.FLOAT, SHAPE, 13),
    "Softplus": ({}, [], T.FLOAT, SHAPE, 13),
    "Softsign": ({}, [], T.FLOAT, SHAPE, 13),
    "Mish": ({}, [], T.FLOAT, SHAPE, 18),
    "ThresholdedRelu": ({"alpha": 0.3}, [], T.FLOAT, SHAPE, 13),
    "Shrink": ({"lambd": 0.4, "bias": 0.1}, [], T.FLOAT, SHAPE, 13),
    "Sign": ({}, [], T.FLOAT, SHAPE, 13),
    "IsNaN": ({}, [], T.BOOL, SHAPE, 13),
    "IsInf": ({"detect_negative": 0}, [], T.BOOL, SHAPE, 13),
    "InstanceNormalization": ({"epsilon": 1e-3}, [("scale", rng.standard_normal(4).astype(np.float32)),
                                                  ("bias", rng.standard_normal(4).astype(np.float32))],
                              T.FLOAT, SHAPE, 13),
    "MeanVarianceNormalization": ({}, [], T.FLOAT, SHAPE, 13),
    "LpNormalization": ({"axis": 1, "p": 1}, [], T.FLOAT, SHAPE, 13),
    "LRN": ({"size": 3, "alpha": 0.01, "beta": 0.75, "bias": 1.0}, [], T.FLOAT, SHAPE, 13),
    "Tile": ({}, [("repeats", np.array([1, 2, 1, 3], np.int64))], T.FLOAT, [2, 8, 3, 15], 13),
    "Trilu": ({"upper": 0}, [("k", np.array(1, np.int64))], T.FLOAT, SHAPE, 14),
    "Mean": ({}, [("other", rng.standard_normal([3, 5]).astype(np.float32))], T.FLOAT, SHAPE, 13),
}


def one_op_model(op: str) -> onnx.ModelProto:
    attrs, inits, t, shape, opset = CASES[op]
    inputs = ["x"] + [n for n, _ in inits]
    node = h.make_node(op, inputs, ["y"], **attrs)
    return make([node], [vi("x", SHAPE)], [vi("y", shape, t)], inits, opset)


def random_input() -> np.ndarray:
    x = rng.standard_normal(SHAPE).astype(np.float32) * 2
    x[0, 0, 0, :2] = 0.0  # exact zeros for Sign, Shrink, LpNormalization
    return x


@pytest.mark.parametrize("op", sorted(CASES))
def test_op_imports_and_matches_onnxruntime(op):
    model = one_op_model(op)
    onnx.checker.check_model(model)
    x = random_input()
    if op == "ReduceLogSum":
        x = np.abs(x) + 0.1
    if op in ("IsNaN", "IsInf"):
        x[1, 1, 1, :3] = [np.nan, np.inf, -np.inf]
    module = import_onnx_model(model)
    assert_matches(run_function(module, {"x": x}), ort_outputs(model, {"x": x}))


def test_argmax_takes_the_first_maximum_and_select_last_index_the_last():
    x = np.array([[1, 3, 3, 0], [2, 2, 1, 2]], np.float32).reshape(2, 4)
    for last, want in ((0, [1, 0]), (1, [2, 3])):
        m = make([h.make_node("ArgMax", ["x"], ["y"], axis=1, keepdims=0, select_last_index=last)],
                 [vi("x", [2, 4])], [vi("y", [2], T.INT64)], opset=13)
        np.testing.assert_array_equal(run_function(import_onnx_model(m), {"x": x})["y"], want)


def test_integer_argmax_and_tile_of_ints():
    m = make([h.make_node("ArgMin", ["x"], ["a"], axis=0, keepdims=1),
              h.make_node("Tile", ["x", "r"], ["t"])],
             [vi("x", [3, 2], T.INT32)], [vi("a", [1, 2], T.INT64), vi("t", [6, 2], T.INT32)],
             [("r", np.array([2, 1], np.int64))], opset=13)
    x = rng.integers(-4, 5, (3, 2)).astype(np.int32)
    assert_matches(run_function(import_onnx_model(m), {"x": x}), ort_outputs(m, {"x": x}))


def test_errors_are_one_line_naming_the_node():
    m = make([h.make_node("GroupNormalization", ["x", "s", "b"], ["y"], name="gn", num_groups=3)],
             [vi("x", SHAPE)], [vi("y", SHAPE)], [("s", np.ones(4, np.float32)), ("b", np.zeros(4, np.float32))],
             opset=21)
    with pytest.raises(CompileError) as info:
        import_onnx_model(m)
    text = str(info.value)
    assert "\n" not in text
    assert text.endswith("node 'gn' (GroupNormalization): num_groups 3 must divide the 4 channels"), text


def every_composed_op_model() -> onnx.ModelProto:
    """All of CASES in one graph, each op on the same input."""
    nodes, outputs, inits = [], [], []
    for op in sorted(CASES):
        attrs, extra, t, shape, _ = CASES[op]
        names = [f"{op}_{n}" for n, _ in extra]
        src = "x_pos" if op == "ReduceLogSum" else "x"
        nodes.append(h.make_node(op, [src, *names], [f"y_{op}"], **attrs))
        outputs.append(vi(f"y_{op}", shape, t))
        inits += [(f"{op}_{n}", a) for n, a in extra]
    nodes.insert(0, h.make_node("Abs", ["x"], ["x_abs"]))
    nodes.insert(1, h.make_node("Add", ["x_abs", "tenth"], ["x_pos"]))
    inits.append(("tenth", np.array(0.1, np.float32)))
    return make(nodes, [vi("x", SHAPE)], outputs, inits, opset=18)


def test_every_composed_op_runs_in_c_and_matches_onnxruntime(tmp_path):
    model = every_composed_op_model()
    path = str(tmp_path / "composed.onnx")
    onnx.save(model, path)
    compile_to_directory(path, "", str(tmp_path / "out"), pipeline="canonicalize,bufferize,plan-memory")
    x = random_input()
    got, _ = run_directory(str(tmp_path / "out"), {"x": x})
    assert_matches(got, ort_outputs(model, {"x": x}))


def test_lrn_and_instance_norm_of_a_cnn_offload_their_convolutions(tmp_path):
    """An AlexNet-style conv -> relu -> LRN and a style-transfer conv -> InstanceNorm: the
    convolutions (LRN's window sum among them) go to the npu; C equals onnxruntime."""
    w1 = (rng.standard_normal((8, 3, 3, 3)) * 0.3).astype(np.float32)
    w2 = (rng.standard_normal((8, 8, 3, 3)) * 0.3).astype(np.float32)
    nodes = [h.make_node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1]), h.make_node("Relu", ["c1"], ["r1"]),
             h.make_node("LRN", ["r1"], ["n1"], size=5, alpha=1e-3, beta=0.75, bias=2.0),
             h.make_node("Conv", ["n1", "w2"], ["c2"], pads=[1, 1, 1, 1]),
             h.make_node("InstanceNormalization", ["c2", "s", "b"], ["y"])]
    model = make(nodes, [vi("x", [1, 3, 8, 8])], [vi("y", [1, 8, 8, 8])],
                 [("w1", w1), ("w2", w2), ("s", np.ones(8, np.float32)), ("b", np.zeros(8, np.float32))], opset=13)
    path = str(tmp_path / "cnn.onnx")
    onnx.save(model, path)
    report = compile_to_directory(path, "npu", str(tmp_path / "out"))
    assert report["macs"]["total"] > 0 and report["macs"]["offloaded"] == report["macs"]["total"], report["macs"]
    x = rng.standard_normal((1, 3, 8, 8)).astype(np.float32)
    got, _ = run_directory(str(tmp_path / "out"), {"x": x})
    want = ort_outputs(model, {"x": x})["y"]
    np.testing.assert_allclose(got["y"], want, rtol=0, atol=1e-4 * float(np.abs(want).max()))


def test_batch_norm_training_mode_matches_the_onnx_reference_in_c(tmp_path):
    """training_mode = 1: batch statistics and the updated running statistics (onnxruntime's
    inference build has no training-mode BatchNormalization: the reference is onnx.reference);
    float within 1e-5 of the output's max. A training Dropout of ratio 0 is the identity."""
    c = SHAPE[1]
    inits = [("s", rng.standard_normal(c).astype(np.float32)), ("b", rng.standard_normal(c).astype(np.float32)),
             ("m", rng.standard_normal(c).astype(np.float32)), ("v", rng.random(c).astype(np.float32) + 0.5),
             ("ratio", np.array(0.0, np.float32)), ("train", np.array(True))]
    nodes = [h.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y", "rm", "rv"], training_mode=1,
                         momentum=0.8, epsilon=1e-3),
             h.make_node("Dropout", ["y", "ratio", "train"], ["z", "mask"])]
    model = make(nodes, [vi("x", SHAPE)], [vi("z", SHAPE), vi("mask", SHAPE, T.BOOL), vi("rm", [c]), vi("rv", [c])],
                 inits)
    x = rng.standard_normal(SHAPE).astype(np.float32) * 3 + 1
    want = dict(zip(["z", "mask", "rm", "rv"], ReferenceEvaluator(model).run(None, {"x": x})))
    assert_matches(run_function(import_onnx_model(model), {"x": x}), want)
    path = tmp_path / "bn.onnx"
    onnx.save(model, path)
    compile_to_directory(str(path), "npu", str(tmp_path / "out"))
    got, _ = run_directory(str(tmp_path / "out"), {"x": x})
    assert_matches(got, want)


def test_training_dropout_with_a_nonzero_ratio_is_one_line():
    nodes = [h.make_node("Dropout", ["x", "ratio", "train"], ["z"])]
    model = make(nodes, [vi("x", SHAPE)], [vi("z", SHAPE)],
                 [("ratio", np.array(0.5, np.float32)), ("train", np.array(True))])
    with pytest.raises(CompileError, match="ratio 0.5 draws a random mask"):
        import_onnx_model(model)


def test_group_norm_as_torch_exports_it_has_no_identity_affine():
    """torch's GroupNorm export: InstanceNormalization of the [N, G, -1] view with a scale
    of ones and a bias of zeros, then the per-channel affine. The identity product and sum
    are not emitted (they would stay on the host between the norm and the affine); the
    result is onnxruntime's."""
    groups, shape = 2, [1, 4, 3, 5]
    nodes = [h.make_node("Reshape", ["x", "grouped"], ["g"]),
             h.make_node("InstanceNormalization", ["g", "ones", "zeros"], ["n"], epsilon=1e-5),
             h.make_node("Reshape", ["n", "shape"], ["r"]),
             h.make_node("Mul", ["r", "gamma"], ["m"]), h.make_node("Add", ["m", "beta"], ["y"])]
    inits = [("grouped", np.array([1, groups, -1], np.int64)), ("ones", np.ones(groups, np.float32)),
             ("zeros", np.zeros(groups, np.float32)), ("shape", np.array(shape, np.int64)),
             ("gamma", rng.standard_normal((4, 1, 1)).astype(np.float32)),
             ("beta", rng.standard_normal((4, 1, 1)).astype(np.float32))]
    model = make(nodes, [vi("x", shape)], [vi("y", shape)], inits)
    module = import_onnx_model(model)
    Canonicalize().apply(make_context(), module)
    kinds = [op.name for op in module.walk() if op.name.startswith("relay.") and op.name != "relay.constant"]
    # The affine: a depthwise 1x1 conv2d (fold-batch-norm's scale) and a bias.
    assert kinds == ["relay.reshape", "relay.nn.layer_norm", "relay.reshape", "relay.nn.conv2d", "relay.nn.bias_add"], kinds
    x = rng.standard_normal(shape).astype(np.float32)
    assert_matches(run_function(module, {"x": x}), ort_outputs(model, {"x": x}))
