"""ONNX backend node tests through the C path: import (shape inputs bound with
`bind_inputs`, see tests/test_onnx_conformance.py's STATIC_INPUTS), compile for `--target` (default npu),
build with -Werror and run; compare with the case's expected outputs.

    .venv/bin/python bench/conformance_c.py [--target npu] [-k REGEX] [--fails]

Prints the pass count per op and the total; `--fails` lists each failing case and why.
Not in the default test run (it builds a C program per case).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from collections import defaultdict

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))

from test_onnx_conformance import all_cases, compare_value, known_deviation, output_value, static_bindings  # noqa: E402

from accel.compiler.diagnostics import CompileError  # noqa: E402
from accel.compiler.driver import compile_to_directory  # noqa: E402
from accel.compiler.frontend.graph_inputs import GraphInputs  # noqa: E402
from accel.compiler.runtime.run_compiled import run_directory  # noqa: E402


def run_case_c(case, target: str, tmp: str) -> str | None:
    try:
        for i, (inputs, expected) in enumerate(case.data_sets):
            bindings, feeds = static_bindings(case.model, inputs, case.name)
            path = os.path.join(tmp, f"{case.name}_{i}.onnx")
            onnx.save(case.model, path)
            out_dir = os.path.join(tmp, f"{case.name}_{i}")
            compile_to_directory(path, target, out_dir, inputs=GraphInputs(values=bindings))
            got, _ = run_directory(out_dir, feeds)
            for vi, want in zip(case.model.graph.output, expected):
                why = compare_value(output_value(got, vi, want), want, case.rtol, case.atol)
                if why:
                    return f"output '{vi.name}': {why}"
    except CompileError as e:
        return str(e)
    except Exception as e:  # a crash is a failure of the case, reported, not fatal
        return f"{type(e).__name__}: {e}"
    return None


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--target", default="npu")
    ap.add_argument("-k", default="", help="regex on the case name")
    ap.add_argument("--fails", action="store_true")
    ap.add_argument("--node-only", action="store_true", help="only the node tests (not pytorch-*)")
    args = ap.parse_args()
    rows: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
    with tempfile.TemporaryDirectory(prefix="accel-conf-") as tmp:
        for case in all_cases():
            if args.k and not re.search(args.k, case.name):
                continue
            if args.node_only and case.group.startswith("pytorch-"):
                continue
            rows[case.group].append((case.name, run_case_c(case, args.target, tmp)))
    total = passed = applicable = applicable_pass = 0
    for group in sorted(rows):
        cases = rows[group]
        p = sum(w is None for _, w in cases)
        print(f"{group:24} {p:>4} / {len(cases)}")
        total += len(cases)
        passed += p
        for name, why in cases:
            if known_deviation(name) is None:
                applicable += 1
                applicable_pass += why is None
    print(f"{'total':24} {passed:>4} / {total}  ({100 * passed / max(total, 1):.1f} %)")
    print(f"{'applicable':24} {applicable_pass:>4} / {applicable}  ({100 * applicable_pass / max(applicable, 1):.1f} %)"
          "  (cases without a known deviation)")
    if args.fails:
        for group in sorted(rows):
            for name, why in rows[group]:
                if why is not None:
                    print(f"FAIL {name}: {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
