"""The text of `--bind-inputs` and `--input-shapes` (compiler/frontend/graph_inputs.py):
any string either parses or is one `CompileError` line naming the option, never another
exception; what parses is what was written."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accel.compiler.diagnostics import CompileError
from accel.compiler.frontend.graph_inputs import GraphInputs, parse_bindings, parse_input_shapes

OPTION_TEXT = st.text(alphabet="xab_=,[]0123456789.- eE:;/", max_size=40)


@settings(max_examples=400, deadline=None)
@given(OPTION_TEXT)
def test_any_text_parses_or_is_one_line(text):
    for parse, option in ((parse_input_shapes, "--input-shapes"), (parse_bindings, "--bind-inputs")):
        if parse is parse_bindings and "=" not in text and text.strip():
            continue  # an .npz path: covered below
        try:
            parse(text)
        except CompileError as e:
            assert "\n" not in str(e) and str(e).startswith(f"error: {option}: "), str(e)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.from_regex(r"[A-Za-z_][A-Za-z0-9_.:/]{0,12}", fullmatch=True),
                       st.lists(st.integers(1, 4096), max_size=6), min_size=1, max_size=4))
def test_written_shapes_parse_back(shapes):
    text = ",".join(f"{name}={'x'.join(map(str, dims))}" for name, dims in shapes.items())
    assert parse_input_shapes(text) == {name: tuple(dims) for name, dims in shapes.items()}
    assert GraphInputs.of(None, shapes).shapes == parse_input_shapes(text)


def test_bindings_from_a_missing_archive_are_one_line(tmp_path):
    with pytest.raises(CompileError, match="--bind-inputs: '.*nothing.npz' is neither NAME=VALUE entries nor"):
        parse_bindings(str(tmp_path / "nothing.npz"))
    np.savez(tmp_path / "b.npz", s=np.array([1, 2]))
    assert list(GraphInputs.of(str(tmp_path / "b.npz")).values["s"]) == [1, 2]
    assert not GraphInputs.of() and GraphInputs.of(None, "x=1")
