"""The float host kernels on float64 (`acc_<op>_f64`, one source with the float32 ones:
`compiler/runtime/c/host_kernels_real.inc`): an ONNX graph in double that reaches every
float kernel, compiled host-only, built and run, must equal the reference interpreter
(numpy in float64) within 1e-12 of each output's magnitude (libm against numpy, and
summation order); the f32 instances are covered by every other C test."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

from accel.compiler.driver import compile_to_directory
from accel.compiler.frontend.onnx import import_onnx_model
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.runtime.run_compiled import run_directory

rng = np.random.default_rng(0)

F64_KERNELS = {"relay.exp", "relay.log", "relay.sqrt", "relay.sigmoid", "relay.tanh", "relay.erf", "relay.nn.gelu",
               "relay.nn.leaky_relu", "relay.nn.softmax", "relay.nn.batch_matmul",
               "relay.nn.dense", "relay.nn.avg_pool2d", "relay.nn.global_avg_pool2d", "relay.nn.batch_norm",
               "relay.nn.layer_norm", "relay.nn.rms_norm", "relay.mean", "relay.nn.conv2d_transpose"}


def f64_model() -> onnx.ModelProto:
    n = h.make_node
    nodes = [
        n("Exp", ["x"], ["e"]), n("Log", ["e"], ["l"]), n("Abs", ["x"], ["a"]), n("Sqrt", ["a"], ["s"]),
        n("Sigmoid", ["x"], ["sg"]), n("Tanh", ["sg"], ["th"]), n("Erf", ["th"], ["er"]),
        n("Gelu", ["er"], ["ge"], approximate="tanh"), n("HardSigmoid", ["ge"], ["hs"], alpha=0.3, beta=0.4),
        n("LeakyRelu", ["hs"], ["lr"], alpha=0.2), n("Softmax", ["lr"], ["sm"], axis=-1),
        n("MatMul", ["sm", "w"], ["mm"]), n("Gemm", ["mm", "g"], ["dn"], transB=1),
        n("Add", ["dn", "s"], ["sum"]), n("Add", ["sum", "l"], ["out_vec"]),
        n("AveragePool", ["img"], ["ap"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2]),
        n("GlobalAveragePool", ["ap"], ["gap"]),
        n("BatchNormalization", ["img", "bn_s", "bn_b", "bn_m", "bn_v"], ["bn"]),
        n("LayerNormalization", ["bn", "ln_s", "ln_b"], ["ln"], axis=-1),
        n("RMSNormalization", ["ln", "rms_s"], ["rms"], axis=-2, epsilon=1e-3),
        n("ReduceMean", ["rms", "axes"], ["rm"], keepdims=1),
        n("ConvTranspose", ["rm", "ct_w"], ["ct"], strides=[2, 2]),
        n("MatMul", ["b", "bw"], ["bm"]),
    ]
    inits = {"w": rng.standard_normal((4, 4)), "g": rng.standard_normal((4, 4)),
             "bn_s": rng.standard_normal(2), "bn_b": rng.standard_normal(2), "bn_m": rng.standard_normal(2),
             "bn_v": rng.random(2) + 0.5, "ln_s": rng.standard_normal(6), "ln_b": rng.standard_normal(6),
             "rms_s": rng.standard_normal((5, 6)),
             "axes": np.array([1], np.int64), "ct_w": rng.standard_normal((1, 2, 2, 2)),
             "bw": rng.standard_normal((2, 4, 3))}
    graph = h.make_graph(
        nodes, "f64", [h.make_tensor_value_info("x", T.DOUBLE, [3, 4]), h.make_tensor_value_info("img", T.DOUBLE, [1, 2, 5, 6]),
         h.make_tensor_value_info("b", T.DOUBLE, [2, 3, 4])],
        [h.make_tensor_value_info("out_vec", T.DOUBLE, [3, 4]), h.make_tensor_value_info("gap", T.DOUBLE, [1, 2, 1, 1]),
         h.make_tensor_value_info("ct", T.DOUBLE, [1, 2, 10, 12]), h.make_tensor_value_info("bm", T.DOUBLE, [2, 3, 3])],
        [nh.from_array(np.asarray(v, np.int64 if k == "axes" else np.float64), k) for k, v in inits.items()])
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 23)])  # RMSNormalization: opset 23
    onnx.checker.check_model(model, full_check=True)
    return model


def test_every_float_kernel_runs_on_f64_and_matches_the_interpreter(tmp_path):
    model = f64_model()
    module = import_onnx_model(model)
    used = {op.name for op in module.walk()}
    assert F64_KERNELS <= used, sorted(F64_KERNELS - used)
    feeds = {"x": rng.standard_normal((3, 4)), "img": rng.standard_normal((1, 2, 5, 6)),
             "b": rng.standard_normal((2, 3, 4))}
    want = run_function(module, feeds)
    path = str(tmp_path / "f64.onnx")
    onnx.save(model, path)
    compile_to_directory(path, "", str(tmp_path / "out"), pipeline="canonicalize,bufferize,plan-memory")
    got, _ = run_directory(str(tmp_path / "out"), feeds)
    for k, w in want.items():
        w = np.asarray(w)
        assert got[k].dtype == np.float64 and got[k].shape == w.shape, k
        np.testing.assert_allclose(got[k], w, rtol=1e-12, atol=1e-12 * float(np.abs(w).max()), err_msg=k)
