"""ONNX sequences, optionals, Loop and Scan, statically (`compiler/frontend/onnx/ops_sequence.py`).

Random graphs built with onnx.helper (split sizes, axes, positions, trip counts, scan
directions drawn per seed) against onnxruntime, through the reference interpreter and
through C compiled for the npu target (built with -Werror and run). A sequence graph
output is one output per element (`name[0]`, `name[1]`, ...). Floats within 1e-5 of the
output's largest magnitude (the unrolled ops are the ones onnxruntime runs, in the same
order: sums may round differently only where relay fuses nothing), integers exactly.

Also: a torch `nn.EmbeddingBag` (sum and mean, with offsets bound) exported by the legacy
exporter (a Loop over the bags; tests/models/export_selection_models.py) through C, and
the refusals (one line each).
"""

from __future__ import annotations

import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as h

from accel.compiler.driver import compile_to_directory
from accel.compiler.frontend.graph_inputs import GraphInputs
from accel.compiler.frontend.onnx import SUPPORTED_OPS, import_onnx_model
from accel.compiler.frontend.onnx.importer import sequence_output_name
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.runtime.run_compiled import run_directory
from e2e_util import import_error, ort_run
from test_onnx_import import make, vi

pytest.importorskip("onnxruntime")

RTOL = 1e-5
"""Float tolerance, relative to the output's largest magnitude."""

OPS = ("SequenceConstruct", "SequenceEmpty", "SequenceAt", "SequenceInsert", "SequenceErase", "SequenceLength",
       "SplitToSequence", "ConcatFromSequence", "SequenceMap", "Optional", "OptionalHasElement",
       "OptionalGetElement", "Loop", "Scan")


def seq_vi(name, t=T.FLOAT):
    return h.make_tensor_sequence_value_info(name, t, None)


def collect(got: dict, vi: onnx.ValueInfoProto, want):
    if isinstance(want, list):
        items, i = [], 0
        while sequence_output_name(vi.name, i) in got:
            items.append(np.asarray(got[sequence_output_name(vi.name, i)]))
            i += 1
        return items
    return np.asarray(got[vi.name])


def assert_close(got, want, what: str):
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), (what, len(got), len(want))
        for i, (g, w) in enumerate(zip(got, want)):
            assert_close(g, w, f"{what}[{i}]")
        return
    assert got.shape == want.shape and got.dtype == want.dtype, (what, got.shape, got.dtype, want.shape, want.dtype)
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=0, atol=RTOL * float(np.abs(want).max(initial=1.0)), err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def check(model: onnx.ModelProto, feeds: dict, tmp_path, name: str = "m") -> dict:
    """The model's outputs through the interpreter and through C (npu) equal onnxruntime's."""
    path = str(tmp_path / f"{name}.onnx")
    onnx.save(model, path)
    want = ort_run(path, feeds)
    interp = run_function(import_onnx_model(model), feeds)
    out = str(tmp_path / f"{name}_c")
    compile_to_directory(path, "npu", out)
    compiled, _ = run_directory(out, feeds)
    for vi_ in model.graph.output:
        assert_close(collect(interp, vi_, want[vi_.name]), want[vi_.name], f"interpreter {vi_.name}")
        assert_close(collect(compiled, vi_, want[vi_.name]), want[vi_.name], f"C {vi_.name}")
    return want


def test_every_op_is_supported():
    assert set(OPS) <= SUPPORTED_OPS


# --------------------------------------------------------------------------------------
# Sequences and optionals on random shapes and attributes
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_sequence_ops_match_onnxruntime(seed, tmp_path):
    """SplitToSequence (split lengths, a scalar chunk or none, keepdims), SequenceInsert and
    SequenceErase at random positions (negative ones too), SequenceAt, SequenceLength,
    ConcatFromSequence (new_axis or not), SequenceConstruct, the sequence as an output."""
    rng = np.random.default_rng(seed)
    rank = int(rng.integers(2, 4))
    dims = [int(d) for d in rng.integers(2, 6, rank)]
    axis = int(rng.integers(-rank, rank))
    size = dims[axis]
    form = seed % 3
    inits = []
    if form == 0:  # explicit lengths
        cut = sorted(rng.choice(np.arange(1, size), int(rng.integers(1, size)), replace=False).tolist())
        lengths = np.diff([0, *cut, size]).astype(np.int64)
        split_in, keep, parts = ["x", "split"], 1, len(lengths)
        inits.append(("split", lengths))
    elif form == 1:  # a scalar chunk (the last one shorter)
        chunk = int(rng.integers(1, size))
        split_in, keep, parts = ["x", "split"], 1, -(-size // chunk)
        inits.append(("split", np.array(chunk, np.int64)))
    else:  # one element per index, keepdims 0
        split_in, keep, parts = ["x"], 0, size
    x = rng.standard_normal(dims).astype(np.float32)
    # the inserted tensor matches an element's shape only when every element has one shape
    nodes = [h.make_node("SplitToSequence", split_in, ["s"], axis=axis, keepdims=keep)]
    pos_insert = int(rng.integers(-parts, parts + 1))
    pos_erase = int(rng.integers(-parts, parts))
    pos_at = int(rng.integers(-parts, parts))
    inits += [("pi", np.array(pos_insert, np.int64)), ("pe", np.array(pos_erase, np.int64)),
              ("pa", np.array(pos_at, np.int64))]
    nodes += [h.make_node("SequenceErase", ["s", "pe"], ["s2"]),
              h.make_node("SequenceAt", ["s", "pa"], ["at"]),
              h.make_node("SequenceLength", ["s2"], ["count"])]
    outputs = [vi("at", None), vi("count", None, T.INT64), seq_vi("s2")]
    inputs = [vi("x", dims)]
    feeds = {"x": x}
    if form == 2:  # equal shapes: insert y, then stack and concatenate
        elem = dims[:axis % rank] + dims[axis % rank + 1:]
        y = rng.standard_normal(elem).astype(np.float32)
        inputs.append(vi("y", elem))
        feeds["y"] = y
        new_axis = int(rng.integers(-len(elem) - 1, len(elem) + 1))
        cat_axis = int(rng.integers(-len(elem), len(elem)))
        nodes += [h.make_node("SequenceInsert", ["s", "y", "pi"], ["s3"]),
                  h.make_node("ConcatFromSequence", ["s3"], ["stacked"], axis=new_axis, new_axis=1),
                  h.make_node("ConcatFromSequence", ["s3"], ["joined"], axis=cat_axis),
                  h.make_node("SequenceConstruct", ["y", "y", "at"], ["c"]),
                  h.make_node("ConcatFromSequence", ["c"], ["constructed"], axis=0)]
        outputs += [vi("stacked", None), vi("joined", None), vi("constructed", None)]
    else:  # elements differ along `axis`: concatenate there, after an insert of s's first
        nodes += [h.make_node("SequenceAt", ["s", "zero"], ["first"]),
                  h.make_node("SequenceInsert", ["s2", "first", "pi2"], ["s3"]),
                  h.make_node("ConcatFromSequence", ["s3"], ["joined"], axis=axis)]
        inits += [("zero", np.array(0, np.int64)), ("pi2", np.array(int(rng.integers(-(parts - 1), parts)),
                                                                    np.int64))]
        outputs.append(vi("joined", None))
    model = make(nodes, inputs, outputs, inits, opset=18)
    check(model, feeds, tmp_path)


@pytest.mark.parametrize("seed", range(3))
def test_sequence_map_and_optionals_match_onnxruntime(seed, tmp_path):
    """SequenceMap of a body with a tensor input (x * w + b per element, and each element's
    sum), then Optional / OptionalHasElement / OptionalGetElement around the result."""
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(1, 5)), int(rng.integers(2, 6))
    x = rng.standard_normal((n, d, 3)).astype(np.float32)
    w = rng.standard_normal((3,)).astype(np.float32)
    body = h.make_graph([h.make_node("Mul", ["e", "wt"], ["m"]), h.make_node("Add", ["m", "b"], ["o"]),
                         h.make_node("ReduceSum", ["o"], ["r"], keepdims=0)],
                        "map", [vi("e", [d, 3]), vi("wt", [3])], [vi("o", [d, 3]), vi("r", [])],
                        [onnx.numpy_helper.from_array(np.array(0.5, np.float32), "b")])
    model = make(
        [h.make_node("SplitToSequence", ["x"], ["s"], axis=0, keepdims=0),
         h.make_node("SequenceMap", ["s", "w"], ["mapped", "sums"], body=body),
         h.make_node("ConcatFromSequence", ["sums"], ["all_sums"], axis=0, new_axis=1),
         h.make_node("Optional", ["all_sums"], ["opt"]),
         h.make_node("OptionalHasElement", ["opt"], ["has"]),
         h.make_node("OptionalGetElement", ["opt"], ["got"]),
         h.make_node("Optional", [], ["none"], type=h.make_tensor_type_proto(T.FLOAT, [])),
         h.make_node("OptionalHasElement", ["none"], ["has_none"])],
        [vi("x", [n, d, 3]), vi("w", [3])],
        [seq_vi("mapped"), vi("got", None), vi("has", None, T.BOOL), vi("has_none", None, T.BOOL)], opset=18)
    check(model, {"x": x, "w": w}, tmp_path)


# --------------------------------------------------------------------------------------
# Loop and Scan
# --------------------------------------------------------------------------------------


def _loop_model(trips: int, limit: int | None, d: int) -> onnx.ModelProto:
    """acc += x * i (i as float), a sequence gets acc inserted at the front, the scan output
    is acc - x; with `limit`, the condition is i + 1 < limit (folds every iteration)."""
    body_nodes = [h.make_node("Cast", ["i"], ["fi"], to=T.FLOAT),
                  h.make_node("Mul", ["x", "fi"], ["xi"]),
                  h.make_node("Add", ["acc", "xi"], ["acc_next"]),
                  h.make_node("SequenceInsert", ["seq", "acc_next", "front"], ["seq_next"]),
                  h.make_node("Sub", ["acc_next", "x"], ["scan"])]
    if limit is None:
        body_nodes.append(h.make_node("Identity", ["cond"], ["cond_out"]))
    else:
        body_nodes += [h.make_node("Add", ["i", "one"], ["i1"]), h.make_node("Less", ["i1", "lim"], ["cond_out"])]
    body = h.make_graph(body_nodes, "body",
                        [vi("i", [], T.INT64), vi("cond", [], T.BOOL), vi("acc", [d]), seq_vi("seq")],
                        [vi("cond_out", [], T.BOOL), vi("acc_next", [d]), seq_vi("seq_next"), vi("scan", [d])])
    return make(
        [h.make_node("SequenceEmpty", [], ["empty"], dtype=T.FLOAT),
         h.make_node("Loop", ["m", "t", "x", "empty"], ["acc", "seq", "scans"], body=body),
         h.make_node("ConcatFromSequence", ["seq"], ["history"], axis=0, new_axis=1),
         h.make_node("SequenceLength", ["seq"], ["iterations"])],
        [vi("x", [d])], [vi("acc", None), vi("scans", None), vi("history", None), vi("iterations", None, T.INT64)],
        [("m", np.array(trips, np.int64)), ("t", np.array(True)), ("front", np.array(0, np.int64)),
         ("one", np.array(1, np.int64)), ("lim", np.array(limit or 0, np.int64))], opset=18)


@pytest.mark.parametrize("seed", range(4))
def test_loop_matches_onnxruntime(seed, tmp_path):
    rng = np.random.default_rng(seed)
    trips = int(rng.integers(1, 7))
    limit = None if seed % 2 == 0 else int(rng.integers(1, trips + 1))
    d = int(rng.integers(1, 5))
    x = rng.standard_normal(d).astype(np.float32)
    model = _loop_model(trips if limit is None else 10_000, limit, d)
    if seed == 3:  # no trip count: the condition alone ends the loop
        model = _without_trip_count(model)
    want = check(model, {"x": x}, tmp_path)
    assert int(want["iterations"]) == (trips if limit is None else limit)


@pytest.mark.parametrize("seed", range(4))
def test_scan_matches_onnxruntime(seed, tmp_path):
    """Two states (a running sum and a running max), two scan inputs on random axes and
    directions, two scan outputs on random axes and directions."""
    rng = np.random.default_rng(seed)
    steps, a, b = (int(v) for v in rng.integers(1, 5, 3))
    in_axes = [int(rng.integers(-2, 2)), int(rng.integers(-2, 2))]
    in_dirs = [int(v) for v in rng.integers(0, 2, 2)]
    out_axes = [int(rng.integers(-2, 2)), int(rng.integers(-3, 3))]
    out_dirs = [int(v) for v in rng.integers(0, 2, 2)]

    def scanned(axis):
        return [steps, a] if axis % 2 == 0 else [a, steps]

    x1 = rng.standard_normal(scanned(in_axes[0])).astype(np.float32)
    x2 = rng.standard_normal(scanned(in_axes[1])).astype(np.float32)
    body = h.make_graph([h.make_node("Add", ["s", "e1"], ["s_next"]),
                         h.make_node("Max", ["mx", "e2"], ["mx_next"]),
                         h.make_node("Mul", ["e1", "e2"], ["prod"]),
                         h.make_node("Unsqueeze", ["s_next", "ax0"], ["tmp"]),
                         h.make_node("Expand", ["tmp", "shape"], ["block"])],
                        "body", [vi("s", [a]), vi("mx", [a]), vi("e1", [a]), vi("e2", [a])],
                        [vi("s_next", [a]), vi("mx_next", [a]), vi("prod", [a]), vi("block", [b, a])],
                        [onnx.numpy_helper.from_array(np.array([0], np.int64), "ax0"),
                         onnx.numpy_helper.from_array(np.array([b, a], np.int64), "shape")])
    model = make([h.make_node("Scan", ["s0", "m0", "x1", "x2"], ["s", "mx", "prods", "blocks"], body=body,
                              num_scan_inputs=2, scan_input_axes=in_axes, scan_input_directions=in_dirs,
                              scan_output_axes=out_axes, scan_output_directions=out_dirs)],
                 [vi("s0", [a]), vi("m0", [a]), vi("x1", list(x1.shape)), vi("x2", list(x2.shape))],
                 [vi("s", None), vi("mx", None), vi("prods", None), vi("blocks", None)], opset=18)
    feeds = {"s0": rng.standard_normal(a).astype(np.float32), "m0": np.full(a, -1, np.float32), "x1": x1, "x2": x2}
    check(model, feeds, tmp_path)


# --------------------------------------------------------------------------------------
# torch nn.EmbeddingBag (legacy exporter: a Loop over the bags into a sequence)
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_torch_embedding_bag_through_c(mode, tmp_path):
    """torch's nn.EmbeddingBag and a Linear (legacy exporter, opset 17;
    tests/models/export_selection_models.py): a Loop over the bags. With the offsets bound
    (they fix the bags), the ids at run time: onnxruntime's result through the interpreter
    and C (npu); unbound, one line."""
    path = os.path.join(os.path.dirname(__file__), "models", f"embedding_bag_{mode}_legacy.onnx")
    model = onnx.load(path)
    assert "Loop" in {n.op_type for n in model.graph.node}
    offsets = np.array([0, 2, 7], np.int64)
    # offsets unbound: the body's Slice bounds come from them (one line)
    assert import_error(model).endswith("node '/bag/Slice_1' (Slice): input 1 of Slice ('/bag/Unsqueeze_1_output_0') "
                                        "must be a constant; a value computed at run time is not supported")
    bind = {"offsets": offsets}
    out = str(tmp_path / "bag_c")
    compile_to_directory(path, "npu", out, inputs=GraphInputs(values=bind))
    imported = import_onnx_model(model, weights_path=path, bind_inputs=bind)
    for seed in range(3):
        ids = np.random.default_rng(seed).integers(0, 20, 10).astype(np.int64)
        want = ort_run(path, {"ids": ids, "offsets": offsets})["y"]
        assert_close(run_function(imported, {"ids": ids})["y"], want, "interpreter y")
        got, _ = run_directory(out, {"ids": ids})
        assert_close(got["y"], want, "C y")


# --------------------------------------------------------------------------------------
# Refusals: one line each
# --------------------------------------------------------------------------------------


def _split_model(extra_nodes, extra_inputs=(), inits=(), outputs=None):
    return make([h.make_node("SplitToSequence", ["x"], ["s"], axis=0), *extra_nodes],
                [vi("x", [3, 2]), *extra_inputs], outputs or [vi("y", None)], list(inits), opset=18)


@pytest.mark.parametrize("model, message", [
    (lambda: _split_model([h.make_node("SequenceAt", ["s", "p"], ["y"], name="at")], [vi("p", [], T.INT64)]),
     "node 'at' (SequenceAt): the position input ('p') must be a constant; it is a graph input: bind it with "
     "--bind-inputs p=VALUE"),
    (lambda: _split_model([h.make_node("SequenceErase", ["s", "p"], ["e"], name="erase"),
                           h.make_node("SequenceAt", ["e", "zero"], ["y"])], inits=[("p", np.array(3, np.int64)),
                                                                                  ("zero", np.array(0, np.int64))]),
     "node 'erase' (SequenceErase): position 3 is out of range [-3, 2] for a sequence of 3 tensors"),
    (lambda: _split_model([h.make_node("Relu", ["s"], ["y"], name="relu")]),
     "node 'relu' (Relu): input 's' is a sequence; Relu takes tensors"),
    (lambda: make([h.make_node("SequenceEmpty", [], ["s"], name="empty"),
                   h.make_node("ConcatFromSequence", ["s"], ["y"], name="cat", axis=0)], [], [vi("y", None)], opset=18),
     "node 'cat' (ConcatFromSequence): the sequence is empty: its concatenation has no shape"),
    (lambda: make([h.make_node("SequenceEmpty", [], ["y"], name="empty")], [], [seq_vi("y")], opset=18),
     "graph output 'y' is an empty sequence; a sequence graph output must have elements (each becomes an output)"),
    (lambda: make([h.make_node("Optional", [], ["o"], type=h.make_tensor_type_proto(T.FLOAT, [])),
                   h.make_node("OptionalGetElement", ["o"], ["y"], name="get")], [], [vi("y", None)], opset=18),
     "node 'get' (OptionalGetElement): the optional ('o') is empty"),
    (lambda: make([h.make_node("Identity", ["s"], ["y"])], [seq_vi("s")], [seq_vi("y")], opset=18),
     "graph input 's' is a sequence: it must be known at import time"),
    (lambda: _loop_model(5000, None, 2), "5000 iterations: more than the 4096 unrolled at import"),
    (lambda: _loop_model(100_000, 5000, 2), "4097 iterations: more than the 4096 unrolled at import"),
    (lambda: _without_trip_count(_loop_model(3, None, 2)),
     "no trip count M and the body passes its condition (true) through: the loop never ends"),
])  # fmt: skip
def test_refusals_are_one_line(model, message):
    assert message in import_error(model())


def _without_trip_count(m: onnx.ModelProto) -> onnx.ModelProto:
    m.graph.node[1].input[0] = ""
    return m


def test_runtime_loop_condition_is_refused():
    m = _loop_model(3, None, 2)
    m.graph.node.insert(0, h.make_node("ReduceSum", ["x"], ["sx"], keepdims=0))
    m.graph.node.insert(1, h.make_node("Greater", ["sx", "zf"], ["t_rt"]))
    m.graph.initializer.append(onnx.numpy_helper.from_array(np.array(0, np.float32), "zf"))
    m.graph.node[3].input[1] = "t_rt"
    m.graph.node[3].name = "the_loop"
    assert import_error(m).endswith("node 'the_loop' (Loop): the condition is computed at run time; only a Loop "
                                    "whose condition is known at import time (a constant, or computed from "
                                    "constants and the iteration number) is supported")
