"""Writes small ONNX models for the lit tests of the ONNX importer.

    %python %S/Inputs/make_model.py NAME OUT.onnx

Each NAME builds one model with onnx.helper (fixed seeds: the files are deterministic).
"""

import sys

import numpy as np
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

rng = np.random.default_rng(0)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def model(nodes, inputs, outputs, inits=(), opset=17, **kw):
    graph = h.make_graph(nodes, "g", inputs, outputs, [nh.from_array(a, n) for n, a in inits])
    return h.make_model(graph, opset_imports=kw.pop("opsets", [h.make_opsetid("", opset)]), **kw)


def vi(name, shape, t=T.FLOAT):
    return h.make_tensor_value_info(name, t, shape)


def qdq_blocked():
    """Blocked Q/DQ (opset 21): scales and zero points per block of 2 along axis 1 (the
    last block short), given at run time."""
    return model(
        [h.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], name="q_blocked", axis=1, block_size=2),
         h.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], name="dq_blocked", axis=1, block_size=2)],
        [vi("x", [2, 3]), vi("s", [2, 2]), vi("z", [2, 2], T.INT8)], [vi("y", [2, 3])], opset=21)


def qdq_blocked_bad_scale():
    return model([h.make_node("DequantizeLinear", ["x", "s"], ["y"], name="dq_bad", axis=1, block_size=2)],
                 [vi("x", [2, 4], T.INT8), vi("s", [2, 3])], [vi("y", [2, 4])], opset=21)

def empty_results():
    """Results with a zero in their shape: a Slice past the end, a Split with an empty
    part, a Reshape (allowzero) of an empty input."""
    return model(
        [h.make_node("Slice", ["x", "st", "en", "ax"], ["s"], name="slice_past_end"),
         h.make_node("Split", ["x", "parts"], ["a", "b"], name="split_empty", axis=1),
         h.make_node("Reshape", ["e", "shape"], ["r"], name="reshape_empty", allowzero=1)],
        [vi("x", [2, 3]), vi("e", [0, 4])], [vi("s", [2, 0]), vi("a", [2, 3]), vi("b", [2, 0]), vi("r", [4, 0])],
        [("st", np.array([5], np.int64)), ("en", np.array([9], np.int64)), ("ax", np.array([1], np.int64)),
         ("parts", np.array([3, 0], np.int64)), ("shape", np.array([4, 0], np.int64))], opset=18)


def split_negative():
    return model([h.make_node("Split", ["x", "parts"], ["a", "b"], name="split_neg", axis=0)],
                 [vi("x", [3])], [vi("a", [4]), vi("b", [-1])], [("parts", np.array([4, -1], np.int64))], opset=18)

def conv_relu():
    """Conv with bias + Relu + Gemm(transB=1): weights external, biases inline."""
    return model(
        [h.make_node("Conv", ["x", "w", "b"], ["c"], name="conv_1", pads=[1, 1, 1, 1], strides=[2, 2]),
         h.make_node("Relu", ["c"], ["r"], name="relu_1"),
         h.make_node("Flatten", ["r"], ["f"], name="flatten_1"),
         h.make_node("Gemm", ["f", "fw", "fb"], ["y"], name="fc", transB=1)],
        [vi("x", [1, 3, 4, 4])], [vi("y", [1, 10])],
        [("w", f32(8, 3, 3, 3)), ("b", f32(8)), ("fw", f32(10, 32)), ("fb", f32(10))])


def shape_chain():
    """The exporters' dynamic reshape: Shape -> Gather -> Unsqueeze -> Concat -> Reshape."""
    return model(
        [h.make_node("Shape", ["x"], ["s"]),
         h.make_node("Gather", ["s", "zero"], ["n"], axis=0),
         h.make_node("Unsqueeze", ["n", "axes"], ["nu"]),
         h.make_node("Concat", ["nu", "minus_one"], ["shape"], axis=0),
         h.make_node("Reshape", ["x", "shape"], ["y"], name="flatten")],
        [vi("x", [2, 3, 4])], [vi("y", [2, 12])],
        [("zero", np.array(0, np.int64)), ("axes", np.array([0], np.int64)), ("minus_one", np.array([-1], np.int64))])


def qdq():
    """A QDQ conv: per-tensor activations, per-channel int8 weights, int32 bias."""
    w = rng.integers(-127, 128, (4, 2, 3, 3)).astype(np.int8)
    return model(
        [h.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"], name="q_x"),
         h.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"], name="dq_x"),
         h.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wd"], name="dq_w", axis=0),
         h.make_node("Conv", ["xd", "wd"], ["y"], name="conv")],
        [vi("x", [1, 2, 5, 5])], [vi("y", [1, 4, 3, 3])],
        [("xs", np.array(0.05, np.float32)), ("xz", np.array(3, np.int8)), ("w", w),
         ("ws", np.array([0.01, 0.02, 0.03, 0.04], np.float32)), ("wz", np.zeros(4, np.int8))])


def unsupported_op():
    return model([h.make_node("Relu", ["x"], ["r"], name="relu_0"),
                  h.make_node("StringNormalizer", ["r"], ["y"], name="norm_3")],
                 [vi("x", [3, 3])], [vi("y", [])])


def bad_attribute():
    return model([h.make_node("Conv", ["x", "w"], ["y"], name="conv_7", auto_pad="SAME_MIDDLE")],
                 [vi("x", [1, 1, 4, 4])], [vi("y", [1, 1, 4, 4])], [("w", f32(1, 1, 3, 3))])


def unknown_attribute():
    return model([h.make_node("Relu", ["x"], ["y"], name="relu_9", slope=0.5)],
                 [vi("x", [2])], [vi("y", [2])])


def dynamic_dim():
    return model([h.make_node("Relu", ["x"], ["y"], name="relu")],
                 [vi("x", ["batch", 3])], [vi("y", ["batch", 3])])


def dynamic_shapes():
    """An export with dynamic axes: x is [batch, 3, height, width] (a conv, its global
    average flattened by the exporters' Shape -> Gather -> Unsqueeze -> Concat -> Reshape),
    m is [-1, 4] (paddle2onnx's unknown size) and `scale` has no shape at all; y is
    declared [batch, -1]."""
    w, b = f32(4, 3, 3, 3), f32(4)
    return model(
        [h.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
         h.make_node("Relu", ["c"], ["r"], name="relu"),
         h.make_node("GlobalAveragePool", ["r"], ["g"], name="gap"),
         h.make_node("Shape", ["x"], ["s"], name="shape"),
         h.make_node("Gather", ["s", "zero"], ["n"], name="batch", axis=0),
         h.make_node("Unsqueeze", ["n", "zero"], ["n1"], name="unsqueeze"),
         h.make_node("Concat", ["n1", "minus1"], ["target"], name="concat", axis=0),
         h.make_node("Reshape", ["g", "target"], ["f"], name="flatten"),
         h.make_node("Add", ["f", "m"], ["a"], name="add"),
         h.make_node("Mul", ["a", "scale"], ["y"], name="mul")],
        [vi("x", ["batch", 3, "height", "width"]), vi("m", [-1, 4]), h.make_tensor_value_info("scale", T.FLOAT, None)],
        [vi("y", ["batch", -1])],
        [("w", w), ("b", b), ("zero", np.array(0, np.int64)), ("minus1", np.array([-1], np.int64))])


def stale_output_shape():
    """y declared [1, seqlen] (rank 2) while the graph computes [2, 3]: an exporter's
    stale declaration, which onnxruntime overrides with a warning."""
    return model([h.make_node("Relu", ["x"], ["y"], name="relu")], [vi("x", [2, 3])], [vi("y", [1, "seqlen"])])


def foreign_domain():
    return model([h.make_node("GroupNorm", ["x"], ["y"], name="fused_2", domain="com.microsoft")],
                 [vi("x", [2])], [vi("y", [2])],
                 opsets=[h.make_opsetid("", 17), h.make_opsetid("com.microsoft", 1)])


def runtime_shape():
    return model([h.make_node("Reshape", ["x", "s"], ["y"], name="reshape_4")],
                 [vi("x", [2, 3]), vi("s", [2], T.INT64)], [vi("y", [3, 2])])


def future_opset():
    return model([h.make_node("Relu", ["x"], ["y"])], [vi("x", [2])], [vi("y", [2])], opset=99)


def image_ops():
    """The image and layout ops exporters write: Resize (scales and sizes), Upsample-9,
    ConvTranspose, DepthToSpace, SpaceToDepth, GatherElements, MaxPool with Indices."""
    return model(
        [h.make_node("Resize", ["x", "", "scales"], ["up"], name="resize_nearest", mode="nearest",
                     coordinate_transformation_mode="asymmetric", nearest_mode="floor"),
         h.make_node("Resize", ["up", "", "", "sizes"], ["lin"], name="resize_linear", mode="linear",
                     coordinate_transformation_mode="pytorch_half_pixel"),
         h.make_node("ConvTranspose", ["lin", "w", "b"], ["ct"], name="deconv", strides=[2, 2], pads=[1, 1, 1, 1],
                     output_padding=[1, 1], group=2),
         h.make_node("DepthToSpace", ["ct"], ["d2s"], name="d2s", blocksize=2, mode="CRD"),
         h.make_node("SpaceToDepth", ["d2s"], ["s2d"], name="s2d", blocksize=2),
         h.make_node("MaxPool", ["s2d"], ["mp", "idx"], name="pool", kernel_shape=[2, 2], strides=[2, 2]),
         h.make_node("GatherElements", ["mp", "gi"], ["y"], name="gather", axis=1)],
        [vi("x", [1, 2, 3, 3])], [vi("y", [1, 2, 6, 6]), vi("idx", [1, 8, 6, 6], T.INT64)],
        [("scales", np.array([1, 1, 2, 2], np.float32)), ("sizes", np.array([1, 2, 6, 6], np.int64)),
         ("w", f32(2, 4, 3, 3)), ("b", f32(8)), ("gi", rng.integers(0, 8, (1, 2, 6, 6)).astype(np.int64))])


def upsample9():
    return model([h.make_node("Upsample", ["x", "scales"], ["y"], name="up", mode="nearest")],
                 [vi("x", [1, 1, 2, 2])], [vi("y", [1, 1, 4, 6])], [("scales", np.array([1, 1, 2, 3], np.float32))],
                 opset=9)


def resize_cubic():
    return model([h.make_node("Resize", ["x", "", "scales"], ["y"], name="resize_3", mode="cubic", cubic_coeff_a=-0.5,
                              exclude_outside=1),
                  h.make_node("Resize", ["y", "roi", "", "sizes"], ["z"], name="crop", mode="linear",
                              coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=10.0),
                  h.make_node("Resize", ["z", "", "half"], ["a"], name="aa", mode="cubic", antialias=1)],
                 [vi("x", [1, 1, 2, 2])], [vi("a", [1, 1, 2, 3])],
                 [("scales", np.array([1, 1, 2, 2], np.float32)),
                  ("roi", np.array([0, 0, 0.4, 0.6, 1, 1, 1.2, 1.7], np.float32)), ("sizes", np.array([1, 1, 3, 5], np.int64)),
                  ("half", np.array([1, 1, 0.8, 0.6], np.float32))])


def resize_crop_nearest():
    return model([h.make_node("Resize", ["x", "roi", "", "sizes"], ["y"], name="crop_nn",
                              coordinate_transformation_mode="tf_crop_and_resize")],
                 [vi("x", [1, 1, 2, 2])], [vi("y", [1, 1, 3, 3])],
                 [("roi", np.array([0, 0, 0, 0, 1, 1, 1, 1], np.float32)), ("sizes", np.array([1, 1, 3, 3], np.int64))])


def resize_channels():
    return model([h.make_node("Resize", ["x", "", "scales"], ["y"], name="resize_4")],
                 [vi("x", [1, 2, 2, 2])], [vi("y", [1, 4, 4, 4])], [("scales", np.array([1, 2, 2, 2], np.float32))])


def resize_runtime_scales():
    return model([h.make_node("Resize", ["x", "", "s"], ["y"], name="resize_5")],
                 [vi("x", [1, 1, 2, 2]), vi("s", [4])], [vi("y", [1, 1, 4, 4])])


def conv_transpose_3d():
    return model([h.make_node("ConvTranspose", ["x", "w"], ["y"], name="deconv3d")],
                 [vi("x", [1, 1, 2, 2, 2])], [vi("y", [1, 1, 3, 3, 3])], [("w", f32(1, 1, 2, 2, 2))])


def volume_ops():
    """3-D Conv (strides, pads, bias), MaxPool and AveragePool on NCDHW."""
    return model([h.make_node("Conv", ["x", "w", "b"], ["c"], name="conv3d", strides=[2, 1, 1],
                              pads=[1, 0, 0, 1, 0, 0]),
                  h.make_node("MaxPool", ["c"], ["m"], name="max3d", kernel_shape=[2, 2, 2]),
                  h.make_node("AveragePool", ["m"], ["y"], name="avg3d", kernel_shape=[1, 2, 1], pads=[0, 1, 0, 0, 0, 0],
                              count_include_pad=1)],
                 [vi("x", [1, 2, 4, 3, 3])], [vi("y", [1, 3, 2, 2, 2])],
                 [("w", f32(3, 2, 2, 1, 1)), ("b", f32(3))])


def conv_rank6():
    return model([h.make_node("Conv", ["x", "w"], ["y"], name="conv4d")],
                 [vi("x", [1, 1, 2, 2, 2, 2])], [vi("y", [1, 1, 1, 1, 1, 1])], [("w", f32(1, 1, 2, 2, 2, 2))])


def maxpool3d_indices():
    return model([h.make_node("MaxPool", ["x"], ["y", "i"], name="max3d_idx", kernel_shape=[2, 2, 2])],
                 [vi("x", [1, 1, 2, 2, 2])], [vi("y", [1, 1, 1, 1, 1]), vi("i", [1, 1, 1, 1, 1], T.INT64)])

def shape_inputs():
    """Reshape / Unsqueeze / Pad / ReduceMean / Squeeze whose shape, axes and pads are
    graph inputs (what --bind-inputs serves)."""
    return model(
        [h.make_node("Reshape", ["x", "shape"], ["r"], name="reshape"),
         h.make_node("Unsqueeze", ["r", "uaxes"], ["u"], name="unsqueeze"),
         h.make_node("Pad", ["u", "pads"], ["p"], name="pad"),
         h.make_node("ReduceMean", ["p", "raxes"], ["m"], name="mean", keepdims=1),
         h.make_node("Squeeze", ["m", "saxes"], ["y"], name="squeeze")],
        [vi("x", [2, 6]), vi("shape", [2], T.INT64), vi("uaxes", [1], T.INT64), vi("pads", [6], T.INT64),
         vi("raxes", [1], T.INT64), vi("saxes", [1], T.INT64)],
        [vi("y", [5, 6])], opset=18)


def runtime_clip():
    """Clip whose min is a graph input and max is missing."""
    return model([h.make_node("Clip", ["x", "lo"], ["y"], name="clip")],
                 [vi("x", [2, 3]), vi("lo", [])], [vi("y", [2, 3])])


def qoperator():
    """com.microsoft QLinearAdd and QGemm (transB = 0, per-column weight scales, int32
    bias, float output), as onnxruntime's QOperator quantizer writes them."""
    i8 = lambda v: np.array(v, np.int8)  # noqa: E731
    f = lambda v: np.array(v, np.float32)  # noqa: E731
    ms = "com.microsoft"
    return model(
        [h.make_node("QLinearAdd", ["a", "as", "az", "b", "bs", "bz", "ys", "yz"], ["s"], name="qadd", domain=ms),
         h.make_node("QGemm", ["s", "ys", "yz", "w", "ws", "wz", "c"], ["y"], name="qgemm", domain=ms)],
        [vi("a", [2, 4], T.INT8), vi("b", [2, 4], T.INT8)], [vi("y", [2, 3])],
        [("as", f(0.1)), ("az", i8(1)), ("bs", f(0.2)), ("bz", i8(-2)), ("ys", f(0.3)), ("yz", i8(0)),
         ("w", rng.integers(-100, 100, (4, 3)).astype(np.int8)), ("ws", f([0.01, 0.02, 0.03])),
         ("wz", np.zeros(3, np.int8)), ("c", np.array([5, -6, 7], np.int32))],
        opsets=[h.make_opsetid("", 17), h.make_opsetid(ms, 1)])


def ort_fused():
    """onnxruntime's saved fusions: FusedConv (Relu), FusedMatMul (transB, alpha),
    SkipLayerNormalization (with its sum output) and a com.microsoft Attention."""
    ms = "com.microsoft"
    return model(
        [h.make_node("FusedConv", ["x", "w", "b"], ["c"], name="fconv", domain=ms, activation="Relu",
                     pads=[1, 1, 1, 1]),
         h.make_node("Reshape", ["c", "shape"], ["r"], name="reshape"),
         h.make_node("FusedMatMul", ["r", "m"], ["t"], name="fmm", domain=ms, transB=1, alpha=0.5),
         h.make_node("SkipLayerNormalization", ["t", "r", "g"], ["n", "", "", "sum"], name="skipln", domain=ms),
         h.make_node("Attention", ["n", "qkv", "qkv_b"], ["y"], name="attn", domain=ms, num_heads=2)],
        [vi("x", [1, 2, 2, 2])], [vi("y", [1, 2, 4]), vi("sum", [1, 2, 4])],
        [("w", f32(2, 2, 3, 3)), ("b", f32(2)), ("shape", np.array([1, 2, 4], np.int64)), ("m", f32(4, 4)),
         ("g", f32(4)), ("qkv", f32(4, 12)), ("qkv_b", f32(12))],
        opsets=[h.make_opsetid("", 17), h.make_opsetid(ms, 1)])


def dynamic_quant():
    """quantize_dynamic's MatMul: DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul."""
    return model(
        [h.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"], name="dq"),
         h.make_node("MatMulInteger", ["xq", "w", "xz", "wz"], ["acc"], name="mmi"),
         h.make_node("Cast", ["acc"], ["accf"], to=T.FLOAT),
         h.make_node("Mul", ["xs", "ws"], ["s"]),
         h.make_node("Mul", ["accf", "s"], ["y"]),
         h.make_node("ConvInteger", ["img", "k", "iz"], ["c"], name="convi", pads=[1, 1, 1, 1])],
        [vi("x", [2, 4]), vi("img", [1, 2, 3, 3], T.UINT8)], [vi("y", [2, 3]), vi("c", [1, 2, 3, 3], T.INT32)],
        [("w", rng.integers(-100, 100, (4, 3)).astype(np.int8)), ("wz", np.array(0, np.int8)),
         ("ws", np.array(0.01, np.float32)), ("k", rng.integers(0, 255, (2, 2, 3, 3)).astype(np.uint8)),
         ("iz", np.array(128, np.uint8))])


def _lstm(direction="forward", **attrs):
    nd = 2 if direction == "bidirectional" else 1
    return model(
        [h.make_node("LSTM", ["x", "w", "r", "b", "", "h0"], ["y", "y_h", ""], name="lstm_1", hidden_size=2,
                     direction=direction, **attrs)],
        [vi("x", [2, 1, 3]), vi("h0", [nd, 1, 2])], [vi("y", [2, nd, 1, 2]), vi("y_h", [nd, 1, 2])],
        [("w", f32(nd, 8, 3)), ("r", f32(nd, 8, 2)), ("b", f32(nd, 16))])


def lstm():
    """A 2-step forward LSTM with initial_h (initial_c absent: zero) and a bias."""
    return _lstm()


def lstm_bidirectional():
    return _lstm("bidirectional")


def lstm_relu():
    return _lstm(activations=["Relu", "Tanh", "Tanh"])


def lstm_sequence_lens():
    m = _lstm()
    m.graph.node[0].input[4] = "lens"
    m.graph.initializer.append(nh.from_array(np.array([1], np.int32), "lens"))
    return m


def gru():
    """A 2-step forward GRU, linear_before_reset = 1, with initial_h and a bias."""
    return model(
        [h.make_node("GRU", ["x", "w", "r", "b", "", "h0"], ["", "y_h"], name="gru_1", hidden_size=2,
                     linear_before_reset=1)],
        [vi("x", [2, 1, 3]), vi("h0", [1, 1, 2])], [vi("y_h", [1, 1, 2])],
        [("w", f32(1, 6, 3)), ("r", f32(1, 6, 2)), ("b", f32(1, 12))])


def gru_activations():
    m = gru()
    m.graph.node[0].attribute.append(h.make_attribute("activations", ["Sigmoid", "Relu"]))
    return m


def if_const():
    """If on a shape test (Shape -> Gather -> Equal, known at import): then adds the
    branch's own initializer to the outer x; else (never imported) has an unsupported op."""
    then_g = h.make_graph([h.make_node("Add", ["x", "one"], ["t"], name="then_add")], "then", [],
                          [vi("t", [2, 3])], [nh.from_array(np.ones((2, 3), np.float32), "one")])
    else_g = h.make_graph([h.make_node("StringNormalizer", ["x"], ["e"], name="else_norm")], "else", [], [vi("e", [2, 3])])
    return model(
        [h.make_node("Shape", ["x"], ["s"]),
         h.make_node("Gather", ["s", "zero"], ["d0"], axis=0),
         h.make_node("Equal", ["d0", "two"], ["c"]),
         h.make_node("If", ["c"], ["y"], name="if_1", then_branch=then_g, else_branch=else_g)],
        [vi("x", [2, 3])], [vi("y", [2, 3])], [("zero", np.array(0, np.int64)), ("two", np.array(2, np.int64))])


def if_runtime():
    m = if_const()
    m.graph.input.append(vi("c_in", [], T.BOOL))
    m.graph.node[3].input[0] = "c_in"
    return m


def if_computed():
    """If on a value computed at run time (x's sum > 0)."""
    m = if_const()
    m.graph.node[3].input[0] = "positive"
    m.graph.node.insert(3, h.make_node("ReduceSum", ["x"], ["sum"], keepdims=0))
    m.graph.node.insert(4, h.make_node("Greater", ["sum", "zero_f"], ["positive"]))
    m.graph.initializer.append(nh.from_array(np.array(0, np.float32), "zero_f"))
    return m


def composed():
    """Ops relay composes from its own: LogSoftmax, ArgMax (first index), ReduceL2, Tile,
    InstanceNormalization and LRN (its window sum a banded 1x1 convolution)."""
    return model(
        [h.make_node("LogSoftmax", ["x"], ["ls"], name="logsoftmax", axis=-1),
         h.make_node("ArgMax", ["x"], ["am"], name="argmax", axis=1, keepdims=0),
         h.make_node("ReduceL2", ["x"], ["l2"], name="l2", axes=[2, 3], keepdims=1),
         h.make_node("Tile", ["l2", "reps"], ["t"], name="tile"),
         h.make_node("InstanceNormalization", ["x", "s", "b"], ["inorm"], name="inorm", epsilon=1e-3),
         h.make_node("LRN", ["inorm"], ["y"], name="lrn", size=3, alpha=1e-3, beta=0.5, bias=2.0)],
        [vi("x", [1, 3, 2, 2])], [vi("ls", [1, 3, 2, 2]), vi("am", [1, 2, 2], T.INT64), vi("t", [1, 3, 2, 4]),
                                  vi("y", [1, 3, 2, 2])],
        [("reps", np.array([1, 1, 2, 4], np.int64)), ("s", f32(3)), ("b", f32(3))], opset=17)


def tile_runtime_repeats():
    return model([h.make_node("Tile", ["x", "r"], ["y"], name="tile_rt")],
                 [vi("x", [2, 3]), vi("r", [2], T.INT64)], [vi("y", [4, 3])])


def lp_norm_p3():
    return model([h.make_node("LpNormalization", ["x"], ["y"], name="lp3", p=3)], [vi("x", [2, 3])],
                 [vi("y", [2, 3])])


def attention_gqa():
    """Attention-23 on 3-D inputs: 2 query heads sharing 1 key/value head, causal."""
    return model([h.make_node("Attention", ["q", "k", "v"], ["y"], name="attn", q_num_heads=2, kv_num_heads=1,
                              is_causal=1)],
                 [vi("q", [1, 2, 4]), vi("k", [1, 2, 2]), vi("v", [1, 2, 2])], [vi("y", [1, 2, 4])], opset=23)


def attention_3d_no_heads():
    m = attention_gqa()
    del m.graph.node[0].attribute[:]
    return m


def llm_ops():
    """The ops of exported language models: a 4-bit MatMulNBits (default zero points),
    onnxruntime's RotaryEmbedding and a GroupQueryAttention with a past of 2 and run-time
    sequence lengths."""
    ms = "com.microsoft"
    return model(
        [h.make_node("MatMulNBits", ["x", "qb", "qs"], ["q"], name="q_proj", domain=ms, K=16, N=16, bits=4,
                     block_size=16),
         h.make_node("RotaryEmbedding", ["q", "pos", "cos", "sin"], ["qr"], name="rope", domain=ms, num_heads=2),
         h.make_node("GroupQueryAttention", ["qr", "k", "v", "pk", "pv", "seqlens_k", "total"], ["y", "k2", "v2"],
                     name="gqa", domain=ms, num_heads=2, kv_num_heads=1)],
        [vi("x", [1, 3, 16]), vi("pos", [1, 3], T.INT64), vi("k", [1, 3, 8]), vi("v", [1, 3, 8]),
         vi("pk", [1, 1, 2, 8]), vi("pv", [1, 1, 2, 8]), vi("seqlens_k", [1], T.INT32)],
        [vi("y", [1, 3, 16]), vi("k2", [1, 1, 5, 8]), vi("v2", [1, 1, 5, 8])],
        [("qb", rng.integers(0, 256, (16, 1, 8)).astype(np.uint8)), ("qs", np.full(16, 0.1, np.float32)),
         ("cos", f32(8, 4)), ("sin", f32(8, 4)), ("total", np.array(5, np.int32))],
        opsets=[h.make_opsetid("", 17), h.make_opsetid(ms, 1)])


def llm_runtime_total():
    """A GroupQueryAttention whose total_sequence_length is a graph input."""
    m = llm_ops()
    m.graph.initializer.pop()
    m.graph.input.append(vi("total", [], T.INT32))
    return m


def einsum():
    """Einsum: attention scores (bhqd,bhkd), a linear layer on a constant [in, out]
    weight (bnd,dk), a diagonal (ii), an outer product (bi,bj) and a sum (bij->b)."""
    return model(
        [h.make_node("Einsum", ["q", "k"], ["scores"], name="qk", equation="bhqd,bhkd->bhqk"),
         h.make_node("Einsum", ["x", "w"], ["lin"], name="linear", equation="bnd,dk->bnk"),
         h.make_node("Einsum", ["m"], ["diag"], name="diag", equation="ii->i"),
         h.make_node("Einsum", ["a", "c"], ["outer"], name="outer", equation="bi,bj->bij"),
         h.make_node("Einsum", ["x"], ["total"], name="total", equation="bnd->b")],
        [vi("q", [1, 2, 3, 4]), vi("k", [1, 2, 5, 4]), vi("x", [2, 3, 4]), vi("m", [3, 3]), vi("a", [2, 3]),
         vi("c", [2, 4])],
        [vi("scores", None), vi("lin", None), vi("diag", None), vi("outer", None), vi("total", None)],
        [("w", f32(4, 6))])


def einsum_bad_sizes():
    return model([h.make_node("Einsum", ["a", "b"], ["y"], name="bad_einsum", equation="ij,jk->ik")],
                 [vi("a", [3, 4]), vi("b", [5, 6])], [vi("y", None)])


def llm_state():
    """The opset 24-28 ops of ops_llm_state: SwiGLU (alpha 1 and 0.5), TensorScatter with
    no write indices (slices and concatenation) and with run-time ones (circular: gather
    and where), CausalConvWithState with a past state and silu, LinearAttention (gated
    delta rule over two tokens, no past state)."""
    return model(
        [h.make_node("SwiGLU", ["a", "b"], ["glu"], name="glu"),
         h.make_node("SwiGLU", ["a", "b"], ["glu_half"], name="glu_half", alpha=0.5),
         h.make_node("TensorScatter", ["cache", "upd"], ["prefill"], name="prefill"),
         h.make_node("TensorScatter", ["cache", "upd", "pos"], ["decode"], name="decode", mode="circular"),
         h.make_node("CausalConvWithState", ["x", "cw", "cb", "past"], ["conv", "state"], name="conv",
                     activation="silu"),
         h.make_node("LinearAttention", ["q", "k", "v", "", "g", "beta"], ["att", "s"], name="att",
                     q_num_heads=2, kv_num_heads=1)],
        [vi("a", [2, 4]), vi("b", [2, 4]), vi("cache", [2, 6, 3]), vi("upd", [2, 2, 3]), vi("pos", [2], T.INT64),
         vi("x", [1, 3, 5]), vi("past", [1, 3, 2]), vi("q", [1, 2, 8]), vi("k", [1, 2, 4]), vi("v", [1, 2, 4]),
         vi("g", [1, 2, 1]), vi("beta", [1, 2, 1])],
        [vi(o, None) for o in ("glu", "glu_half", "prefill", "decode", "conv", "state", "att", "s")],
        [("cw", f32(3, 1, 3)), ("cb", f32(3))], opset=28)


def llm_state_bad(which):
    nodes = {
        "scatter_mode": (h.make_node("TensorScatter", ["cache", "upd"], ["y"], name="bad_scatter", mode="ring"),
                         [vi("cache", [2, 6, 3]), vi("upd", [2, 2, 3])]),
        "scatter_long": (h.make_node("TensorScatter", ["cache", "upd"], ["y"], name="bad_scatter"),
                         [vi("cache", [2, 6, 3]), vi("upd", [2, 7, 3])]),
        "conv_activation": (h.make_node("CausalConvWithState", ["x", "cw"], ["y", "s"], name="bad_conv",
                                        activation="gelu"), [vi("x", [1, 3, 5]), vi("cw", [3, 1, 3])]),
        "conv_weight": (h.make_node("CausalConvWithState", ["x", "cw"], ["y", "s"], name="bad_conv"),
                        [vi("x", [1, 3, 5]), vi("cw", [3, 2, 3])]),
        "attention_beta": (h.make_node("LinearAttention", ["q", "k", "v"], ["y", "s"], name="bad_att",
                                       q_num_heads=2, kv_num_heads=1, update_rule="delta"),
                           [vi("q", [1, 2, 8]), vi("k", [1, 2, 4]), vi("v", [1, 2, 4])]),
        "attention_heads": (h.make_node("LinearAttention", ["q", "k", "v"], ["y", "s"], name="bad_att",
                                        q_num_heads=3, kv_num_heads=2, update_rule="linear"),
                            [vi("q", [1, 2, 12]), vi("k", [1, 2, 8]), vi("v", [1, 2, 8])]),
    }
    node, inputs = nodes[which]
    return model([node], inputs, [vi(o, None) for o in node.output], opset=28)


def flex_attention():
    """ai.onnx.preview's FlexAttention, GQA (4 query heads, 2 key/value heads), a soft-cap
    score_mod (Div, Tanh, Mul on an initializer of the subgraph) inlined."""
    cap = h.make_graph([h.make_node("Div", ["scores", "cap"], ["d"]), h.make_node("Tanh", ["d"], ["t"]),
                        h.make_node("Mul", ["t", "cap"], ["capped"])], "softcap", [vi("scores", None)],
                       [vi("capped", None)], [h.make_tensor("cap", T.FLOAT, [], [30.0])])
    return model([h.make_node("FlexAttention", ["q", "k", "v"], ["y"], name="flex", domain="ai.onnx.preview",
                              score_mod=cap)],
                 [vi("q", [1, 4, 3, 8]), vi("k", [1, 2, 5, 8]), vi("v", [1, 2, 5, 6])], [vi("y", None)],
                 opsets=[h.make_opsetid("", 26), h.make_opsetid("ai.onnx.preview", 1)])


def flex_attention_bad():
    """A score_mod that changes the scores' shape."""
    m = flex_attention()
    m.graph.node[0].attribute[0].g.node[2].op_type = "ReduceSum"
    m.graph.node[0].attribute[0].g.node[2].input[:] = ["t"]
    return m


def signal_ops():
    """DFT-20 (one-sided, axis -2 as a constant input) of a real [1, 4, 8, 1] signal, DFT-17
    on axis 1 of a complex [2, 4, 3, 2] one (a transpose there and back), an STFT with a
    Hann window built by HannWindow (folded into the matrix) and a MelWeightMatrix (a
    constant output)."""
    return model(
        [h.make_node("DFT", ["x", "", "axis"], ["spec"], name="rfft", onesided=1),
         h.make_node("HannWindow", ["wsize"], ["win"], name="hann"),
         h.make_node("STFT", ["s", "step", "win"], ["frames"], name="stft"),
         h.make_node("MelWeightMatrix", ["bins", "n_fft", "rate", "lo", "hi"], ["mel"], name="mel")],
        [vi("x", [1, 4, 8, 1]), vi("s", [1, 32, 1])],
        [vi("spec", None), vi("frames", None), vi("mel", None)],
        [("axis", np.array(-2, np.int64)), ("wsize", np.array(8, np.int32)), ("step", np.array(6, np.int64)),
         ("bins", np.array(4, np.int64)), ("n_fft", np.array(8, np.int64)), ("rate", np.array(8000, np.int64)),
         ("lo", np.array(0.0, np.float32)), ("hi", np.array(4000.0, np.float32))], opset=20)


def dft_complex_axis():
    return model([h.make_node("DFT", ["x"], ["y"], name="dft17", axis=1, inverse=1)],
                 [vi("x", [2, 4, 3, 2])], [vi("y", None)], opset=17)


def stft_runtime_window():
    return model([h.make_node("STFT", ["s", "step", "w"], ["y"], name="stft_w", onesided=0)],
                 [vi("s", [2, 10, 1]), vi("w", [4])], [vi("y", None)], [("step", np.array(3, np.int64))], opset=17)


def dft_runtime_length():
    return model([h.make_node("DFT", ["x", "n"], ["y"], name="dft_n", axis=1)],
                 [vi("x", [1, 8, 1]), vi("n", [], T.INT64)], [vi("y", None)], opset=17)


def stft_bad_window():
    return model([h.make_node("STFT", ["s", "step", "w", "len"], ["y"], name="stft_bad")],
                 [vi("s", [1, 16, 1]), vi("w", [4])], [vi("y", None)],
                 [("step", np.array(2, np.int64)), ("len", np.array(6, np.int64))], opset=17)


def rnn():
    """An Elman RNN: LeakyRelu (alpha 0.1), bias, initial_h; Y and Y_h."""
    return model(
        [h.make_node("RNN", ["x", "w", "r", "b", "", "h0"], ["y", "y_h"], name="rnn_1", hidden_size=2,
                     activations=["LeakyRelu"], activation_alpha=[0.1])],
        [vi("x", [2, 1, 3]), vi("h0", [1, 1, 2])], [vi("y", None), vi("y_h", None)],
        [("w", f32(1, 2, 3)), ("r", f32(1, 2, 2)), ("b", f32(1, 4))], opset=22)


def rnn_bad_activation():
    m = rnn()
    del m.graph.node[0].attribute[:]
    m.graph.node[0].attribute.extend([h.make_attribute("hidden_size", 2), h.make_attribute("activations", ["Gelu"])])
    return m


def index_ops():
    """Run-time indices: torch's `x[:, idx] = v` (ScatterND), `scatter_add_`
    (ScatterElements, reduction add), a TF GatherND with batch_dims, and the two
    classification losses (labels at run time, a constant ignore_index)."""
    i64 = T.INT64
    return model(
        [h.make_node("ScatterND", ["x", "rows", "v"], ["put"], name="index_put"),
         h.make_node("ScatterElements", ["x", "cols", "u"], ["acc"], name="scatter_add", axis=1, reduction="add"),
         h.make_node("GatherND", ["x", "pick"], ["picked"], name="gather_nd", batch_dims=1),
         h.make_node("NegativeLogLikelihoodLoss", ["logp", "t", "w"], ["nll"], name="nll", ignore_index=-1),
         h.make_node("SoftmaxCrossEntropyLoss", ["logits", "t"], ["sce", "logprob"], name="sce", reduction="sum")],
        [vi("x", [3, 4]), vi("rows", [2, 1], i64), vi("v", [2, 4]), vi("cols", [3, 2], i64), vi("u", [3, 2]),
         vi("pick", [3, 2, 1], i64), vi("logp", [2, 5]), vi("t", [2], i64), vi("logits", [2, 5])],
        [vi("put", None), vi("acc", None), vi("picked", None), vi("nll", None), vi("sce", None),
         vi("logprob", None)],
        [("w", f32(5))], opset=18)


def index_ops_bad_reduction():
    return model([h.make_node("ScatterND", ["x", "i", "u"], ["y"], name="bad_scatter", reduction="avg")],
                 [vi("x", [3, 4]), vi("i", [2, 1], T.INT64), vi("u", [2, 4])], [vi("y", None)], opset=18)


def index_ops_bad_labels():
    return model([h.make_node("SoftmaxCrossEntropyLoss", ["x", "t"], ["y"], name="bad_loss")],
                 [vi("x", [3, 4, 2]), vi("t", [3, 4], T.INT64)], [vi("y", None)], opset=13)


def scan_bits():
    """CumSum, TopK (values and indices), ReverseSequence (run-time lengths), Compress
    (a constant condition), BitwiseAnd, BitShift, BitwiseNot, BitCast, Det."""
    n = h.make_node
    return model(
        [n("CumSum", ["mask", "axis"], ["pos"], name="position_ids", exclusive=1),
         n("TopK", ["logits", "k"], ["top", "top_i"], name="topk", axis=-1),
         n("ReverseSequence", ["seq", "lens"], ["rev"], name="reverse", batch_axis=1, time_axis=0),
         n("Compress", ["logits", "keep"], ["kept"], name="compress", axis=1),
         n("BitwiseAnd", ["a", "b"], ["and"], name="and"),
         n("BitShift", ["ua", "ub"], ["shr"], name="shr", direction="RIGHT"),
         n("BitwiseNot", ["a"], ["not"], name="not"),
         n("BitCast", ["logits"], ["bits"], name="bits", to=T.INT32),
         n("Det", ["mats"], ["det"], name="det")],
        [vi("mask", [2, 5], T.INT64), vi("logits", [2, 6]), vi("seq", [4, 2]), vi("lens", [2], T.INT64),
         vi("a", [2, 3], T.INT32), vi("b", [3], T.INT32), vi("ua", [3], T.UINT8), vi("ub", [3], T.UINT8), vi("mats", [2, 3, 3])],
        [vi("pos", None, T.INT64), vi("top", None), vi("top_i", None, T.INT64), vi("rev", None), vi("kept", None),
         vi("and", None, T.INT32), vi("shr", None, T.UINT8), vi("not", None, T.INT32), vi("bits", None, T.INT32),
         vi("det", None)],
        [("axis", np.array(1, np.int64)), ("k", np.array([2], np.int64)),
         ("keep", np.array([1, 0, 1, 1, 0, 0], np.bool_))], opset=26)


def scan_runtime_axis():
    return model([h.make_node("CumSum", ["x", "axis"], ["y"], name="cumsum")],
                 [vi("x", [2, 3]), vi("axis", [], T.INT64)], [vi("y", None)], opset=14)


def nonzero_runtime():
    return model([h.make_node("NonZero", ["x"], ["y"], name="nz")], [vi("x", [2, 3])], [vi("y", None, T.INT64)],
                 opset=13)


MODELS = {f.__name__: f for f in (attention_gqa, attention_3d_no_heads, composed, tile_runtime_repeats, lp_norm_p3, conv_relu, shape_chain, qdq, qdq_blocked, qdq_blocked_bad_scale, empty_results, split_negative, unsupported_op, bad_attribute, unknown_attribute,
                                   dynamic_dim, dynamic_shapes, stale_output_shape, foreign_domain, runtime_shape, future_opset, image_ops, upsample9,
                                   resize_cubic, resize_crop_nearest, resize_channels, resize_runtime_scales, conv_transpose_3d, volume_ops, conv_rank6, maxpool3d_indices,
                                   shape_inputs, runtime_clip, qoperator, ort_fused, dynamic_quant, lstm,
                                   lstm_bidirectional,
                                   lstm_relu, lstm_sequence_lens, if_const, if_runtime,
                                   if_computed, gru, gru_activations, llm_ops, llm_runtime_total, einsum,
                                   einsum_bad_sizes, signal_ops, dft_complex_axis, stft_runtime_window,
                                   dft_runtime_length, stft_bad_window, rnn, rnn_bad_activation, index_ops,
                                   index_ops_bad_reduction, index_ops_bad_labels)}

MODELS.update({"llm_state": llm_state, "flex_attention": flex_attention, "flex_attention_bad": flex_attention_bad, **{f"llm_state_bad_{w}": (lambda w=w: llm_state_bad(w)) for w in (
    "scatter_mode", "scatter_long", "conv_activation", "conv_weight", "attention_beta", "attention_heads")}})


def vision():
    """The vision ops (ops_vision): LpPool, CenterCropPad, AffineGrid feeding GridSample
    (a spatial transformer), RoiAlign, Col2Im, MaxUnpool of a MaxPool."""
    return model(
        [h.make_node("LpPool", ["x"], ["lp"], name="lp", kernel_shape=[3, 3], p=2, pads=[1, 1, 1, 1]),
         h.make_node("LpPool", ["x"], ["lp3"], name="lp3", kernel_shape=[2, 2], p=3, strides=[2, 2]),
         h.make_node("CenterCropPad", ["x", "crop"], ["cc"], name="cc", axes=[2, 3]),
         h.make_node("AffineGrid", ["theta", "size"], ["grid"], name="ag"),
         h.make_node("GridSample", ["x", "grid"], ["gs"], name="gs", mode="bicubic", padding_mode="reflection"),
         h.make_node("RoiAlign", ["x", "rois", "b"], ["ra"], name="ra", output_height=2, output_width=2,
                     mode="max", spatial_scale=0.5),
         h.make_node("Col2Im", ["cols", "image", "block"], ["im"], name="col2im", strides=[2, 2]),
         h.make_node("MaxPool", ["x"], ["mp", "mi"], name="mp", kernel_shape=[2, 2], strides=[2, 2]),
         h.make_node("MaxUnpool", ["mp", "mi"], ["mu"], name="mu", kernel_shape=[2, 2], strides=[2, 2])],
        [vi("x", [1, 2, 6, 6]), vi("theta", [1, 2, 3]), vi("rois", [3, 4]), vi("b", [3], T.INT64),
         vi("cols", [1, 8, 4])],
        [vi(o, None) for o in ("lp", "lp3", "cc", "gs", "ra", "im", "mu")],
        [("crop", np.array([4, 8], np.int64)), ("size", np.array([1, 2, 3, 5], np.int64)),
         ("image", np.array([4, 4], np.int64)), ("block", np.array([2, 2], np.int64))], opset=20)


def vision_grid_mode():
    return model([h.make_node("GridSample", ["x", "g"], ["y"], name="bad_grid", mode="area")],
                 [vi("x", [1, 1, 3, 3]), vi("g", [1, 2, 2, 2])], [vi("y", None)], opset=20)


def vision_runtime_crop():
    return model([h.make_node("CenterCropPad", ["x", "s"], ["y"], name="crop")],
                 [vi("x", [4, 4]), vi("s", [2], T.INT64)], [vi("y", None)], opset=18)


def vision_unpool_shape():
    return model([h.make_node("MaxUnpool", ["x", "i", "s"], ["y"], name="unpool", kernel_shape=[2, 2],
                              strides=[2, 2])],
                 [vi("x", [1, 1, 2, 2]), vi("i", [1, 1, 2, 2], T.INT64)], [vi("y", None)],
                 [("s", np.array([1, 1, 3, 3], np.int64))], opset=18)


def vision_deform():
    return model([h.make_node("DeformConv", ["x", "w", "off", "b", "m"], ["y"], name="dc", kernel_shape=[2, 2],
                              offset_group=2, group=2)],
                 [vi("x", [1, 4, 5, 5]), vi("off", [1, 16, 4, 4]), vi("m", [1, 8, 4, 4])], [vi("y", None)],
                 [("w", f32(6, 2, 2, 2)), ("b", f32(6))], opset=19)


MODELS.update({f.__name__: f for f in (vision, vision_grid_mode, vision_runtime_crop, vision_unpool_shape,
                                       vision_deform)})

MODELS.update({f.__name__: f for f in (scan_bits, scan_runtime_axis, nonzero_runtime)})


# -- sequences, optionals, Loop and Scan (ops_sequence.py) ---------------------------------


def sequences():
    """x [2, 6] split into [2,3] halves, y inserted at the front, the last erased:
    SequenceAt 1, the length (a constant), both concatenations and the sequence itself as
    an output (two outputs, parts[0] and parts[1]); an optional of y, unwrapped."""
    seq_t = h.make_tensor_sequence_value_info("parts", T.FLOAT, None)
    return model(
        [h.make_node("SplitToSequence", ["x", "three"], ["halves"], name="split", axis=1),
         h.make_node("SequenceInsert", ["halves", "y", "zero"], ["three_parts"], name="insert"),
         h.make_node("SequenceErase", ["three_parts"], ["parts"], name="erase"),
         h.make_node("SequenceAt", ["parts", "one"], ["second"], name="at"),
         h.make_node("SequenceLength", ["parts"], ["count"], name="length"),
         h.make_node("ConcatFromSequence", ["parts"], ["joined"], name="join", axis=1),
         h.make_node("ConcatFromSequence", ["parts"], ["stacked"], name="stack", axis=0, new_axis=1),
         h.make_node("Optional", ["y"], ["maybe_y"], name="opt"),
         h.make_node("OptionalHasElement", ["maybe_y"], ["has_y"], name="has"),
         h.make_node("OptionalGetElement", ["maybe_y"], ["got_y"], name="get")],
        [vi("x", [2, 6]), vi("y", [2, 3])],
        [vi("second", None), vi("count", None, T.INT64), vi("joined", None), vi("stacked", None), seq_t,
         vi("has_y", None, T.BOOL), vi("got_y", None)],
        [("three", np.array(3, np.int64)), ("zero", np.array(0, np.int64)), ("one", np.array(1, np.int64))],
        opset=18)


def sequence_runtime_position():
    m = sequences()
    m.graph.input.append(vi("pos", [], T.INT64))
    m.graph.node[3].input[1] = "pos"
    return m


def sequence_bad_position():
    m = sequences()
    m.graph.node[3].input[1] = "three"
    return m


def sequence_input():
    return model([h.make_node("SequenceAt", ["s", "zero"], ["y"], name="at")],
                 [h.make_tensor_sequence_value_info("s", T.FLOAT, [2])], [vi("y", None)],
                 [("zero", np.array(0, np.int64))], opset=18)


def sequence_to_add():
    return model([h.make_node("SplitToSequence", ["x"], ["s"], name="split"),
                  h.make_node("Add", ["s", "s"], ["y"], name="add")],
                 [vi("x", [2, 3])], [vi("y", None)], opset=18)


def _loop_body():
    """Loop body (i, cond, acc, seq): acc + i (as float), seq with acc*2 inserted, and the
    scan output acc * 2."""
    return h.make_graph(
        [h.make_node("Cast", ["i"], ["fi"], to=T.FLOAT),
         h.make_node("Add", ["acc", "fi"], ["acc_next"], name="body_add"),
         h.make_node("Mul", ["acc", "two_f"], ["doubled"], name="body_mul"),
         h.make_node("SequenceInsert", ["seq", "doubled"], ["seq_next"], name="body_insert"),
         h.make_node("Identity", ["cond"], ["cond_out"])],
        "body", [vi("i", [], T.INT64), vi("cond", [], T.BOOL), vi("acc", [2]),
                 h.make_tensor_sequence_value_info("seq", T.FLOAT, None)],
        [vi("cond_out", [], T.BOOL), vi("acc_next", [2]), h.make_tensor_sequence_value_info("seq_next", T.FLOAT, None),
         vi("doubled", [2])],
        [nh.from_array(np.array(2, np.float32), "two_f")])


def loop_unrolled(trips=3, cond_name="true"):
    return model(
        [h.make_node("SequenceEmpty", [], ["empty"], name="empty"),
         h.make_node("Loop", ["m", cond_name, "x", "empty"], ["acc", "seq", "scan"], name="loop", body=_loop_body()),
         h.make_node("ConcatFromSequence", ["seq"], ["joined"], name="join", axis=0)],
        [vi("x", [2])], [vi("acc", None), vi("joined", None), vi("scan", None)],
        [("m", np.array(trips, np.int64)), ("true", np.array(True))], opset=18)


def loop_too_long():
    return loop_unrolled(trips=5000)


def loop_runtime_cond():
    m = loop_unrolled()
    m.graph.node.insert(0, h.make_node("ReduceSum", ["x"], ["sum"], keepdims=0))
    m.graph.node.insert(1, h.make_node("Greater", ["sum", "zero_f"], ["positive"]))
    m.graph.node[3].input[1] = "positive"
    m.graph.initializer.append(nh.from_array(np.array(0, np.float32), "zero_f"))
    return m


def loop_body_cond():
    """A body whose condition is computed from the carried value (run time)."""
    m = loop_unrolled()
    body = m.graph.node[1].attribute[0].g
    body.node[4].CopyFrom(h.make_node("ReduceSum", ["acc"], ["s"], keepdims=0))
    body.node.append(h.make_node("Less", ["s", "two_f"], ["cond_out"], name="body_cond"))
    return m


def scan_unrolled():
    """A running sum over x's axis 1, read backwards, the partial sums stacked on axis 1."""
    body = h.make_graph([h.make_node("Add", ["s", "xt"], ["s_next"], name="scan_add"),
                         h.make_node("Identity", ["s_next"], ["partial"])],
                        "scan_body", [vi("s", [2]), vi("xt", [2])], [vi("s_next", [2]), vi("partial", [2])])
    return model([h.make_node("Scan", ["s0", "x"], ["total", "partials"], name="scan", body=body, num_scan_inputs=1,
                              scan_input_axes=[1], scan_input_directions=[1], scan_output_axes=[1])],
                 [vi("s0", [2]), vi("x", [2, 3])], [vi("total", None), vi("partials", None)], opset=18)


MODELS.update({f.__name__: f for f in (sequences, sequence_runtime_position, sequence_bad_position, sequence_input,
                                       sequence_to_add, loop_unrolled, loop_too_long, loop_runtime_cond,
                                       loop_body_cond, scan_unrolled)})


def pools():
    """GlobalLpPool (p = 2 on NCHW, p = 3 on NCDHW, p = 1 on NCL) and MaxRoiPool."""
    return model(
        [h.make_node("GlobalLpPool", ["x"], ["g2"], name="g2"),
         h.make_node("GlobalLpPool", ["v"], ["g3"], name="g3", p=3),
         h.make_node("GlobalLpPool", ["s"], ["g1"], name="g1", p=1),
         h.make_node("MaxRoiPool", ["x", "rois"], ["rp"], name="rp", pooled_shape=[2, 3], spatial_scale=0.5)],
        [vi("x", [1, 2, 6, 6]), vi("v", [1, 2, 3, 4, 5]), vi("s", [2, 3, 7]), vi("rois", [4, 5])],
        [vi(o, None) for o in ("g2", "g3", "g1", "rp")], opset=13)


def pools_bad_rois():
    return model([h.make_node("MaxRoiPool", ["x", "r"], ["y"], name="bad_rois", pooled_shape=[2, 2])],
                 [vi("x", [1, 1, 4, 4]), vi("r", [3, 4])], [vi("y", None)], opset=13)


def pools_bad_p():
    return model([h.make_node("GlobalLpPool", ["x"], ["y"], name="bad_p", p=0)],
                 [vi("x", [1, 1, 4, 4])], [vi("y", None)], opset=13)


MODELS.update({f.__name__: f for f in (pools, pools_bad_rois, pools_bad_p)})

if __name__ == "__main__":
    name, out = sys.argv[1], sys.argv[2]
    m = MODELS[name]()
    with open(out, "wb") as f:
        f.write(m.SerializeToString())
