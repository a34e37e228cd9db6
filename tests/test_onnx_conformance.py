"""ONNX's own conformance cases through the importer and the reference interpreter.

Three suites, each case imported with `import_onnx_model` and run with
`accel.compiler.runtime.interpreter.run_function`, compared with the case's expected outputs:

- the backend *node* tests that onnx 1.23 builds in memory
  (`onnx.backend.test.loader.load_model_tests(kind="node")`, after `np.random.seed(0)`),
  every case whose op the importer supports (`SUPPORTED_OPS`). The `_expanded` variants
  are left out: they spell a function op in other primitive ops.
- the wheel's on-disk `pytorch-converted` and `pytorch-operator` cases (mostly opset 6: the
  importer version-converts them to opset 13), all of them.

Tolerance: each case's own `rtol`/`atol` (ONNX's backend runner defaults, rtol 1e-3 and
atol 1e-7) for floats, but at least two steps of the type for f16 and bf16 results
(rtol 2^-9, 2^-6: each relay op rounds to the type); float8 and float4 results,
integers and booleans exactly; shapes and dtypes exactly.

Inputs that the ONNX node tests feed at run time but a static compiler needs at compile
time (a Reshape's shape, Pad's pads, Slice's bounds, ... see `STATIC_INPUTS`) are bound
to the case's values at import (`import_onnx_model(..., bind_inputs=...)`, what
`--bind-inputs` does).

Every case that does not pass is listed in `KNOWN_DEVIATIONS` with the reason; the tests
assert that the failing set is exactly that list, so a regression and a fix both show.
`pytest tests/test_onnx_conformance.py -s` prints the pass table per op.
"""

from __future__ import annotations

import functools
import glob
import os
import re
import warnings
from collections import defaultdict
from dataclasses import dataclass

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from accel.compiler.diagnostics import CompileError
from accel.compiler.frontend.onnx import SUPPORTED_OPS, import_onnx_model
from accel.compiler.frontend.onnx.importer import sequence_output_name
from accel.compiler.narrow_types import BF16, NARROW_FLOATS
from accel.compiler.runtime.interpreter import run_function

ONNX_DATA = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")
DISK_SUITES = ("pytorch-converted", "pytorch-operator")

STATIC_INPUTS: dict[str, tuple[int, ...]] = {
    "Reshape": (1,),
    "Squeeze": (1,),
    "Unsqueeze": (1,),
    "Pad": (1, 2, 3),
    "Slice": (1, 2, 3, 4),
    "Split": (1,),
    "ReduceMean": (1,),
    "ReduceSum": (1,),
    "ReduceMax": (1,),
    "ReduceMin": (1,),
    "ReduceProd": (1,),
    "Expand": (1,),
    "ConstantOfShape": (0,),
    "Dropout": (1, 2),
    "Resize": (1, 2, 3),
    "Upsample": (1,),
    "LSTM": (1, 2, 3, 4, 7),
    "GRU": (1, 2, 3, 4),
    "If": (0,),
    "ReduceL1": (1,),
    "ReduceL2": (1,),
    "ReduceSumSquare": (1,),
    "ReduceLogSum": (1,),
    "ReduceLogSumExp": (1,),
    "Tile": (1,),
    "Trilu": (1,),
    "OneHot": (1, 2),
    "CumSum": (1,),
    "CumProd": (1,),
    "TopK": (1,),
    "Compress": (1,),
    "DFT": (1, 2),
    "STFT": (1, 3),
    "HannWindow": (0,),
    "HammingWindow": (0,),
    "BlackmanWindow": (0,),
    "MelWeightMatrix": (0, 1, 2, 3, 4),
    "RNN": (1, 2, 3, 4),
    "CenterCropPad": (1,),
    "AffineGrid": (1,),
    "Col2Im": (1, 2),
    "MaxUnpool": (2,),
    "Loop": (0, 1),
    "SequenceAt": (1,),
    "SequenceInsert": (2,),
    "SequenceErase": (1,),
    "SplitToSequence": (1,),
    "SequenceMap": (1,),  # the node tests' tensor inputs have dynamic dimensions: bound, they have a shape
}
"""Inputs (by op type and position) that must be known when compiling. Sequence and
optional graph inputs are always bound (a static compiler keeps no sequence at run time)."""

EXPANDED_CASES: dict[str, str] = {
    **{f"test_range_{t}_expanded": "Loop" for t in (
        "float_type_positive_delta", "int32_type_negative_delta", "float16_type_positive_delta",
        "bfloat16_type_positive_delta")},
    **{f"test_sequence_map_{t}_expanded": "Loop" for t in (
        "identity_1_sequence", "identity_2_sequences", "identity_1_sequence_1_tensor", "add_2_sequences",
        "add_1_sequence_1_tensor", "extract_shapes")},
    **{f"test_linear_attention_{t}_expanded": "Scan" for t in (
        "linear", "gated", "gated_per_head_decay", "delta", "gated_delta", "gated_delta_beta_scalar",
        "gated_delta_gqa", "gated_delta_mqa", "decode_step", "prefill_with_past", "no_past_explicit_zeros",
        "explicit_scale", "fp16", "linear_t1_no_past")},
}
"""`_expanded` cases run all the same, in the group of the op they exercise (the Loop that
spells Range and SequenceMap, the Scan over time steps that spells LinearAttention)."""

BIND_ALL = frozenset(n for n, group in EXPANDED_CASES.items() if group == "Loop")
"""Cases whose graph inputs are all bound (the Loop's trip count is computed from them)."""


# --------------------------------------------------------------------------------------
# Known deviations: case name -> reason
# --------------------------------------------------------------------------------------

_TRAINING = "training-mode Dropout draws a random mask: no reference output can be matched"

_DFT_ROUNDING = ("the expected output keeps numpy's float32 FFT rounding: 1.9e-7 at the Nyquist bin's imaginary "
                 "parts, exactly 0 (the inverse of a real signal's spectrum), where atol is 1e-7; every other "
                 "element is within 3.8e-6 of values up to 54 (onnxruntime: 1.9e-5 off)")

KNOWN_DEVIATION_PATTERNS: list[tuple[str, str]] = [
    (r"test_training_dropout(_default|_mask|_default_mask)?", _TRAINING),
]
"""Families of deviations: case-name regex (full match) -> reason."""


KNOWN_DEVIATIONS: dict[str, str] = {
    "test_equal_string": "string tensors are not supported",
    "test_equal_string_broadcast": "string tensors are not supported",
    "test_scan_sum": ("an opset-8 model: models below opset 9 are version-converted to 13 first, and onnx's "
                      "converter rewrites Scan-8 as Scan-9 by dropping the batch axis from the graph's inputs "
                      "and outputs ([1,2] -> [2]), so the case's [1,2] feeds no longer fit (scan9_sum passes)"),
    # NonZero and Unique: the output shape depends on the input's values (folded when the
    # input is a constant; a run-time input is a one-line refusal)
    "test_nonzero_example": "NonZero's output shape depends on the input's values (folded only on a constant)",
    **{f"test_unique_{c}": "Unique's output shapes depend on the input's values (folded only on a constant)"
       for c in ("sorted_without_axis", "not_sorted_without_axis", "sorted_with_axis", "sorted_with_axis_3d",
                 "sorted_with_negative_axis", "length_1", "bfloat16_sorted_without_axis")},
    "test_dft_inverse": _DFT_ROUNDING,
    "test_dft_inverse_opset19": _DFT_ROUNDING,
    # pytorch-converted / pytorch-operator
}
"""Single deviations: case name -> reason."""


def known_deviation(name: str) -> str | None:
    if name in KNOWN_DEVIATIONS:
        return KNOWN_DEVIATIONS[name]
    for pattern, why in KNOWN_DEVIATION_PATTERNS:
        m = re.fullmatch(pattern, name)
        if m:
            return why.format(**m.groupdict())
    return None




# --------------------------------------------------------------------------------------
# Loading the cases (once per session: building the node tests takes ~13 s)
# --------------------------------------------------------------------------------------


@dataclass
class Case:
    name: str
    group: str  # op type for node tests, the suite name for the disk suites
    model: onnx.ModelProto
    data_sets: list[tuple[list[np.ndarray], list[np.ndarray]]]
    rtol: float
    atol: float


def _as_array(v):
    """A tensor as an array; a sequence as a list of arrays; an empty optional as None."""
    if v is None:
        return None
    if isinstance(v, (list, tuple)):
        return [_as_array(a) for a in v]
    if isinstance(v, onnx.TensorProto):
        return numpy_helper.to_array(v)
    return np.asarray(v)


def _load_pb(path: str) -> np.ndarray:
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


@functools.cache
def all_cases() -> tuple[Case, ...]:
    from onnx.backend.test.loader import load_model_tests

    cases: list[Case] = []
    np.random.seed(0)  # the node-test generators call np.random without a seed
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        node_tests = load_model_tests(kind="node")
    for c in node_tests:
        if ("_expanded" in c.name and c.name not in EXPANDED_CASES) or not c.model.graph.node:
            continue
        op = EXPANDED_CASES.get(c.name, c.model.graph.node[0].op_type)
        if op not in SUPPORTED_OPS:
            continue
        data = [([_as_array(a) for a in ins], [_as_array(a) for a in outs]) for ins, outs in c.data_sets]
        cases.append(Case(c.name, op, c.model, data, c.rtol, c.atol))
    for suite in DISK_SUITES:
        for d in sorted(glob.glob(os.path.join(ONNX_DATA, suite, "test_*"))):
            model = onnx.load(os.path.join(d, "model.onnx"))
            data = []
            for ds in sorted(glob.glob(os.path.join(d, "test_data_set_*"))):
                ins = [_load_pb(p) for p in sorted(glob.glob(os.path.join(ds, "input_*.pb")))]
                outs = [_load_pb(p) for p in sorted(glob.glob(os.path.join(ds, "output_*.pb")))]
                data.append((ins, outs))
            cases.append(Case(os.path.basename(d), suite, model, data, 1e-3, 1e-7))
    return tuple(cases)


# --------------------------------------------------------------------------------------
# Running one case
# --------------------------------------------------------------------------------------


def static_bindings(model: onnx.ModelProto, inputs: list[np.ndarray], name: str = "") -> tuple[dict, dict]:
    """The graph inputs that feed `STATIC_INPUTS` positions with their values (bound at
    import: `--bind-inputs`), and the feeds of the remaining (run-time) inputs."""
    initialized = {t.name for t in model.graph.initializer}
    runtime = [vi for vi in model.graph.input if vi.name not in initialized]
    values = {vi.name: arr for vi, arr in zip(runtime, inputs)}
    static = {vi.name for vi in runtime if vi.type.WhichOneof("value") in ("sequence_type", "optional_type")}
    if name in BIND_ALL:
        static = set(values)
    for node in model.graph.node:
        for i in STATIC_INPUTS.get(node.op_type, ()):
            if i < len(node.input) and node.input[i] in values:
                static.add(node.input[i])
    return {n: values[n] for n in sorted(static)}, {k: v for k, v in values.items() if k not in static}


HALF_STEP = {np.dtype(np.float16): 2.0**-10, BF16: 2.0**-7}
"""Largest relative spacing of neighbouring values of the 16-bit float types."""


def compare(got: np.ndarray, want: np.ndarray, rtol: float, atol: float) -> str | None:
    if got.shape != want.shape or got.dtype != want.dtype:
        return f"got {got.dtype}{list(got.shape)}, expected {want.dtype}{list(want.shape)}"
    if want.dtype in HALF_STEP:
        # f16/bf16 results: within two steps of the type (relative spacing 2^-10 / 2^-7):
        # every relay op rounds its result to the type, ONNX's expected values come from
        # a different split into ops (Attention, Celu: one fused computation).
        rtol = max(rtol, 2 * HALF_STEP[want.dtype])
    if want.dtype in NARROW_FLOATS:  # ml_dtypes' floats: values as float32, NaN equals NaN
        exact = want.dtype.itemsize == 1  # float8/float4: conversions only, exact
        got, want = got.astype(np.float32), want.astype(np.float32)
        if exact and not np.array_equal(got, want, equal_nan=True):
            return f"{int(np.sum(~((got == want) | (np.isnan(got) & np.isnan(want)))))} of {want.size} elements differ"
    if want.dtype.kind in "fc":
        if not np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True):
            err = np.nanmax(np.abs(got.astype(np.float64) - want.astype(np.float64)))
            return f"max abs error {err:.3g} beyond rtol {rtol:g} / atol {atol:g}"
    elif not np.array_equal(got, want):
        return f"{int(np.sum(got != want))} of {want.size} elements differ"
    return None


def output_value(got: dict, vi: onnx.ValueInfoProto, want):
    """Graph output `vi` from the compiled outputs: a sequence is one output per element
    (`name[0]`, `name[1]`, ...: the importer's `sequence_output_name`)."""
    if not isinstance(want, list):
        return np.asarray(got[vi.name])
    items, i = [], 0
    while sequence_output_name(vi.name, i) in got:
        items.append(np.asarray(got[sequence_output_name(vi.name, i)]))
        i += 1
    return items


def compare_value(got, want, rtol: float, atol: float) -> str | None:
    """`compare`, and element by element for a sequence (a list)."""
    if isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            return f"got {len(got) if isinstance(got, list) else 'a tensor'}, expected a sequence of {len(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            why = compare(g, w, rtol, atol)
            if why:
                return f"element {i}: {why}"
        return None
    return compare(got, want, rtol, atol)


def run_case(case: Case) -> str | None:
    """None when the case passes, else why not (one line)."""
    try:
        for inputs, expected in case.data_sets:
            bindings, feeds = static_bindings(case.model, inputs, case.name)
            module = import_onnx_model(case.model, bind_inputs=bindings)
            got = run_function(module, feeds)
            for vi, want in zip(case.model.graph.output, expected):
                why = compare_value(output_value(got, vi, want), want, case.rtol, case.atol)
                if why:
                    return f"output '{vi.name}': {why}"
    except CompileError as e:
        return str(e)
    return None


@pytest.fixture(scope="module")
def results() -> dict[str, dict[str, str | None]]:
    """group -> case name -> failure reason (None: passed)."""
    out: dict[str, dict[str, str | None]] = defaultdict(dict)
    for case in all_cases():
        out[case.group][case.name] = run_case(case)
    return out


NO_NODE_TESTS: dict[str, str] = {
    "GlobalLpPool": "onnx builds no node test of it; tests/test_onnx_pools.py compares it with onnxruntime",
    "MaxRoiPool": "onnx builds no node test of it; tests/test_onnx_pools.py compares it with onnxruntime",
    **{op: f"onnx 1.23 has no node test that uses {op}; tests/test_onnx_sequence.py checks it against onnxruntime"
       for op in ("ConcatFromSequence", "SequenceErase")},
}
"""Supported ops that no node test uses, not even inside another op's case (tested against
onnxruntime elsewhere)."""


def _groups() -> list[str]:
    return sorted(SUPPORTED_OPS - set(NO_NODE_TESTS)) + list(DISK_SUITES)


# --------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------


def _op_types(graph: onnx.GraphProto):
    for node in graph.node:
        yield node.op_type
        for a in node.attribute:
            for g in ([a.g] if a.HasField("g") else []) + list(a.graphs):
                yield from _op_types(g)


@functools.cache
def cases_using() -> dict[str, frozenset[str]]:
    """op type -> the cases whose graph (or a subgraph) uses it."""
    out: dict[str, set[str]] = defaultdict(set)
    for case in all_cases():
        for op in _op_types(case.model.graph):
            out[op].add(case.name)
    return {op: frozenset(names) for op, names in out.items()}


@pytest.mark.parametrize("group", _groups())
def test_conformance(results, group: str):
    cases = results.get(group, {})
    if not cases and group in SUPPORTED_OPS:
        # an op no case starts with (SequenceConstruct in If branches, SequenceAt in the
        # Loop of SequenceMap's expansion): the cases that use it
        using = cases_using().get(group, frozenset())
        cases = {name: why for g in results.values() for name, why in g.items() if name in using}
    assert cases, f"no conformance cases were found for {group}"
    failing = {name: why for name, why in cases.items() if why is not None}
    known = {name for name in cases if known_deviation(name) is not None}
    unexpected = {n: w for n, w in failing.items() if n not in known}
    fixed = sorted(known - set(failing))
    lines = [f"{n}: {w}" for n, w in sorted(unexpected.items())]
    lines += [f"{n}: passes now; remove it from KNOWN_DEVIATIONS" for n in fixed]
    assert not lines, f"{group}:\n" + "\n".join(lines)


def test_the_ops_without_node_tests_have_none(results):
    """If onnx adds node tests of one of them, it belongs in the conformance run."""
    assert set(NO_NODE_TESTS) <= SUPPORTED_OPS
    found = {group for group in NO_NODE_TESTS if results.get(group) or cases_using().get(group)}
    assert not found, f"onnx has node tests of {sorted(found)} now: remove them from NO_NODE_TESTS"


def test_every_known_deviation_is_a_case(results):
    names = {n for group in results.values() for n in group}
    stale = sorted(set(KNOWN_DEVIATIONS) - names)
    stale += [p for p, _ in KNOWN_DEVIATION_PATTERNS if not any(re.fullmatch(p, n) for n in names)]
    assert not stale, f"KNOWN_DEVIATIONS names cases that do not exist: {stale}"


def test_print_table(results):
    """The pass table (visible with `pytest -s`)."""
    rows = []
    for group in _groups():
        cases = results.get(group, {})
        passed = sum(why is None for why in cases.values())
        rows.append((group, passed, len(cases)))
    total_pass = sum(p for _, p, _ in rows)
    total = sum(t for _, _, t in rows)
    print("\nONNX conformance (import + reference interpreter)")
    print(f"{'op / suite':24} {'pass':>5} / {'cases':<5}")
    for group, passed, n in rows:
        print(f"{group:24} {passed:>5} / {n:<5}")
    print(f"{'total':24} {total_pass:>5} / {total:<5}")
    print("known deviations (case: reason):")
    for group in _groups():
        for name in sorted(results.get(group, {})):
            why = known_deviation(name)
            if why is not None:
                print(f"  {name}: {why}")
    assert total > 0
