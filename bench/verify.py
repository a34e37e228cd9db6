"""Module verification at scale: xDSL's own verifier vs accel's `verify_located`.

    .venv/bin/python bench/verify.py [REGIONS ...]     # default: 500 1000 2000

Builds a chain of REGIONS blocks (a 3x3 convolution, offloaded to npu, then a sigmoid,
kept on the host), partitions it with `byoc{cost-model=false}` (REGIONS outlined
functions and calls) and times one verification of the partitioned module: xDSL's
`ModuleOp.verify()` (each `func.call` looks its callee up by a scan of the module) and
`verify_located` (one symbol table per module). Also the whole `accel-opt -p byoc` run
in-process with and without verification after every pass.
"""

from __future__ import annotations

import sys
import time

from accel.compiler.diagnostics import LocatingParser, verify_located
from accel.compiler.driver import build_passes, make_context


def chain(regions: int) -> str:
    t = "tensor<1x4x4x4xf32>"
    lines = [f"func.func @main(%x: {t}, %w: tensor<4x4x3x3xf32>) -> {t} {{"]
    prev = "%x"
    for i in range(regions):
        lines.append(f"  %c{i} = relay.nn.conv2d {prev}, %w {{padding = [1, 1, 1, 1]}} : "
                     f"({t}, tensor<4x4x3x3xf32>) -> {t}")
        lines.append(f"  %s{i} = relay.sigmoid %c{i} : {t}")
        prev = f"%s{i}"
    lines.append(f"  func.return {prev} : {t}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def seconds(f) -> float:
    start = time.perf_counter()
    f()
    return time.perf_counter() - start


def main(sizes: list[int]) -> None:
    print(f"{'regions':>8} {'ops':>7} | {'xdsl verify s':>13} {'verify_located s':>16} {'speed-up':>8} | "
          f"{'byoc+verify s':>13} {'byoc s':>7}")
    for n in sizes:
        ctx = make_context("npu")
        text = chain(n)
        module = LocatingParser(ctx, text, "chain.mlir").parse_module()
        (byoc,) = build_passes("byoc{cost-model=false}")
        byoc_plain = seconds(lambda: byoc.apply(ctx, module))
        calls = sum(1 for op in module.walk() if op.name == "func.call")
        assert calls == n, calls
        ops = sum(1 for _ in module.walk())
        xdsl = seconds(module.verify)
        ours = seconds(lambda: verify_located(module))
        print(f"{n:>8} {ops:>7} | {xdsl:>13.2f} {ours:>16.2f} {xdsl / ours:>7.1f}x | "
              f"{byoc_plain + ours:>13.2f} {byoc_plain:>7.2f}", flush=True)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [500, 1000, 2000])
