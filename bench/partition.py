"""Partitioning speed: ONNX import and `byoc` on synthetic chains, in ms per ONNX node.

    .venv/bin/python bench/partition.py                          # ~500, ~1,600, 10,000 nodes
    .venv/bin/python bench/partition.py --sizes 500,1600 --repeat 3
    .venv/bin/python bench/partition.py --tvm-python /tmp/tvmenv/bin/python

The model is the one of the TVM study (docs: ../shared/notes/tvm-byoc.md §5): N blocks of
[1x1 Conv 8->8, Relu, Add(skip)] on a 1x8x16x16 input, with an Erf (no npu command; the
study's Sigmoid runs on the npu now) after every 4th block, so the partition has one region
per 4 blocks. accel runs
`byoc{target=npu}` (merge-composite, annotate-target, merge-regions with the cost model,
outline-regions); import is `import_onnx_file`; verify (`verify_located` of the partitioned
module, the driver's verification, which accel-opt runs after every pass) is shown apart;
the cycle collector is paused as the driver pauses it. The target
description is loaded (and cached) before timing. Each number is the median of `--repeat` runs (CPU time of the
process), in milliseconds per ONNX node; a per-node cost that grows with N would mean
quadratic behaviour.

With `--tvm-python` (a separate venv with apache-tvm==0.27.0.post1 and onnx; never a
dependency of accel), the same files also go through TVM Relax in that interpreter:
`relax.frontend.onnx.from_onnx`, then `FuseOpsByPattern` (patterns conv2d+relu, conv2d,
add, relu; earliest wins) and `MergeCompositeFunctions`, and the ratio TVM / accel is
printed for import and for partitioning.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import numpy as np  # noqa: E402
import onnx  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402


def chain_model(blocks: int) -> onnx.ModelProto:
    """N blocks of [Conv 1x1 8->8, Relu, Add(skip)], an Erf after every 4th block."""
    rng = np.random.default_rng(0)
    nodes, inits = [], []
    x = "x"
    for i in range(blocks):
        w = f"w{i}"
        inits.append(numpy_helper.from_array((rng.standard_normal((8, 8, 1, 1)) * 0.3).astype(np.float32), w))
        nodes.append(helper.make_node("Conv", [x, w], [f"c{i}"], name=f"conv{i}"))
        nodes.append(helper.make_node("Relu", [f"c{i}"], [f"r{i}"], name=f"relu{i}"))
        nodes.append(helper.make_node("Add", [f"r{i}", x], [f"a{i}"], name=f"add{i}"))
        x = f"a{i}"
        if i % 4 == 3:
            nodes.append(helper.make_node("Erf", [x], [f"s{i}"], name=f"erf{i}"))
            x = f"s{i}"
    graph = helper.make_graph(
        nodes, "chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 16, 16])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, 8, 16, 16])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def blocks_for(nodes: int) -> int:
    """Blocks whose model has about `nodes` nodes (3.25 nodes per block)."""
    return max(1, round(nodes / 3.25))


def time_accel(path: str) -> tuple[float, float, float, dict]:

    from accel.compiler.diagnostics import verify_located
    from accel.compiler.driver import cycle_collection_paused
    from accel.compiler.frontend.onnx import import_onnx_file
    from accel.compiler.partition_report import partition_report
    from accel.compiler.targets import AccelContext
    from accel.compiler.transforms.byoc import Byoc

    with cycle_collection_paused():
        start = time.process_time()
        module = import_onnx_file(path)
        imported = time.process_time()
        Byoc(target=("npu",)).apply(AccelContext(), module)
        partitioned = time.process_time()
        verify_located(module)
        verified = time.process_time()
    return imported - start, partitioned - imported, verified - partitioned, partition_report(module)


TVM_SCRIPT = r'''
import json, sys, time
import onnx
from tvm import relax
from tvm.relax.dpl import is_const, is_op, wildcard
from tvm.relax.frontend.onnx import from_onnx
from tvm.relax.transform import FuseOpsByPattern, MergeCompositeFunctions

path = sys.argv[1]
model = onnx.load(path)
start = time.process_time()
mod = from_onnx(model)
imported = time.process_time()
conv = is_op("relax.nn.conv2d")(wildcard(), is_const())
patterns = [
    ("myacc.conv2d_relu", is_op("relax.nn.relu")(conv)),
    ("myacc.conv2d", is_op("relax.nn.conv2d")(wildcard(), is_const())),
    ("myacc.add", is_op("relax.add")(wildcard(), wildcard())),
    ("myacc.relu", is_op("relax.nn.relu")(wildcard())),
]
mod = FuseOpsByPattern(patterns, bind_constants=False, annotate_codegen=False)(mod)
mod = MergeCompositeFunctions()(mod)
done = time.process_time()
external = [gv.name_hint for gv, f in mod.functions.items() if "Codegen" in (f.attrs or {})]
print(json.dumps({"import": imported - start, "partition": done - imported, "functions": len(external)}))
'''


def time_tvm(python: str, path: str, script: str) -> dict:
    out = subprocess.run([python, script, path], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"TVM run failed: {out.stderr.strip().splitlines()[-1] if out.stderr.strip() else out.returncode}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="500,1600,10000", help="approximate ONNX node counts")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--tvm-python", default=os.environ.get("TVM_PYTHON"),
                    help="python of a venv with apache-tvm==0.27.0.post1 (optional)")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "tvm_partition.py")
        with open(script, "w") as f:
            f.write(TVM_SCRIPT)
        from accel.compiler.targets import load_target

        load_target("npu")
        header = f"{'nodes':>6} {'regions':>7} {'import ms/node':>15} {'byoc ms/node':>13} {'verify':>7}"
        if args.tvm_python:
            header += f" {'tvm import':>11} {'tvm fuse+merge':>15} {'import x':>9} {'partition x':>12}"
        print(header)
        for size in (int(s) for s in args.sizes.split(",")):
            model = chain_model(blocks_for(size))
            nodes = len(model.graph.node)
            path = os.path.join(tmp, f"chain{nodes}.onnx")
            onnx.save(model, path)
            runs = [time_accel(path) for _ in range(args.repeat)]
            imp = statistics.median(r[0] for r in runs) * 1000 / nodes
            part = statistics.median(r[1] for r in runs) * 1000 / nodes
            ver = statistics.median(r[2] for r in runs) * 1000 / nodes
            regions = len(runs[0][3]["regions"])
            line = f"{nodes:>6} {regions:>7} {imp:>15.3f} {part:>13.3f} {ver:>7.3f}"
            if args.tvm_python:
                tvm_runs = [time_tvm(args.tvm_python, path, script) for _ in range(args.repeat)]
                t_imp = statistics.median(r["import"] for r in tvm_runs) * 1000 / nodes
                t_part = statistics.median(r["partition"] for r in tvm_runs) * 1000 / nodes
                line += f" {t_imp:>11.3f} {t_part:>15.3f} {t_imp / imp:>9.2f} {t_part / part:>12.2f}"
                line += f"   (tvm external functions: {tvm_runs[0]['functions']})"
            print(line, flush=True)


if __name__ == "__main__":
    main()
