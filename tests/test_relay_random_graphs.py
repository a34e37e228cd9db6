"""Properties of random valid relay graphs (see `accel.compiler.fuzz.graphs`):

1. printing is a fixed point: print -> parse -> print gives the same text, in the custom
   and in the generic form, and the generic form parses back to the custom text;
2. the parsed module computes what the original computes (reference interpreter,
   bit for bit).
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp, TensorType, f32
from xdsl.dialects.func import Func
from xdsl.parser import Parser
from xdsl.printer import Printer

from accel.compiler.runtime.interpreter import run_function
from accel.dialects import relay, xdsl_fixes
from accel.compiler.fuzz.graphs import FLOAT_OPS, NEW_OP_KINDS, OP_KINDS, QUANTIZED_OPS, RelayGraph, relay_graphs

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def parse(text: str) -> ModuleOp:
    """The relay dialect on xDSL's own context, with accel's reading of MLIR's hex float
    literals (which the compile's context installs; the generic form prints -inf so)."""
    xdsl_fixes.install()
    ctx = Context()
    for dialect in (Builtin, Func, relay.Relay):
        ctx.load_dialect(dialect)
    module = Parser(ctx, text).parse_module()
    module.verify()
    return module


def print_module(module: ModuleOp, generic: bool = False) -> str:
    out = io.StringIO()
    Printer(stream=out, print_generic_format=generic).print_op(module)
    return out.getvalue()


@SETTINGS
@given(relay_graphs(max_ops=12))
def test_custom_form_round_trips(graph: RelayGraph):
    text = print_module(graph.module)
    assert print_module(parse(text)) == text


@SETTINGS
@given(relay_graphs(max_ops=12))
def test_generic_form_round_trips(graph: RelayGraph):
    generic = print_module(graph.module, generic=True)
    parsed = parse(generic)
    assert print_module(parsed, generic=True) == generic
    assert print_module(parsed) == print_module(graph.module)


def assert_same_results(expected: dict[str, np.ndarray], got: dict[str, np.ndarray]):
    assert list(got) == list(expected)
    for name, want in expected.items():
        assert got[name].dtype == want.dtype, name
        assert got[name].shape == want.shape, name
        np.testing.assert_array_equal(got[name], want, err_msg=name)  # nan == nan here


@SETTINGS
@given(relay_graphs(max_ops=12))
def test_parsed_module_computes_the_same_values(graph: RelayGraph):
    # (the generic form parses to the same custom text, see above, so one form suffices)
    expected = run_function(graph.module, graph.inputs)
    parsed = parse(print_module(graph.module))
    assert_same_results(expected, run_function(parsed, graph.inputs))


# --------------------------------------------------------------------------------------
# The strategy itself (other suites build on it)
# --------------------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(relay_graphs(max_ops=8, ops=FLOAT_OPS))
def test_float_ops_make_float_graphs(graph: RelayGraph):
    assert set(graph.kinds) <= FLOAT_OPS
    for op in graph.module.walk():
        for result in op.results:
            if isinstance(result.type, TensorType) and not isinstance(op, relay.ConstantOp):
                assert result.type.element_type == f32 or isinstance(op, relay.CastOp), op


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_restricted_kinds_and_sizes(data):
    kinds = data.draw(st.sets(st.sampled_from(OP_KINDS), min_size=1, max_size=4))
    graph = data.draw(relay_graphs(max_ops=6, ops=kinds, min_ops=1))
    assert 1 <= len(graph.kinds) <= 6
    assert set(graph.kinds) <= kinds
    # every op result is used or returned: nothing is dead
    fn = graph.module.body.block.first_op
    returned = set(fn.body.block.last_op.operands)
    for op in fn.body.block.ops:
        for result in op.results:
            assert result.uses or result in returned, op
    # the inputs match @main's signature
    for arg, (name, value) in zip(fn.body.block.args, graph.inputs.items()):
        assert tuple(arg.type.get_shape()) == value.shape, name


@settings(max_examples=20, deadline=None)
@given(relay_graphs(max_ops=6, ops=QUANTIZED_OPS))
def test_quantized_kinds_build_8bit_chains(graph: RelayGraph):
    names = {op.name for op in graph.module.walk()}
    assert "relay.qnn.quantize" in names


def test_unknown_kind_is_rejected():
    @given(relay_graphs(ops={"softplus"}))
    def draw(graph):
        pass

    with pytest.raises(ValueError, match="unknown op kinds \\['softplus'\\]"):
        draw()


NEW_OP_NAMES = {"cumsum": "relay.cumsum", "topk": "relay.topk", "left_shift": "relay.left_shift",
                "det": "relay.det", "gather_nd": "relay.gather_nd", "scatter_nd": "relay.scatter_nd",
                "roi_pool": "relay.vision.roi_pool", "max_unpool": "relay.nn.max_unpool"}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(relay_graphs(max_ops=8, ops=NEW_OP_KINDS))
def test_the_newer_kinds_build_valid_graphs_the_interpreter_runs(graph: RelayGraph):
    """The newer kinds (scans, top k, bit ops, det, gathers and scatters, image and
    vision ops): verified graphs whose indices are in range (the interpreter raises on
    any index outside), integer values int32/int64, round trips of the text."""
    assert set(graph.kinds) <= set(NEW_OP_KINDS)
    names = {op.name for op in graph.module.walk()}
    for kind in graph.kinds:
        if kind in NEW_OP_NAMES:
            assert NEW_OP_NAMES[kind] in names, kind
    run_function(graph.module, graph.inputs)
    text = print_module(graph.module)
    assert print_module(parse(text)) == text


def test_the_default_draws_only_the_classic_kinds():
    """relay_graphs without `ops` draws OP_KINDS, which holds none of the newer kinds (the
    graphs earlier seeds drew stay the same)."""
    assert not set(OP_KINDS) & set(NEW_OP_KINDS)
    assert {"cumsum", "topk", "bitwise_and", "reinterpret", "det", "gather", "gather_nd", "scatter_elements",
            "scatter_nd", "depth_to_space", "space_to_depth", "resize2d", "conv2d_transpose", "grid_sample",
            "roi_align", "roi_pool", "max_unpool"} <= set(NEW_OP_KINDS)
    seen: set[str] = set()

    @settings(max_examples=40, deadline=None, database=None)
    @given(relay_graphs(max_ops=12))
    def draw(graph):
        seen.update(graph.kinds)

    draw()
    assert seen and seen <= set(OP_KINDS)

