"""optimize-dma keeps values that regions of one target hand to each other on the device
(`keep_on_device`): all at once where the scratchpad plan fits, else halves of them, with
a bounded number of whole-module plans whatever the number of regions (it used to plan
the module once per value: 400 regions, 83 s). Compiled results match the reference
interpreter either way.
"""

from __future__ import annotations

import os
import re

import numpy as np
import onnx
import pytest
from onnx import TensorProto
from onnx import helper as oh

from accel.compiler import api
from accel.compiler.targets import registry
from accel.compiler.transforms import optimize_dma

NPU_TOML = os.path.join(os.path.dirname(registry.__file__), "npu.toml")
NO_COST_MODEL = ("canonicalize,byoc{cost-model=false},widen-host-floats,bufferize,plan-memory,lower-to-accel,"
                 "fuse-layers,tile-for-scratchpad,insert-dma,assemble-on-device,optimize-dma,partial-residency,"
                 "plan-memory")
WIDTH = 64
"""Elements of every value: 256 bytes, moved whole."""
TOLERANCE = 1e-5
"""Of the output's largest magnitude: adds, relu and erf in float32, in the same order
(erf: the C library's against numpy's)."""


def handoff_chain(path: str, regions: int, skip: int) -> str:
    """Region i computes y_i = relu(erf(y_{i-1}) + y_{i-1} [+ y_{i-skip}]); the erf between
    regions is host-only, so each y_i goes from region i to regions i+1 and i+skip."""
    nodes, prev_y, prev_e, ys = [], "x", "x", []
    for i in range(regions):
        nodes.append(oh.make_node("Add", [prev_e, prev_y], [f"s{i}"]))
        total = f"s{i}"
        if i >= skip:
            nodes.append(oh.make_node("Add", [total, ys[i - skip]], [f"t{i}"]))
            total = f"t{i}"
        nodes += [oh.make_node("Relu", [total], [f"y{i}"]), oh.make_node("Erf", [f"y{i}"], [f"e{i}"])]
        ys.append(f"y{i}")
        prev_y, prev_e = f"y{i}", f"e{i}"
    graph = oh.make_graph(nodes, "handoff", [oh.make_tensor_value_info("x", TensorProto.FLOAT, [1, WIDTH])],
                          [oh.make_tensor_value_info(prev_e, TensorProto.FLOAT, [1, WIDTH])])
    onnx.save(oh.make_model(graph, opset_imports=[oh.make_opsetid("", 17)]), path)
    return path


def npu_with_scratchpad(tmp_path, scratchpad_bytes: int) -> str:
    text = open(NPU_TOML).read()
    text = text.replace('file = "patterns.mlir"', f'file = "{os.path.dirname(NPU_TOML)}/patterns.mlir"')
    text, n = re.subn(r"^scratchpad_bytes = \d+", f"scratchpad_bytes = {scratchpad_bytes}", text, flags=re.M)
    assert n == 1
    path = tmp_path / "npu.toml"
    path.write_text(text)
    return str(path)


def compile_counting(monkeypatch, tmp_path, model: str, target: str, pipeline: str = NO_COST_MODEL):
    """api.compile, with the whole-module plans and the candidates' counts recorded."""
    plans, candidates = [], []
    real_plan, real_candidates = optimize_dma.plan_scratchpad_module, optimize_dma._resident_candidates
    monkeypatch.setattr(optimize_dma, "plan_scratchpad_module", lambda *a: plans.append(a[1]) or real_plan(*a))
    monkeypatch.setattr(optimize_dma, "_resident_candidates",
                        lambda *a: candidates.append(len(found := real_candidates(*a))) or found)
    out = tmp_path / f"out{len(list(tmp_path.iterdir()))}"
    return api.compile(model, target=target, out_dir=str(out), pipeline=pipeline), plans, candidates


def assert_matches_the_reference(compiled: api.Compiled, model: str) -> None:
    x = np.random.default_rng(0).standard_normal((1, WIDTH)).astype(np.float32)
    got, want = compiled.run({"x": x}), api.reference(model, {"x": x})
    (name,) = want
    assert np.abs(got[name] - want[name]).max() <= TOLERANCE * np.abs(want[name]).max()


@pytest.mark.parametrize("regions,skip,scratchpad,screen", [(12, 3, None, True), (48, 3, None, True),
                                                            (48, 8, 2048, True), (48, 8, 2048, False)],
                         ids=["12-regions", "48-regions", "48-regions-2KiB", "48-regions-2KiB-unscreened"])
def test_values_handed_between_regions_stay_on_the_device_with_bounded_plans(tmp_path, monkeypatch,
                                                                             regions, skip, scratchpad, screen):
    model = handoff_chain(str(tmp_path / "chain.onnx"), regions, skip)
    target = "npu" if scratchpad is None else npu_with_scratchpad(tmp_path, scratchpad)
    none_kept = api.compile(model, target=target, out_dir=str(tmp_path / "none"),
                            pipeline=NO_COST_MODEL.replace("optimize-dma", "optimize-dma{cross-region=false}"))
    if not screen:  # every candidate tried at once: the plan fails, halves are tried
        monkeypatch.setattr(optimize_dma, "_screened_residents", lambda module, target, found, *_: found)
    compiled, plans, candidates = compile_counting(monkeypatch, tmp_path, model, target)
    assert len(compiled.report["regions"]) == regions
    # Every y_i but the last is a candidate (written by region i, read by later ones).
    assert candidates[0] == regions - 1
    # The plans of the whole module do not grow with the number of regions.
    assert len(plans) <= (2 if screen else optimize_dma.MODULE_PLAN_ATTEMPTS + 2)
    transfers, before = compiled.report["dma"]["transfers"], none_kept.report["dma"]["transfers"]
    if scratchpad is None:  # all kept: a region loads its erf input and stores its y
        assert transfers == 2 * regions < before
    else:  # some kept, not all
        assert 2 * regions < transfers < before
    assert_matches_the_reference(compiled, model)
