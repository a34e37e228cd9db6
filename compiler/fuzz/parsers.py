"""Crash fuzzing of the parsers: malformed IR text, ONNX bytes and target TOML must each
give one clean error (a `CompileError`, xDSL's `ParseError`/`VerifyException`/
`DiagnosticException`: the exceptions the tools print as one located line), never
another Python exception (which the tools would print as "internal error", or as a bare
message without a location).

Inputs are mutations of valid ones:

- IR: the text of a random relay graph (`graphs.relay_graphs`), with lines deleted,
  duplicated or swapped, characters deleted, tokens inserted, numbers replaced by edge
  values (0, -1, 2^31, 2^63, 1e309), or cut short; parsed and verified (`load_model`);
- ONNX: small valid models built here, mutated structurally (op types, attribute values,
  dims, dtypes, dropped inputs/initializers) or as bytes (flips, cuts, splices);
  imported (`load_model`);
- TOML: the built-in descriptions with lines deleted or duplicated, values replaced by
  values of other types or edge values; loaded, then a small graph is compiled to C for
  it (so every key is used, not only read).

`fuzz_parser_one(seed, i)` draws input `i` of `seed` (kind by i % 3) and returns an
`Outcome`; mutated inputs that are still valid pass.
"""

from __future__ import annotations

import os
import re
import tempfile
import traceback
import warnings
from random import Random

import numpy as np
import onnx
from onnx import TensorProto
from onnx import helper as oh
from onnx import numpy_helper as nh
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException

from accel.compiler.backend.c_emitter import ModelEmitter
from accel.compiler.diagnostics import CompileError, ModelWarning, format_error
from accel.compiler.driver import compile_module, load_model, make_context, print_ir
from accel.compiler.frontend.builder import GraphBuilder
from accel.compiler.fuzz.differential import Outcome, case_random, draw_from
from accel.compiler.fuzz.targets import BASES, base_text

CLEAN = (CompileError, ParseError, VerifyException, DiagnosticException)
KINDS = ("ir", "onnx", "toml")

EDGE_NUMBERS = ("0", "-1", "1", "2147483648", "9223372036854775808", "1e309", "-0", "nan", "999999999999")
IR_TOKENS = ("%", "{", "}", "(", ")", "<", ">", ":", ",", "x", "?", "-1", "0", '"', "relay.", "tensor<", "->",
             "dense<", "[", "]", "=", "@main", "^bb0", "f32", "i8", "!", "#", "\\", "\x00", "é")
TOML_VALUES = ('""', '"x"', "0", "-1", "1e309", "[]", "[0]", '["f32"]', "{}", "true", "99999999999999999999",
               '"relay.nn.conv2d"', '"npu_nope"', "[[1, 1]]", '"../../etc/passwd"', '"{accel_sim}/none.c"')


# --------------------------------------------------------------------------------------
# Mutations
# --------------------------------------------------------------------------------------


def mutate_text(rng: Random, text: str, tokens: tuple[str, ...], numbers: tuple[str, ...]) -> str:
    for _ in range(rng.randint(1, 3)):
        lines = text.split("\n")
        how = rng.randrange(7)
        i = rng.randrange(len(lines))
        if how == 0 and len(lines) > 1:
            del lines[i]
        elif how == 1:
            lines.insert(i, lines[rng.randrange(len(lines))])
        elif how == 2:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif how == 3 and lines[i]:
            a = rng.randrange(len(lines[i]))
            lines[i] = lines[i][:a] + lines[i][a + rng.randint(1, 4):]
        elif how == 4:
            a = rng.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:a] + rng.choice(tokens) + lines[i][a:]
        elif how == 5:
            spans = [m.span() for m in re.finditer(r"-?\d+(\.\d+)?(e-?\d+)?", text)]
            if spans:
                a, b = rng.choice(spans)
                text = text[:a] + rng.choice(numbers) + text[b:]
                continue
        else:
            text = text[: rng.randrange(len(text) + 1)]
            continue
        text = "\n".join(lines)
    return text


def seed_models() -> list[onnx.ModelProto]:
    """Small valid models: conv + relu + pool + gemm, a QDQ conv, and onnxruntime's fused
    com.microsoft ops (as its graph optimizer saves them)."""
    rng = np.random.default_rng(0)
    f = lambda *s: nh.from_array(rng.standard_normal(s).astype(np.float32))  # noqa: E731
    inits = [f(4, 3, 3, 3), f(4), f(10, 16)]
    for t, name in zip(inits, ("w", "b", "fc")):
        t.name = name
    nodes = [
        oh.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1], strides=[1, 1], name="conv"),
        oh.make_node("Relu", ["c"], ["r"], name="relu"),
        oh.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2], name="pool"),
        oh.make_node("Flatten", ["p"], ["flat"], axis=1, name="flat"),
        oh.make_node("Gemm", ["flat", "fc"], ["y"], transB=1, name="fc"),
    ]
    graph = oh.make_graph(nodes, "cnn", [oh.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 4])],
                          [oh.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], inits)
    cnn = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 17)])
    q = [nh.from_array(np.array(0.05, np.float32), "s"), nh.from_array(np.array(0, np.int8), "z"),
         nh.from_array(rng.integers(-4, 5, (2, 3, 1, 1)).astype(np.int8), "wq")]
    qnodes = [
        oh.make_node("QuantizeLinear", ["x", "s", "z"], ["xq"], name="q"),
        oh.make_node("DequantizeLinear", ["xq", "s", "z"], ["xd"], name="dq"),
        oh.make_node("DequantizeLinear", ["wq", "s", "z"], ["wd"], name="wdq"),
        oh.make_node("Conv", ["xd", "wd"], ["y"], name="qconv"),
    ]
    qgraph = oh.make_graph(qnodes, "qdq", [oh.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 4])],
                           [oh.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 4, 4])], q)
    return [cnn, oh.make_model(qgraph, opset_imports=[oh.make_opsetid("", 17)]), ort_saved_model(rng), llm_model(rng),
            kv_cache_model(rng)]


def ort_saved_model(rng: np.random.Generator) -> onnx.ModelProto:
    """FusedConv, FusedMatMul, QuickGelu, DynamicQuantizeMatMul, SkipLayerNormalization,
    Attention and EmbedLayerNormalization in one graph."""
    f = lambda name, *s: nh.from_array(rng.standard_normal(s).astype(np.float32), name)  # noqa: E731
    ms = "com.microsoft"
    inits = [f("w", 4, 3, 3, 3), f("b", 4), f("m", 8, 8), f("qkv", 8, 24), f("qkv_b", 24), f("g", 8),
             nh.from_array(rng.integers(-8, 8, (8, 8)).astype(np.int8), "wq"), nh.from_array(np.float32(0.1), "ws"),
             nh.from_array(np.array([[1, 2]], np.int32), "ids"), f("word", 4, 8), f("pos", 4, 8),
             nh.from_array(np.array(2.0, np.float32), "two")]
    nodes = [
        oh.make_node("FusedConv", ["x", "w", "b"], ["c"], domain=ms, activation="Relu", pads=[1, 1, 1, 1], name="fconv"),
        oh.make_node("Reshape", ["c", "shape"], ["r"], name="reshape"),
        oh.make_node("FusedMatMul", ["r", "m"], ["h"], domain=ms, alpha=0.5, name="fmm"),
        oh.make_node("QuickGelu", ["h"], ["q"], domain=ms, alpha=1.5, name="qgelu"),
        oh.make_node("DynamicQuantizeMatMul", ["q", "wq", "ws"], ["d"], domain=ms, name="dqmm"),
        oh.make_node("EmbedLayerNormalization", ["ids", "", "word", "pos", "", "g", "b8"], ["e", "mi"], domain=ms,
                     name="embed"),
        oh.make_node("SkipLayerNormalization", ["d", "e", "g"], ["s"], domain=ms, epsilon=1e-5, name="skipln"),
        oh.make_node("Attention", ["s", "qkv", "qkv_b"], ["a"], domain=ms, num_heads=2, name="attn"),
        oh.make_node("Mul", ["a", "two"], ["y"], name="mul"),
    ]
    inits += [nh.from_array(np.array([1, 2, 8], np.int64), "shape"), nh.from_array(np.zeros(8, np.float32), "b8")]
    graph = oh.make_graph(nodes, "ort_saved", [oh.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 2, 2])],
                          [oh.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 8])], inits)
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", 17), oh.make_opsetid(ms, 1)])


def llm_model(rng: np.random.Generator) -> onnx.ModelProto:
    """MatMulNBits, RotaryEmbedding, a rotary GroupQueryAttention with a KV cache and a
    GatherBlockQuantized embedding."""
    ms = "com.microsoft"
    f = lambda name, *s: nh.from_array(rng.standard_normal(s).astype(np.float32), name)  # noqa: E731
    inits = [nh.from_array(rng.integers(0, 256, (16, 1, 8)).astype(np.uint8), "qb"),
             nh.from_array(np.full(16, 0.1, np.float32), "qs"), nh.from_array(np.array([0x88] * 16, np.uint8), "qz"),
             f("cos", 8, 4), f("sin", 8, 4), nh.from_array(np.array(5, np.int32), "total"),
             nh.from_array(np.array([4], np.int32), "lens"), nh.from_array(np.array([[2, 3, 4]], np.int64), "pos")]
    nodes = [
        oh.make_node("MatMulNBits", ["x", "qb", "qs", "qz"], ["q"], domain=ms, K=16, N=16, bits=4, block_size=16,
                     name="q_proj"),
        oh.make_node("RotaryEmbedding", ["q", "pos", "cos", "sin"], ["qr"], domain=ms, num_heads=2, name="rope"),
        oh.make_node("GroupQueryAttention", ["qr", "k", "v", "pk", "pv", "lens", "total", "cos", "sin"],
                     ["y", "k2", "v2"], domain=ms, num_heads=2, kv_num_heads=1, do_rotary=1, name="gqa"),
        oh.make_node("GatherBlockQuantized", ["table", "ids", "ts"], ["emb"], domain=ms, bits=4, block_size=16,
                     name="embed"),
    ]
    inits += [nh.from_array(rng.integers(0, 256, (8, 8)).astype(np.uint8), "table"),
              nh.from_array(np.full((8, 1), 0.1, np.float32), "ts"), nh.from_array(np.array([1, 7]), "ids")]
    vi = lambda name, *s: oh.make_tensor_value_info(name, TensorProto.FLOAT, s)  # noqa: E731
    graph = oh.make_graph(nodes, "llm", [vi("x", 1, 3, 16), vi("k", 1, 3, 8), vi("v", 1, 3, 8), vi("pk", 1, 1, 2, 8),
                                          vi("pv", 1, 1, 2, 8)],
                          [vi("y", 1, 3, 16), vi("k2", 1, 1, 5, 8), vi("v2", 1, 1, 5, 8), vi("emb", 2, 16)], inits)
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", 17), oh.make_opsetid(ms, 1)])


def kv_cache_model(rng: np.random.Generator) -> onnx.ModelProto:
    """onnxruntime's Attention with `past` / `present` and MultiHeadAttention with
    past_key / past_value, then with keys given heads first (a decoder step)."""
    ms = "com.microsoft"
    f = lambda name, *s: nh.from_array(rng.standard_normal(s).astype(np.float32), name)  # noqa: E731
    inits = [f("w", 8, 24), f("b", 24), f("mb", 24)]
    nodes = [
        oh.make_node("Attention", ["x", "w", "b", "", "past"], ["a", "present"], domain=ms, num_heads=2,
                     unidirectional=1, name="self_attn"),
        oh.make_node("MultiHeadAttention", ["a", "k", "v", "mb", "", "", "pk", "pv"], ["m", "pk2", "pv2"], domain=ms,
                     num_heads=2, name="mha"),
        oh.make_node("MultiHeadAttention", ["m", "pk2", "pv2"], ["y"], domain=ms, num_heads=2, name="cross"),
    ]
    vi = lambda name, *s: oh.make_tensor_value_info(name, TensorProto.FLOAT, s)  # noqa: E731
    graph = oh.make_graph(nodes, "kv_cache", [vi("x", 1, 1, 8), vi("past", 2, 1, 2, 3, 4), vi("k", 1, 1, 8),
                                               vi("v", 1, 1, 8), vi("pk", 1, 2, 2, 4), vi("pv", 1, 2, 2, 4)],
                          [vi("y", 1, 1, 8), vi("present", 2, 1, 2, 4, 4), vi("pk2", 1, 2, 3, 4),
                           vi("pv2", 1, 2, 3, 4)], inits)
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", 17), oh.make_opsetid(ms, 1)])


def mutate_model(rng: Random, model: onnx.ModelProto) -> bytes:
    m = onnx.ModelProto()
    m.CopyFrom(model)
    g = m.graph
    for _ in range(rng.randint(1, 2)):
        how = rng.randrange(8)
        node = rng.choice(g.node)
        if how == 0:
            node.op_type = rng.choice(["Conv", "Relu", "Gemm", "Foo", "", "Reshape", "Concat", "Softmax", "Pad"])
        elif how == 1 and node.input:
            del node.input[rng.randrange(len(node.input))]
        elif how == 2 and node.attribute:
            a = rng.choice(node.attribute)
            if a.ints:
                a.ints[rng.randrange(len(a.ints))] = rng.choice([0, -1, -3, 2**31, 2**62, 7])
            else:
                a.i = rng.choice([0, -1, 2**40, 5])
        elif how == 3:
            vi = rng.choice([*g.input, *g.output])
            dims = vi.type.tensor_type.shape.dim
            if dims:
                d = dims[rng.randrange(len(dims))]
                if rng.random() < 0.3:
                    d.dim_param = "N"
                else:
                    d.dim_value = rng.choice([0, 1, 2**20, 2**40, 7])
        elif how == 4:
            vi = rng.choice([*g.input, *g.output])
            vi.type.tensor_type.elem_type = rng.choice([0, TensorProto.INT8, TensorProto.DOUBLE, TensorProto.STRING, 99])
        elif how == 5 and g.initializer:
            del g.initializer[rng.randrange(len(g.initializer))]
        elif how == 6 and g.initializer:
            t = rng.choice(g.initializer)
            if t.dims:
                t.dims[rng.randrange(len(t.dims))] = rng.choice([0, 1, 3, 2**33])
            else:
                t.data_type = rng.choice([TensorProto.INT64, TensorProto.STRING, 0])
        else:
            node.output[0] = rng.choice(["x", "", node.input[0] if node.input else "q", "y"])
    data = m.SerializeToString()
    if rng.random() < 0.3:  # bytes: flip, cut, splice
        b = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        if rng.random() < 0.3:
            b = b[: rng.randrange(len(b))]
        data = bytes(b)
    return data


# --------------------------------------------------------------------------------------
# Running one input
# --------------------------------------------------------------------------------------

_SMALL_GRAPH = None


def small_graph_text() -> str:
    """conv + bias + relu + dense: ops every base target takes something of."""
    global _SMALL_GRAPH
    if _SMALL_GRAPH is None:
        b = GraphBuilder()
        x = b.input("x", (1, 3, 6, 6))
        y = b.relu(b.bias_add(b.conv2d(x, b.const(np.ones((4, 3, 3, 3), np.float32)), padding=(1, 1, 1, 1)),
                              b.const(np.ones(4, np.float32))))
        z = b.dense(b.batch_flatten(y), b.const(np.ones((5, 144), np.float32)))
        _SMALL_GRAPH = print_ir(b.build([z], ["y"]))
    return _SMALL_GRAPH


def check_clean(kind: str, run) -> tuple[str, str]:
    """('passed' | 'rejected' | 'failed', message). A mutated model may warn (a declared
    output shape it does not compute): that is a clean outcome too, and it passes."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ModelWarning)
            run()
    except CLEAN as e:
        line = format_error(e)
        if "\n" in line or not line.strip():
            return "failed", f"{kind}: not one line: {line!r}"
        return "rejected", line
    except RecursionError:
        return "rejected", "nested too deeply"
    except Exception as e:
        frames = traceback.extract_tb(e.__traceback__)
        where = f"{os.path.basename(frames[-1].filename)}:{frames[-1].lineno}" if frames else "?"
        return "failed", f"{kind}: {type(e).__name__} at {where}: {str(e)[:200]}"
    return "passed", ""


def fuzz_parser_one(seed: int, index: int, failures_dir: str | None = None) -> Outcome:
    rng = case_random(seed, index)
    kind = KINDS[index % len(KINDS)]
    with tempfile.TemporaryDirectory(prefix="accel-fuzz-parse-") as tmp:
        if kind == "ir":
            case, _ = draw_from(rng, 6)
            text = mutate_text(rng, case.graph.text(), IR_TOKENS, EDGE_NUMBERS)
            path = os.path.join(tmp, "input.mlir")
            with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(text)
            run = lambda: load_model(path, make_context())  # noqa: E731
        elif kind == "onnx":
            path = os.path.join(tmp, "input.onnx")
            with open(path, "wb") as f:
                f.write(mutate_model(rng, rng.choice(seed_models())))
            run = lambda: load_model(path, make_context())  # noqa: E731
        else:
            base = rng.choice(BASES)
            path = os.path.join(tmp, f"{base}.toml")
            with open(path, "w") as f:
                f.write(mutate_text(rng, base_text(base), TOML_VALUES, EDGE_NUMBERS))
            graph = os.path.join(tmp, "graph.mlir")
            with open(graph, "w") as f:
                f.write(small_graph_text())

            def run() -> None:
                ctx = make_context(path)
                module, _ = compile_module(load_model(graph, ctx), ctx, "full")
                ModelEmitter(module, ctx.targets.of_regions(module), ctx.targets).emit()

        status, message = check_clean(kind, run)
        regression = ""
        if status == "failed" and failures_dir is not None:
            regression = os.path.join(failures_dir, f"parser-seed{seed}-case{index}{os.path.splitext(path)[1]}")
            with open(path, "rb") as src, open(regression, "wb") as dst:
                dst.write(src.read())
    return Outcome(index, "still valid" if status == "passed" else status, message, regression)
